/* The README's example: sum a million integers on the best backend here. */
#include <gpuprim.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    enum { N = 1 << 20 };
    int32_t *host = malloc(N * sizeof *host);
    if (!host) return 1;
    for (int i = 0; i < N; i++) host[i] = i % 1000;

    gp_ctx *ctx = NULL;
    void *data = NULL;
    int64_t sum = 0;
    gp_status s = gp_ctx_create(&ctx, GP_BACKEND_AUTO, 0); /* CUDA if a GPU is usable */
    if (s == GP_STATUS_OK) s = gp_malloc(ctx, &data, N * sizeof *host);
    if (s == GP_STATUS_OK) s = gp_copy_from_host(ctx, data, host, N * sizeof *host);
    /* int32 summed into int64, so it cannot wrap; the host call synchronises. */
    if (s == GP_STATUS_OK) s = gp_reduce_to_host(ctx, data, GP_DTYPE_I32, N, GP_OP_SUM, &sum, GP_DTYPE_I64);
    if (s == GP_STATUS_OK)
        printf("sum = %lld on the %s backend\n", (long long)sum, gp_backend_name(gp_ctx_backend(ctx)));
    else
        fprintf(stderr, "gpuprim: %s (%s)\n", gp_status_string(s), gp_ctx_last_error(ctx));

    gp_free(ctx, data);
    gp_ctx_free(ctx);
    free(host);
    return s == GP_STATUS_OK && sum == 499500LL * (N / 1000) + (N % 1000) * (N % 1000 - 1) / 2 ? 0 : 1;
}
