/*
 * Which launch a partition counted first takes, proven by the context's
 * launch tally (gp_ctx.launches) rather than read from the code: with
 * GPUPRIM_COUNT_FIRST_BY_TICKET=0 its grid is a cooperative launch after
 * the count's; with =1 it takes its tiles by ticket, launched in stream
 * order or overlapping the count, never cooperatively (cuda_select.cu,
 * count_first_by_ticket). 2-byte items, because 4- and 8-byte ones up to
 * 128 MiB and 1-byte ones take the prefixed kernel when counted first. The
 * hooks are read when a context is made, so each setting gets its own.
 * Every output is compared exactly with the serial reference. CUDA only.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "cpu_reference.h"
#include "gp_internal.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 2^20 + 3 two-byte items: hundreds of tiles on 5 blocks, far from one
 * pass (at most 5 blocks x 4 stages), so the partition is counted first. */
enum { N = (1 << 20) + 3, BLOCKS = 5 };

typedef struct buffers {
    int16_t *host_in, *want;
    uint8_t *host_flags;
    void *in, *out;
    uint8_t *flags;
} buffers;

/* The launches since `before`, by kind, into delta; returns them all. */
static unsigned long long tally_diff(const gp_ctx *c, const unsigned long long before[GP_LAUNCH_KINDS],
                                     unsigned long long delta[GP_LAUNCH_KINDS])
{
    unsigned long long total = 0;
    for (int k = 0; k < GP_LAUNCH_KINDS; k++) total += delta[k] = c->launches[k] - before[k];
    return total;
}

/* One partition (by flags or by comparison) on a context whose hooks say
 * by_ticket; checks its output and which launches it made. */
static void one_call(gpt *t, gp_ctx *c, const buffers *b, bool by_flags, int by_ticket)
{
    const int16_t middle = 0;
    const char *what = by_flags ? "partition_flagged" : "partition_if";
    const int64_t m = gp_ref_partition(b->host_in, GP_DTYPE_I16, N, by_flags ? b->host_flags : NULL, GP_CMP_LT,
                                       &middle, b->want);
    /* Twice: the first call also makes the look-back pool and the scratch. */
    for (int call = 0; call < 2; call++) {
        unsigned long long before[GP_LAUNCH_KINDS], delta[GP_LAUNCH_KINDS];
        memcpy(before, c->launches, sizeof before);
        int64_t got = -1;
        gp_status s = by_flags ? gp_partition_flagged(c, b->in, GP_DTYPE_I16, N, b->flags, b->out, NULL, &got)
                               : gp_partition_if(c, b->in, GP_DTYPE_I16, N, GP_CMP_LT, &middle, b->out, NULL, &got);
        const unsigned long long total = tally_diff(c, before, delta);
        if (s != GP_STATUS_OK) {
            gpt_fail(t, "%s, by ticket %d: %s (%s)", what, by_ticket, gp_status_name(s), gp_ctx_last_error(c));
            return;
        }
        int16_t *out = malloc((size_t)N * sizeof *out);
        const bool copied = out && gp_copy_to_host(c, out, b->out, (size_t)N * sizeof *out) == GP_STATUS_OK;
        GPT_CHECK(t, copied && got == m && memcmp(out, b->want, (size_t)N * sizeof *out) == 0,
                  "%s, by ticket %d, call %d: count %lld (want %lld)%s", what, by_ticket, call, (long long)got,
                  (long long)m, copied ? ", or its output differs from the reference" : ", could not copy it back");
        free(out);
        printf("%s, by ticket %d, call %d: launches %llu plain, %llu cluster, %llu cooperative, %llu overlapped\n",
               what, by_ticket, call, delta[GP_LAUNCH_PLAIN], delta[GP_LAUNCH_CLUSTER], delta[GP_LAUNCH_COOPERATIVE],
               delta[GP_LAUNCH_OVERLAPPED]);
        /* The count, then the partition's grid: the only cooperative launch. */
        if (by_ticket)
            GPT_CHECK(t, delta[GP_LAUNCH_COOPERATIVE] == 0 && total >= 2,
                      "%s by ticket, call %d: %llu cooperative launches of %llu, want none of at least 2", what, call,
                      delta[GP_LAUNCH_COOPERATIVE], total);
        else
            GPT_CHECK(t, delta[GP_LAUNCH_COOPERATIVE] == 1 && total >= 2,
                      "%s cooperative, call %d: %llu cooperative launches of %llu, want 1 of at least 2", what, call,
                      delta[GP_LAUNCH_COOPERATIVE], total);
    }
}

static void run_setting(gpt *t, buffers *b, int by_ticket)
{
    char blocks[16];
    snprintf(blocks, sizeof blocks, "%d", BLOCKS);
    setenv("GPUPRIM_MAX_RESIDENT_BLOCKS", blocks, 1);
    setenv("GPUPRIM_SMALL_CLUSTER", "0", 1);
    setenv("GPUPRIM_PARTITION_COUNT_FIRST", "1", 1);
    setenv("GPUPRIM_COUNT_FIRST_BY_TICKET", by_ticket ? "1" : "0", 1);
    gp_ctx *c = NULL;
    gp_status s = gp_ctx_create(&c, GP_BACKEND_CUDA, 0);
    if (s != GP_STATUS_OK) {
        gpt_fail(t, "a context with the hooks: %s", gp_status_name(s));
        return;
    }
    if (gp_malloc(c, &b->in, (size_t)N * 2) != GP_STATUS_OK || gp_malloc(c, &b->out, (size_t)N * 2) != GP_STATUS_OK ||
        gp_malloc(c, (void **)&b->flags, N) != GP_STATUS_OK ||
        gp_copy_from_host(c, b->in, b->host_in, (size_t)N * 2) != GP_STATUS_OK ||
        gp_copy_from_host(c, b->flags, b->host_flags, N) != GP_STATUS_OK) {
        gpt_fail(t, "by ticket %d: could not allocate or fill the device buffers", by_ticket);
    } else {
        one_call(t, c, b, true, by_ticket);
        one_call(t, c, b, false, by_ticket);
    }
    gp_free(c, b->in), gp_free(c, b->out), gp_free(c, b->flags);
    b->in = b->out = NULL, b->flags = NULL;
    gp_ctx_free(c);
}

int main(int argc, char **argv)
{
    gpt t;
    gpt_init(&t, argc, argv);
    if (t.backend != GP_BACKEND_CUDA) {
        printf("skipped: launches concern the CUDA backend only (run with --backend cuda)\n");
        gpt_skip(&t);
        return gpt_finish(&t);
    }
    buffers b = {0};
    b.host_in = malloc((size_t)N * sizeof *b.host_in);
    b.want = malloc((size_t)N * sizeof *b.want);
    b.host_flags = malloc(N);
    if (!b.host_in || !b.want || !b.host_flags) {
        gpt_fail(&t, "could not allocate the host buffers");
    } else {
        gpt_rng r = {gpt_derive(t.seed, 1, N, 0, 0)};
        for (int64_t i = 0; i < N; i++) {
            b.host_in[i] = (int16_t)gpt_next(&r);
            b.host_flags[i] = (uint8_t)(gpt_next(&r) & 1);
        }
        run_setting(&t, &b, 0);
        run_setting(&t, &b, 1);
    }
    free(b.host_in), free(b.want), free(b.host_flags);
    return gpt_finish(&t);
}
