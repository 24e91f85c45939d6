/*
 * gp_reduce and gp_reduce_to_host against the serial reference gp_ref_reduce,
 * driven by one case table: every dtype, every op defined on it, every
 * output dtype it may widen into, sizes on the boundaries, data patterns,
 * and inputs starting 1..15 elements into their buffer (the CUDA kernel
 * loads 16-byte vectors). Outputs sit between canaries and are poisoned
 * before each call.
 */
#include "cpu_reference.h"
#include "reduce_data.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rcase {
    gp_primitive prim;
    gp_dtype in_t, out_t;
    gp_op op;
    int64_t n;
    gpt_pattern pat;
    int offset;    /* the input starts this many elements into its buffer */
    uint64_t seed; /* of the data; cases that share it share their input */
} rcase;

static const gp_dtype dtypes[] = {GP_DTYPE_I8,  GP_DTYPE_U8,  GP_DTYPE_I16, GP_DTYPE_U16, GP_DTYPE_I32,
                                  GP_DTYPE_U32, GP_DTYPE_I64, GP_DTYPE_U64, GP_DTYPE_F32, GP_DTYPE_F64};
static const gp_op ops[] = {GP_OP_SUM, GP_OP_PROD, GP_OP_MIN, GP_OP_MAX, GP_OP_AND, GP_OP_OR, GP_OP_XOR};
/* Warp (32), block and tile sizes (powers of two +-1 up to 2^15: the CUDA
 * kernel's one-block limit is 32 KiB of input, so 2^15 u8 ... 2^12 u64),
 * odd sizes, either side of the CUDA grids of one cluster (512 KiB: 65536
 * 8-byte or 131072 4-byte elements) and of two (1 MiB: 131072 and 262144),
 * and 2^20 +- 1, past any cluster. */
static const int64_t sizes[] = {0,      1,      2,      3,      7,      31,    32,    33,    100,   255,
                                256,    257,    1000,   1023,   1024,   1025,  2047,  2048,  2049,  4095,
                                4096,   4097,   8191,   8192,   8193,   16383, 16384, 16385, 32767, 32768,
                                32769,  65535,  65537,  131071, 131073, 262143, 262145, (1 << 20) - 1, (1 << 20) + 1};
/* For 1- and 2-byte dtypes only (random data): enough 16-byte vectors to
 * fill the CUDA grid's cap (SMs x blocks per SM x threads) on an H100. */
static const int64_t narrow_size = (1 << 22) + 3;
/* For every dtype (random data): 22 MiB and a tail, 704 rounds of a
 * 512-thread block's four 16-byte loads, so that where the blocks read
 * segments (large inputs; every grid under GPUPRIM_REDUCE_SEGMENTS=1) a
 * grid of 264 blocks (two an SM of an H100 or H200) deals two rounds to
 * some and three to others, and the last segment is cut short. */
static int64_t segment_size(gp_dtype t) { return (INT64_C(22) << 20) / (int64_t)gpt_size(t) + 3; }
/* Misaligned inputs: a vector loop's head and tail, a few full vectors, and
 * one size past a single block for every dtype. */
static const int64_t mis_sizes[] = {1, 2, 5, 33, 100, 1000, 4097, 20001};
enum { MAX_OFFSET = 15, SLACK = 16 }; /* SLACK elements after the input, poisoned too */

/* --quick, for compute-sanitizer: a tenth of the launches, every code path
 * still reached (single block; on CUDA one cluster, 16385 and 65537; two
 * clusters, 2^18 + 1 for 4 bytes; packed integer sums and ticket grids,
 * 2^18 + 1; misaligned head and tail). */
static const int64_t quick_sizes[] = {0, 1, 33, 1025, 16385, 65537, (1 << 18) + 1};
static const int64_t quick_mis_sizes[] = {5, 1000};
static const int quick_offsets[] = {1, 7, 15};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct table {
    rcase *c;
    size_t n, cap;
} table;

static void add(table *tb, rcase c)
{
    if (tb->n == tb->cap) {
        tb->cap = tb->cap ? 2 * tb->cap : 1024;
        tb->c = realloc(tb->c, tb->cap * sizeof *tb->c);
        if (!tb->c) abort();
    }
    tb->c[tb->n++] = c;
}

/* Every op and output dtype on one input (in --quick, only the same and the
 * widest output); float products get data of their own (gpt_fill's
 * prodsafe), so they come after the others. */
static void add_data(table *tb, bool quick, uint64_t seed, gp_dtype in_t, int64_t n, gpt_pattern pat, int offset)
{
    for (int prodsafe = 0; prodsafe <= gpt_is_float(in_t); prodsafe++) {
        uint64_t s = gpt_derive(seed, (uint64_t)in_t, (uint64_t)n, (uint64_t)pat * 64 + (uint64_t)offset,
                                (uint64_t)prodsafe);
        for (size_t o = 0; o < COUNT(ops); o++) {
            if (!gpt_op_defined(ops[o], in_t)) continue;
            if (gpt_is_float(in_t) && prodsafe != (ops[o] == GP_OP_PROD)) continue;
            for (size_t d = 0; d < COUNT(dtypes); d++) {
                gp_dtype out_t = dtypes[d];
                if (!gpt_widening_ok(in_t, out_t)) continue;
                if (quick && out_t != in_t && gpt_size(out_t) != 8) continue;
                add(tb, (rcase){GP_PRIM_REDUCE, in_t, out_t, ops[o], n, pat, offset, s});
            }
        }
    }
}

static bool quick_pattern(gpt_pattern p)
{
    return p == PAT_RANDOM || p == PAT_ASC || p == PAT_INTVAL || p == PAT_NAN || p == PAT_INFS || p == PAT_PZ_NZ ||
           p == PAT_NZ_PZ;
}

static table build_table(uint64_t seed, bool quick)
{
    table tb = {0};
    const int64_t *sz = quick ? quick_sizes : sizes, *msz = quick ? quick_mis_sizes : mis_sizes;
    size_t nsz = quick ? COUNT(quick_sizes) : COUNT(sizes), nmsz = quick ? COUNT(quick_mis_sizes) : COUNT(mis_sizes);
    int noff = quick ? (int)COUNT(quick_offsets) : MAX_OFFSET;
    for (size_t d = 0; d < COUNT(dtypes); d++) {
        gp_dtype t = dtypes[d];
        for (size_t s = 0; s < nsz; s++)
            for (int p = 0; p < PAT_COUNT; p++)
                if (gpt_pattern_for((gpt_pattern)p, t) && (!quick || quick_pattern((gpt_pattern)p)))
                    add_data(&tb, quick, seed, t, sz[s], (gpt_pattern)p, 0);
        if (!quick && gpt_size(t) <= 2) add_data(&tb, quick, seed, t, narrow_size, PAT_RANDOM, 0);
        if (!quick) add_data(&tb, quick, seed, t, segment_size(t), PAT_RANDOM, 0);
        /* Random floats of mixed sign say little at this size (a lost
         * stretch of the input can hide in sum|x|): integer values compare
         * exactly, positive ones against a bound relative to the sum. */
        if (!quick && gpt_is_float(t)) {
            add_data(&tb, quick, seed, t, segment_size(t), PAT_INTVAL, 0);
            add_data(&tb, quick, seed, t, segment_size(t), PAT_POS, 0);
        }
        /* Integer-valued floats compare exactly, so a misread element shows. */
        gpt_pattern mis = gpt_is_float(t) ? PAT_INTVAL : PAT_RANDOM;
        for (size_t s = 0; s < nmsz; s++)
            for (int o = 0; o < noff; o++)
                add_data(&tb, quick, seed, t, msz[s], mis, quick ? quick_offsets[o] : o + 1);
    }
    return tb;
}

/* ---------------------------------------------------------------- running */

/* The current input: host copy (with slack both sides, as uploaded) and the
 * same bytes in the context's space. */
typedef struct input {
    unsigned char *host, *dev;
    size_t cap_bytes;
    bool valid;
    rcase key; /* in_t, n, pat, offset, seed of what is loaded */
    gpt_facts facts;
} input;

static bool same_data(const rcase *a, const rcase *b)
{
    return a->in_t == b->in_t && a->n == b->n && a->pat == b->pat && a->offset == b->offset &&
           a->seed == b->seed;
}

static size_t image_bytes(const rcase *c) { return (size_t)(c->offset + c->n + SLACK) * gpt_size(c->in_t); }
static const unsigned char *host_in(const input *in, const rcase *c)
{
    return in->host + (size_t)c->offset * gpt_size(c->in_t);
}

/* Generates and uploads the case's input. The slack around it is NaN for
 * floats and random bits for integers, so reading it changes the result. */
static gp_status load(gpt *t, input *in, const rcase *c)
{
    if (in->valid && same_data(&in->key, c)) return GP_STATUS_OK;
    size_t esz = gpt_size(c->in_t), bytes = image_bytes(c);
    gpt_rng r = {c->seed ^ 0x5eed};
    for (int64_t i = 0; i < c->offset + c->n + SLACK; i++) {
        if (i == c->offset) i += c->n; /* the input itself is filled below */
        unsigned char *e = in->host + (size_t)i * esz;
        if (esz == 4 && gpt_is_float(c->in_t)) *(float *)e = NAN;
        else if (gpt_is_float(c->in_t)) *(double *)e = NAN;
        else for (size_t b = 0; b < esz; b++) e[b] = (unsigned char)gpt_next(&r);
    }
    gpt_fill(in->host + (size_t)c->offset * esz, c->in_t, c->n, c->pat, c->op == GP_OP_PROD && gpt_is_float(c->in_t),
             c->seed);
    gpt_facts_of(host_in(in, c), c->in_t, c->n, &in->facts);
    in->key = *c;
    in->valid = true;
    return gp_copy_from_host(t->ctx, in->dev, in->host, bytes);
}

static void describe(const rcase *c, long k, char *s, size_t size)
{
    snprintf(s, size, "case %ld: reduce %s->%s %s n=%" PRId64 " pattern=%s offset=%d data_seed=0x%016" PRIx64, k,
             gp_dtype_name(c->in_t), gp_dtype_name(c->out_t), gp_op_name(c->op), c->n, gpt_pattern_name(c->pat),
             c->offset, c->seed);
}

/* Checks one output: status OK, canaries intact, poison overwritten, value
 * acceptable. Returns false with `why` on the first problem. */
static bool check_out(const rcase *c, const input *in, const char *call, gp_status s, gpt_guarded *g,
                      const void *ref, const void *poison, char *why, size_t size)
{
    unsigned char got[8];
    char detail[256];
    if (s != GP_STATUS_OK) {
        snprintf(why, size, "%s returned %s", call, gp_status_name(s));
        return false;
    }
    if (!gpt_guarded_check(g, got, detail, sizeof detail)) {
        snprintf(why, size, "%s: %s", call, detail);
        return false;
    }
    if (memcmp(got, poison, gpt_size(c->out_t)) == 0) {
        snprintf(why, size, "%s did not write the output (poison still there)", call);
        return false;
    }
    if (!gpt_result_ok(c->op, c->out_t, c->n, &in->facts, got, ref, detail, sizeof detail)) {
        snprintf(why, size, "%s: %s", call, detail);
        return false;
    }
    return true;
}

static void run_case(gpt *t, long k, const rcase *c, input *in, gpt_guarded *dev_out, gpt_guarded *host_out)
{
    char desc[256], why[512] = "";
    describe(c, k, desc, sizeof desc);
    if (!gpt_supported(t, c->prim, c->op, c->in_t, c->out_t, desc)) return;
    gp_status s = load(t, in, c);
    if (s != GP_STATUS_OK) {
        gpt_fail(t, "%s: uploading the input gave %s", desc, gp_status_name(s));
        in->valid = false;
        return;
    }
    const unsigned char *din = in->dev + (size_t)c->offset * gpt_size(c->in_t);
    unsigned char ref[8], poison[8];
    gp_ref_reduce(host_in(in, c), c->in_t, c->n, c->op, ref, c->out_t);
    if (c->n == 0) {
        /* The oracle agrees with the header's identities, then both must. */
        unsigned char id[8];
        gpt_identity(c->op, c->out_t, id);
        if (memcmp(id, ref, gpt_size(c->out_t)) != 0) {
            char a[64], b[64];
            gpt_format(c->out_t, ref, a, sizeof a);
            gpt_format(c->out_t, id, b, sizeof b);
            gpt_fail(t, "%s: gp_ref_reduce gives %s for n = 0, the header documents %s", desc, a, b);
            return;
        }
        din = NULL; /* in may be NULL when n == 0 */
    }
    gpt_poison_for(c->out_t, ref, poison);

    bool ok = true;
    size_t osz = gpt_size(c->out_t);
    s = gpt_guarded_poison(dev_out, poison, osz);
    if (s == GP_STATUS_OK) s = gp_reduce(t->ctx, din, c->in_t, c->n, c->op, dev_out->ptr, c->out_t);
    ok = check_out(c, in, "gp_reduce", s, dev_out, ref, poison, why, sizeof why);

    if (ok) {
        if (c->n == 0) din = in->dev; /* and a valid pointer is fine too */
        gpt_guarded_poison(host_out, poison, osz);
        s = gp_reduce_to_host(t->ctx, din, c->in_t, c->n, c->op, host_out->ptr, c->out_t);
        ok = check_out(c, in, "gp_reduce_to_host", s, host_out, ref, poison, why, sizeof why);
    }
    /* The input is const: it and its slack must be as uploaded. */
    if (ok && !gpt_unchanged(t->ctx, in->dev, in->host, image_bytes(c), "input or its slack", why, sizeof why)) {
        ok = false;
        in->valid = false; /* upload it again for the next case */
    }
    if (ok) gpt_pass(t);
    else gpt_fail(t, "%s: %s", desc, why);
}

int main(int argc, char **argv)
{
    gpt t;
    gpt_init(&t, argc, argv);
    table tb = build_table(t.seed, t.quick);
    printf("%zu cases\n", tb.n);

    input in = {0};
    int64_t max_n = 0;
    for (size_t i = 0; i < tb.n; i++)
        if (tb.c[i].n + tb.c[i].offset > max_n) max_n = tb.c[i].n + tb.c[i].offset;
    in.cap_bytes = (size_t)(max_n + SLACK) * 8;
    in.host = malloc(in.cap_bytes);
    gpt_guarded dev_out, host_out;
    if (!in.host || gp_malloc(t.ctx, (void **)&in.dev, in.cap_bytes) != GP_STATUS_OK ||
        gpt_guarded_alloc(t.ctx, &dev_out, 8) != GP_STATUS_OK || gpt_guarded_alloc(NULL, &host_out, 8) != GP_STATUS_OK) {
        gpt_fail(&t, "could not allocate the test buffers");
        return gpt_finish(&t);
    }
    for (size_t i = 0; i < tb.n; i++)
        if (gpt_selected(&t, (long)i)) run_case(&t, (long)i, &tb.c[i], &in, &dev_out, &host_out);

    gpt_guarded_free(&dev_out);
    gpt_guarded_free(&host_out);
    gp_free(t.ctx, in.dev);
    free(in.host);
    free(tb.c);
    return gpt_finish(&t);
}
