/*
 * Reductions past 2^31 elements, where a 32-bit index or count would wrap:
 * 2^31 + 4099 random bytes, read as u8 and as i8. The i8 minimum (-128)
 * and maximum (127) occur once each, both past index 2^31, so a reduction
 * that stops early or wraps its index misses them; sums miss the tail.
 * The oracle is gp_ref_reduce, run over chunks in parallel and combined by
 * gp_ref_reduce again (exact: every op here is an associative integer op).
 */
#include "cpu_reference.h"
#include "reduce_data.h"

#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lcase {
    gp_primitive prim;
    gp_dtype in_t;
    gp_op op;
    gp_dtype out_t;
    bool to_host; /* gp_reduce_to_host, else gp_reduce into a guarded buffer */
    int ref_from; /* -1, or an earlier case whose reference, truncated to
                   * out_t (arithmetic mod 2^k), is this one's: saves a pass */
} lcase;

static const lcase cases[] = {
    {GP_PRIM_REDUCE, GP_DTYPE_U8, GP_OP_SUM, GP_DTYPE_U64, false, -1},
    {GP_PRIM_REDUCE, GP_DTYPE_U8, GP_OP_SUM, GP_DTYPE_U32, true, 0}, /* wraps mod 2^32 */
    {GP_PRIM_REDUCE, GP_DTYPE_I8, GP_OP_SUM, GP_DTYPE_I64, true, -1},
    {GP_PRIM_REDUCE, GP_DTYPE_I8, GP_OP_MIN, GP_DTYPE_I64, false, -1},
    {GP_PRIM_REDUCE, GP_DTYPE_I8, GP_OP_MAX, GP_DTYPE_I64, false, -1},
    {GP_PRIM_REDUCE, GP_DTYPE_I8, GP_OP_MAX, GP_DTYPE_I8, true, 4},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

static const int64_t N = (INT64_C(1) << 31) + 4099;
enum { CHUNKS = 256 };

/* Bytes equal to zero in y: 0x80 there, 0 elsewhere (exact, no carries). */
static uint64_t zero_bytes(uint64_t y)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
    return ~(((y & low7) + low7) | y | low7);
}

/* Random bytes but never -128 or 127 (as i8): those two get their low bit
 * flipped (to -127 and 126). In parallel: the PRNG is counter based, so
 * word w is the same whatever the thread count. */
static void generate(unsigned char *x, int64_t n, uint64_t seed)
{
    int64_t words = n / 8;
#pragma omp parallel for schedule(static)
    for (int64_t w = 0; w < words; w++) {
        gpt_rng r = gpt_rng_at(seed, (uint64_t)w);
        uint64_t v = gpt_next(&r), y = v ^ 0x8080808080808080ull; /* 0x80 -> 0x00, 0x7f -> 0xff */
        v ^= (zero_bytes(y) | zero_bytes(~y)) >> 7;
        memcpy(x + 8 * w, &v, 8);
    }
    for (int64_t i = words * 8; i < n; i++) x[i] = (unsigned char)(i * 37 % 200);
    gpt_rng r = gpt_rng_at(seed, (uint64_t)words + 1);
    int64_t tail = n - (INT64_C(1) << 31);
    int64_t lo = (INT64_C(1) << 31) + (int64_t)gpt_below(&r, (uint64_t)tail);
    int64_t hi = (INT64_C(1) << 31) + (int64_t)gpt_below(&r, (uint64_t)tail - 1);
    if (hi >= lo) hi++; /* distinct from lo */
    x[lo] = 0x80;
    x[hi] = 0x7f;
    printf("i8 minimum at %" PRId64 ", maximum at %" PRId64 "\n", lo, hi);
}

static void reference(const unsigned char *x, int64_t n, const lcase *c, void *out)
{
    size_t osz = gpt_size(c->out_t);
    unsigned char part[CHUNKS * 8];
#pragma omp parallel for schedule(dynamic)
    for (int k = 0; k < CHUNKS; k++) {
        int64_t lo = n / CHUNKS * k, hi = k == CHUNKS - 1 ? n : n / CHUNKS * (k + 1);
        gp_ref_reduce(x + lo, c->in_t, hi - lo, c->op, part + (size_t)k * osz, c->out_t);
    }
    gp_ref_reduce(part, c->out_t, CHUNKS, c->op, out, c->out_t);
}

int main(int argc, char **argv)
{
    gpt t;
    gpt_init(&t, argc, argv);
    /* A host-memory context's buffer is generated in place: the upload
     * would cost as much as a reference pass and 2 GiB more memory. */
    void *dev = NULL;
    gpt_guarded out;
    gp_status s = gp_malloc(t.ctx, &dev, (size_t)N);
    bool in_place = t.backend == GP_BACKEND_CPU;
    unsigned char *host = in_place ? dev : malloc((size_t)N);
    if (s != GP_STATUS_OK || !host || (s = gpt_guarded_alloc(t.ctx, &out, 8)) != GP_STATUS_OK) {
        gpt_fail(&t, "could not allocate %s%" PRId64 " bytes: %s", in_place ? "" : "2 x ", N, gp_status_name(s));
        if (!in_place) free(host);
        gp_free(t.ctx, dev);
        return gpt_finish(&t);
    }
    uint64_t seed = gpt_derive(t.seed, (uint64_t)N, 0, 0, 0);
    double t0 = omp_get_wtime();
    generate(host, N, seed);
    double t1 = omp_get_wtime();
    if (!in_place) s = gp_copy_from_host(t.ctx, dev, host, (size_t)N);
    printf("generated in %.1f s, uploaded in %.1f s\n", t1 - t0, omp_get_wtime() - t1);
    if (s != GP_STATUS_OK) gpt_fail(&t, "uploading %" PRId64 " bytes: %s", N, gp_status_name(s));

    unsigned char refs[NCASES][8];
    for (size_t k = 0; s == GP_STATUS_OK && k < NCASES; k++) {
        const lcase *c = &cases[k];
        char desc[160], why[256] = "";
        snprintf(desc, sizeof desc, "case %zu: reduce %s->%s %s n=%" PRId64 " %s data_seed=0x%016" PRIx64, k,
                 gp_dtype_name(c->in_t), gp_dtype_name(c->out_t), gp_op_name(c->op), N,
                 c->to_host ? "to_host" : "guarded", seed);
        if (!gpt_selected(&t, (long)k)) continue;
        if (!gpt_supported(&t, c->prim, c->op, c->in_t, c->out_t, desc)) continue;
        unsigned char *ref = refs[k], got[8], poison[8];
        gpt_facts none = {0};
        double r0 = omp_get_wtime();
        if (c->ref_from >= 0) memcpy(ref, refs[c->ref_from], 8); /* little-endian: the low bytes */
        else reference(host, N, c, ref);
        double r1 = omp_get_wtime();
        gpt_poison_for(c->out_t, ref, poison);
        memcpy(got, poison, 8);
        gp_status r;
        bool ok;
        if (c->to_host) {
            r = gp_reduce_to_host(t.ctx, dev, c->in_t, N, c->op, got, c->out_t);
            ok = r == GP_STATUS_OK;
        } else {
            gpt_guarded_poison(&out, poison, gpt_size(c->out_t));
            r = gp_reduce(t.ctx, dev, c->in_t, N, c->op, out.ptr, c->out_t);
            ok = r == GP_STATUS_OK && gpt_guarded_check(&out, got, why, sizeof why);
        }
        if (r != GP_STATUS_OK) snprintf(why, sizeof why, "returned %s", gp_status_name(r));
        if (ok) ok = gpt_result_ok(c->op, c->out_t, N, &none, got, ref, why, sizeof why);
        printf("%s: reference %.1f s, %s %.2f s\n", desc, r1 - r0, c->to_host ? "gp_reduce_to_host" : "gp_reduce",
               omp_get_wtime() - r1);
        if (ok) gpt_pass(&t);
        else gpt_fail(&t, "%s: %s", desc, why);
    }
    gpt_guarded_free(&out);
    gp_free(t.ctx, dev);
    if (!in_place) free(host);
    return gpt_finish(&t);
}
