/*
 * The API's contract outside the arithmetic: statuses, version, names,
 * contexts, streams, memory calls, every error path of gp_reduce (nothing
 * written on failure), gp_supports against what gp_reduce does, caller
 * workspaces, and allocation failure injected at every allocation in turn.
 * Each check is one case.
 */
#include "cpu_reference.h"
#include "reduce_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef GPUPRIM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define CHECK GPT_CHECK
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool is_oom(const gpt *t, gp_status s)
{
    return s == GP_STATUS_OUT_OF_MEMORY || (t->backend == GP_BACKEND_CUDA && s == GP_STATUS_DEVICE_OUT_OF_MEMORY);
}

/* ---------------------------------------------------------------- statuses */

typedef struct status_entry {
    gp_status s;
    int num;
    const char *name, *msg;
} status_entry;

#define GPT_ENTRY_(name, num, msg) {GP_STATUS_##name, num, #name, msg},
static const status_entry statuses[] = {GP_STATUS_MAP(GPT_ENTRY_)};

/* The band each status known today belongs in (header: 100s arguments,
 * 200s unsupported, 300s resources, 400s device); later ones: any band. */
static int expected_band(const char *name)
{
    static const char *const bands[5][8] = {
        {"OK"},
        {"NULL_POINTER", "INVALID_SIZE", "INVALID_DTYPE", "INVALID_OP", "INVALID_BACKEND", "INVALID_DEVICE",
         "INVALID_ARGUMENT"},
        {"UNSUPPORTED_OP", "UNSUPPORTED_DTYPE", "BACKEND_UNAVAILABLE"},
        {"OUT_OF_MEMORY", "DEVICE_OUT_OF_MEMORY", "WORKSPACE_TOO_SMALL"},
        {"DEVICE_ERROR", "LAUNCH_FAILED", "INTERNAL"}};
    for (int b = 0; b < 5; b++)
        for (int i = 0; i < 8 && bands[b][i]; i++)
            if (strcmp(bands[b][i], name) == 0) return b;
    return -1;
}

static void test_statuses(gpt *t)
{
    for (size_t i = 0; i < COUNT(statuses); i++) {
        const status_entry *e = &statuses[i];
        int band = e->num / 100;
        CHECK(t, (int)e->s == e->num, "%s", e->name);
        CHECK(t, e->num == 0 ? band == 0 && strcmp(e->name, "OK") == 0 : band >= 1 && band <= 4,
              "%s = %d is outside the bands", e->name, e->num);
        int want = expected_band(e->name);
        CHECK(t, want < 0 || want == band, "%s = %d should be in the %d00s", e->name, e->num, want);
        CHECK(t, strcmp(gp_status_name(e->s), e->name) == 0, "gp_status_name(%d) = %s", e->num, gp_status_name(e->s));
        CHECK(t, e->msg[0] && strcmp(gp_status_string(e->s), e->msg) == 0, "gp_status_string(%s)", e->name);
        for (size_t j = 0; j < i; j++) {
            CHECK(t, statuses[j].num != e->num, "%s and %s share %d", statuses[j].name, e->name, e->num);
            CHECK(t, strcmp(statuses[j].msg, e->msg) != 0, "%s and %s share a message", statuses[j].name, e->name);
        }
    }
    const int unknown[] = {-1, 1, 99, 107, 150, 199, 250, 303, 398, 498, 500, 12345};
    for (size_t i = 0; i < COUNT(unknown); i++) {
        gp_status s = (gp_status)unknown[i];
        bool listed = false;
        for (size_t j = 0; j < COUNT(statuses); j++) listed = listed || statuses[j].num == unknown[i];
        if (listed) continue; /* a status added later */
        CHECK(t, strcmp(gp_status_name(s), "UNKNOWN") == 0, "gp_status_name(%d) = %s", unknown[i], gp_status_name(s));
        CHECK(t, strcmp(gp_status_string(s), "unknown status") == 0, "gp_status_string(%d) = %s", unknown[i],
              gp_status_string(s));
    }
}

/* -------------------------------------------------------- version and names */

static void test_version_and_names(gpt *t)
{
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", GP_VERSION_MAJOR, GP_VERSION_MINOR, GP_VERSION_PATCH);
    CHECK(t, gp_version_number() == GP_VERSION_NUMBER, "gp_version_number() = %u", gp_version_number());
    CHECK(t, strcmp(gp_version_string(), v) == 0, "gp_version_string() = %s, want %s", gp_version_string(), v);

    static const struct { gp_dtype t; const char *name, *long_name; size_t size; } dt[] = {
        {GP_DTYPE_I8, "i8", "int8", 1},      {GP_DTYPE_U8, "u8", "uint8", 1},
        {GP_DTYPE_I16, "i16", "int16", 2},   {GP_DTYPE_U16, "u16", "uint16", 2},
        {GP_DTYPE_I32, "i32", "int32", 4},   {GP_DTYPE_U32, "u32", "uint32", 4},
        {GP_DTYPE_I64, "i64", "int64", 8},   {GP_DTYPE_U64, "u64", "uint64", 8},
        {GP_DTYPE_F32, "f32", "float32", 4}, {GP_DTYPE_F64, "f64", "float64", 8}};
    for (size_t i = 0; i < COUNT(dt); i++) {
        gp_dtype got = (gp_dtype)0;
        const char *name = gp_dtype_name(dt[i].t);
        CHECK(t, name && strcmp(name, dt[i].name) == 0, "gp_dtype_name(%d) = %s", (int)dt[i].t, name ? name : "NULL");
        CHECK(t, gp_dtype_size(dt[i].t) == dt[i].size, "gp_dtype_size(%s)", dt[i].name);
        CHECK(t, gp_dtype_from_name(dt[i].name, &got) == GP_STATUS_OK && got == dt[i].t, "from_name(%s)", dt[i].name);
        got = (gp_dtype)0;
        CHECK(t, gp_dtype_from_name(dt[i].long_name, &got) == GP_STATUS_OK && got == dt[i].t, "from_name(%s)",
              dt[i].long_name);
    }
    const int bad_dtypes[] = {0, 11, 12, -1, 99};
    for (size_t i = 0; i < COUNT(bad_dtypes); i++) {
        gp_dtype bt = (gp_dtype)bad_dtypes[i];
        CHECK(t, gp_dtype_name(bt) == NULL && gp_dtype_size(bt) == 0, "dtype %d", bad_dtypes[i]);
    }
    const char *bad_names[] = {"", "i128", "f16", "int", "float", "i8 ", "x"};
    gp_dtype dummy_t = GP_DTYPE_I8;
    gp_op dummy_op = GP_OP_SUM;
    gp_backend dummy_b = GP_BACKEND_CPU;
    for (size_t i = 0; i < COUNT(bad_names); i++) {
        CHECK(t, gp_dtype_from_name(bad_names[i], &dummy_t) == GP_STATUS_INVALID_DTYPE, "dtype '%s'", bad_names[i]);
        CHECK(t, gp_op_from_name(bad_names[i], &dummy_op) == GP_STATUS_INVALID_OP, "op '%s'", bad_names[i]);
        CHECK(t, gp_backend_from_name(bad_names[i], &dummy_b) == GP_STATUS_INVALID_BACKEND, "backend '%s'",
              bad_names[i]);
    }
    CHECK(t, gp_dtype_from_name(NULL, &dummy_t) == GP_STATUS_NULL_POINTER, "NULL name");
    CHECK(t, gp_dtype_from_name("i8", NULL) == GP_STATUS_NULL_POINTER, "NULL out");
    CHECK(t, gp_op_from_name(NULL, &dummy_op) == GP_STATUS_NULL_POINTER, "NULL name");
    CHECK(t, gp_backend_from_name(NULL, &dummy_b) == GP_STATUS_NULL_POINTER, "NULL name");
    /* Names are read in any case, as gpuprim.h says. */
    gp_cmp cmp = GP_CMP_LT;
    CHECK(t, gp_dtype_from_name("I32", &dummy_t) == GP_STATUS_OK && dummy_t == GP_DTYPE_I32, "dtype 'I32'");
    CHECK(t, gp_dtype_from_name("Float64", &dummy_t) == GP_STATUS_OK && dummy_t == GP_DTYPE_F64, "dtype 'Float64'");
    CHECK(t, gp_op_from_name("XoR", &dummy_op) == GP_STATUS_OK && dummy_op == GP_OP_XOR, "op 'XoR'");
    CHECK(t, gp_backend_from_name("CPU", &dummy_b) == GP_STATUS_OK && dummy_b == GP_BACKEND_CPU, "backend 'CPU'");
    CHECK(t, gp_cmp_from_name("gE", &cmp) == GP_STATUS_OK && cmp == GP_CMP_GE, "cmp 'gE'");
    CHECK(t, gp_cmp_from_name("g", &cmp) == GP_STATUS_INVALID_ARGUMENT && gp_cmp_from_name("ge ", &cmp) ==
             GP_STATUS_INVALID_ARGUMENT && gp_cmp_from_name(NULL, &cmp) == GP_STATUS_NULL_POINTER, "bad cmp names");

    const char *op_names[] = {NULL, "sum", "prod", "min", "max", "and", "or", "xor"};
    for (int op = GP_OP_SUM; op <= GP_OP_XOR; op++) {
        gp_op got = (gp_op)0;
        const char *name = gp_op_name((gp_op)op);
        CHECK(t, name && strcmp(name, op_names[op]) == 0, "gp_op_name(%d)", op);
        CHECK(t, gp_op_from_name(op_names[op], &got) == GP_STATUS_OK && got == (gp_op)op, "from_name(%s)", op_names[op]);
    }
    CHECK(t, gp_op_name((gp_op)0) == NULL && gp_op_name((gp_op)8) == NULL && gp_op_name((gp_op)-1) == NULL, "unknown op");

    const char *backend_names[] = {"auto", "cpu", "cuda"};
    for (int b = 0; b < 3; b++) {
        gp_backend got = (gp_backend)7;
        const char *name = gp_backend_name((gp_backend)b);
        CHECK(t, name && strcmp(name, backend_names[b]) == 0, "gp_backend_name(%d)", b);
        CHECK(t, gp_backend_from_name(backend_names[b], &got) == GP_STATUS_OK && got == (gp_backend)b, "from_name(%s)",
              backend_names[b]);
    }
    CHECK(t, gp_backend_name((gp_backend)3) == NULL && gp_backend_name((gp_backend)-1) == NULL, "unknown backend");
}

/* --------------------------------------------------------------- contexts */

static void test_contexts(gpt *t)
{
    char detail[128] = "x";
    CHECK(t, gp_backend_built(GP_BACKEND_CPU) == 1, "the CPU backend is always built");
    CHECK(t, gp_backend_probe(GP_BACKEND_CPU, detail, sizeof detail) == GP_STATUS_OK, "probe cpu");
    CHECK(t, gp_backend_probe(GP_BACKEND_AUTO, NULL, 0) == GP_STATUS_INVALID_BACKEND, "probe auto");
    CHECK(t, gp_backend_probe((gp_backend)9, NULL, 0) == GP_STATUS_INVALID_BACKEND, "probe 9");
    gp_status cuda = gp_backend_probe(GP_BACKEND_CUDA, detail, sizeof detail);
    CHECK(t, cuda == GP_STATUS_OK || detail[0], "an unusable CUDA backend says why (%s)", gp_status_name(cuda));
    CHECK(t, gp_backend_built(GP_BACKEND_CUDA) || cuda == GP_STATUS_BACKEND_UNAVAILABLE, "probe cuda: %s",
          gp_status_name(cuda));
    CHECK(t, cuda == GP_STATUS_OK ? gp_device_count() > 0 : gp_device_count() == 0, "gp_device_count() = %d",
          gp_device_count());

    gp_device_info info;
    CHECK(t, gp_device_get_info(0, NULL) == GP_STATUS_NULL_POINTER, "info NULL");
    gp_status s = gp_device_get_info(-1, &info);
    CHECK(t, s == GP_STATUS_INVALID_DEVICE || s == GP_STATUS_BACKEND_UNAVAILABLE, "device -1: %s", gp_status_name(s));
    if (t->backend == GP_BACKEND_CUDA) {
        s = gp_device_get_info(0, &info);
        CHECK(t, s == GP_STATUS_OK && info.name[0] && info.sm_count > 0 && info.total_memory_bytes > 0,
              "gp_device_get_info(0): %s", gp_status_name(s));
    }

    gp_ctx *c = (gp_ctx *)&c; /* not NULL: a failed create must clear it */
    CHECK(t, gp_ctx_create(NULL, GP_BACKEND_CPU, 0) == GP_STATUS_NULL_POINTER, "out NULL");
    CHECK(t, gp_ctx_create(&c, (gp_backend)7, 0) == GP_STATUS_INVALID_BACKEND && c == NULL, "backend 7");
    c = (gp_ctx *)&c;
    CHECK(t, gp_ctx_create(&c, GP_BACKEND_CPU, 1) == GP_STATUS_INVALID_DEVICE && c == NULL, "cpu device 1");
    c = (gp_ctx *)&c;
    CHECK(t, gp_ctx_create_ex(&c, NULL) == GP_STATUS_NULL_POINTER && c == NULL, "params NULL");
    gp_allocator half = {NULL, gp_default_allocator()->free, NULL};
    gp_ctx_params hp = {GP_BACKEND_CPU, 0, &half};
    CHECK(t, gp_ctx_create_ex(&c, &hp) == GP_STATUS_NULL_POINTER && c == NULL, "allocator without alloc");
    if (cuda == GP_STATUS_OK) {
        s = gp_ctx_create(&c, GP_BACKEND_CUDA, gp_device_count());
        CHECK(t, s == GP_STATUS_INVALID_DEVICE && c == NULL, "cuda device %d: %s", gp_device_count(), gp_status_name(s));
        s = gp_ctx_create(&c, GP_BACKEND_CUDA, -1);
        CHECK(t, s == GP_STATUS_INVALID_DEVICE && c == NULL, "cuda device -1: %s", gp_status_name(s));
    } else {
        s = gp_ctx_create(&c, GP_BACKEND_CUDA, 0);
        CHECK(t, s == cuda && c == NULL, "cuda create gives %s, probe gave %s", gp_status_name(s), gp_status_name(cuda));
    }

    s = gp_ctx_create(&c, GP_BACKEND_AUTO, 0);
    CHECK(t, s == GP_STATUS_OK && c, "auto: %s", gp_status_name(s));
    if (c) {
        gp_backend b = gp_ctx_backend(c);
        CHECK(t, b == (cuda == GP_STATUS_OK ? GP_BACKEND_CUDA : GP_BACKEND_CPU), "auto resolved to %s",
              gp_backend_name(b) ? gp_backend_name(b) : "?");
        gp_ctx_free(c);
    }
    gp_ctx_free(NULL);
    gpt_pass(t); /* gp_ctx_free(NULL) returned */

    CHECK(t, gp_ctx_backend(t->ctx) == t->backend && gp_ctx_device(t->ctx) == 0, "backend and device");
    CHECK(t, gp_ctx_stream(t->ctx) == NULL, "the default stream is NULL");
    CHECK(t, gp_ctx_synchronize(t->ctx) == GP_STATUS_OK, "synchronize");
    CHECK(t, gp_ctx_synchronize(NULL) == GP_STATUS_NULL_POINTER, "synchronize NULL");
    CHECK(t, gp_ctx_set_stream(NULL, NULL) == GP_STATUS_NULL_POINTER, "set_stream NULL ctx");
    CHECK(t, gp_ctx_set_stream(t->ctx, NULL) == GP_STATUS_OK, "set_stream NULL");
    if (t->backend == GP_BACKEND_CPU) {
        int not_a_stream;
        s = gp_ctx_set_stream(t->ctx, &not_a_stream);
        CHECK(t, s == GP_STATUS_INVALID_ARGUMENT && gp_ctx_stream(t->ctx) == NULL, "cpu stream: %s", gp_status_name(s));
        CHECK(t, strstr(gp_ctx_last_error(t->ctx), "INVALID_ARGUMENT") != NULL, "last error: %s",
              gp_ctx_last_error(t->ctx));
    }
}

#ifdef GPUPRIM_HAVE_CUDA
/* A reduction issued on a stream of the caller's. */
static void test_cuda_stream(gpt *t, const void *in, int64_t n)
{
    cudaStream_t st;
    if (cudaStreamCreate(&st) != cudaSuccess) {
        gpt_fail(t, "cudaStreamCreate failed");
        return;
    }
    int64_t got = 0, ref = 0;
    CHECK(t, gp_ctx_set_stream(t->ctx, st) == GP_STATUS_OK && gp_ctx_stream(t->ctx) == (void *)st, "set stream");
    CHECK(t, gp_reduce_to_host(t->ctx, in, GP_DTYPE_I32, n, GP_OP_SUM, &got, GP_DTYPE_I64) == GP_STATUS_OK,
          "reduce on a stream");
    CHECK(t, gp_ctx_set_stream(t->ctx, NULL) == GP_STATUS_OK, "back to the default stream");
    cudaStreamDestroy(st);
    int32_t *h = malloc((size_t)n * 4);
    if (h && gp_copy_to_host(t->ctx, h, in, (size_t)n * 4) == GP_STATUS_OK) {
        gp_ref_reduce(h, GP_DTYPE_I32, n, GP_OP_SUM, &ref, GP_DTYPE_I64);
        CHECK(t, got == ref, "sum on a stream: %lld, want %lld", (long long)got, (long long)ref);
    }
    free(h);
}
#endif

/* ------------------------------------------------------------------ memory */

static void test_memory(gpt *t)
{
    gp_ctx *ctx = t->ctx;
    void *p = &p;
    CHECK(t, gp_malloc(ctx, &p, 0) == GP_STATUS_OK && p == NULL, "malloc 0");
    CHECK(t, gp_malloc(NULL, &p, 16) == GP_STATUS_NULL_POINTER, "malloc NULL ctx");
    CHECK(t, gp_malloc(ctx, NULL, 16) == GP_STATUS_NULL_POINTER, "malloc NULL ptr");
    p = &p;
    gp_status s = gp_malloc(ctx, &p, SIZE_MAX - 64);
    CHECK(t, is_oom(t, s) && p == NULL, "malloc SIZE_MAX - 64: %s", gp_status_name(s));
    CHECK(t, gp_free(ctx, NULL) == GP_STATUS_OK, "free NULL");

    /* Past 1 MiB and odd, so a copy split across threads meets its edges. */
    const size_t bytes = (3u << 20) + 7;
    unsigned char *h = malloc(bytes), *back = malloc(bytes);
    void *a = NULL, *b = NULL;
    if (!h || !back || gp_malloc(ctx, &a, bytes) != GP_STATUS_OK || gp_malloc(ctx, &b, bytes) != GP_STATUS_OK) {
        gpt_fail(t, "could not allocate %zu bytes twice", bytes);
        goto done;
    }
    CHECK(t, ((uintptr_t)a & 255) == 0 && ((uintptr_t)b & 255) == 0, "gp_malloc alignment: %p %p", a, b);
    gpt_rng r = {t->seed};
    for (size_t i = 0; i < bytes; i++) h[i] = (unsigned char)gpt_next(&r);
    CHECK(t, gp_copy_from_host(ctx, a, h, bytes) == GP_STATUS_OK, "copy_from_host");
    CHECK(t, gp_copy(ctx, b, a, bytes) == GP_STATUS_OK, "copy");
    memset(back, 0, bytes);
    CHECK(t, gp_copy_to_host(ctx, back, b, bytes) == GP_STATUS_OK && memcmp(back, h, bytes) == 0, "round trip");

    CHECK(t, gp_memset(ctx, (char *)b + 5, 0x3C, bytes - 9) == GP_STATUS_OK, "memset");
    gp_copy_to_host(ctx, back, b, bytes);
    bool ok = memcmp(back, h, 5) == 0 && memcmp(back + bytes - 4, h + bytes - 4, 4) == 0;
    for (size_t i = 5; ok && i < bytes - 4; i++) ok = back[i] == 0x3C;
    CHECK(t, ok, "memset wrote exactly its range");
    CHECK(t, gp_memset(ctx, b, 256, 16) == GP_STATUS_INVALID_ARGUMENT, "memset 256");
    CHECK(t, gp_memset(ctx, b, -1, 16) == GP_STATUS_INVALID_ARGUMENT, "memset -1");
    CHECK(t, gp_memset(ctx, NULL, 0, 16) == GP_STATUS_NULL_POINTER, "memset NULL");
    CHECK(t, gp_copy(ctx, NULL, a, 16) == GP_STATUS_NULL_POINTER, "copy to NULL");
    CHECK(t, gp_copy_from_host(ctx, a, NULL, 16) == GP_STATUS_NULL_POINTER, "copy from NULL");
    CHECK(t, gp_copy_to_host(NULL, back, a, 16) == GP_STATUS_NULL_POINTER, "copy NULL ctx");
    CHECK(t, gp_copy(ctx, NULL, NULL, 0) == GP_STATUS_OK, "copy 0 bytes");
    gp_copy_to_host(ctx, back, b, bytes);
    ok = memcmp(back, h, 5) == 0;
    for (size_t i = 5; ok && i < bytes - 4; i++) ok = back[i] == 0x3C;
    CHECK(t, ok, "failed memsets and copies wrote nothing");
#ifdef GPUPRIM_HAVE_CUDA
    if (t->backend == GP_BACKEND_CUDA) test_cuda_stream(t, a, (int64_t)(bytes / 4));
#endif
done:
    CHECK(t, gp_free(NULL, a) == GP_STATUS_NULL_POINTER, "free with NULL ctx");
    gp_free(ctx, a);
    gp_free(ctx, b);
    free(h);
    free(back);
}

/* ------------------------------------------------------- reduce error paths */

/* A poisoned output in the context's space and one on the host. */
typedef struct outs {
    gpt_guarded dev, host;
} outs;

static const unsigned char poison[8] = {0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5};

static void poison_outs(outs *o)
{
    gpt_guarded_poison(&o->dev, poison, sizeof poison);
    gpt_guarded_poison(&o->host, poison, sizeof poison);
}

/* Both outputs still hold the poison between intact canaries. */
static bool untouched(outs *o, char *why, size_t size)
{
    unsigned char v[8];
    for (int k = 0; k < 2; k++) {
        gpt_guarded *g = k ? &o->host : &o->dev;
        if (!gpt_guarded_check(g, v, why, size)) return false;
        if (memcmp(v, poison, sizeof v) != 0) {
            snprintf(why, size, "the %s output was written", k ? "host" : "device");
            return false;
        }
    }
    return true;
}

/*
 * gp_reduce and gp_reduce_to_host with these arguments must both fail with
 * `want`, write nothing, and leave a last error that names the status and
 * mentions `mention`. The workspace query must agree where it applies.
 */
static void expect_fail(gpt *t, outs *o, const char *what, const void *in, gp_dtype in_t, int64_t n, gp_op op,
                        gp_dtype out_t, gp_status want, const char *mention)
{
    char why[256];
    for (int host = 0; host < 2; host++) {
        poison_outs(o);
        gp_status s = host ? gp_reduce_to_host(t->ctx, in, in_t, n, op, o->host.ptr, out_t)
                           : gp_reduce(t->ctx, in, in_t, n, op, o->dev.ptr, out_t);
        const char *call = host ? "gp_reduce_to_host" : "gp_reduce";
        const char *err = gp_ctx_last_error(t->ctx);
        CHECK(t, s == want, "%s %s: %s, want %s", call, what, gp_status_name(s), gp_status_name(want));
        CHECK(t, untouched(o, why, sizeof why), "%s %s: %s", call, what, why);
        CHECK(t, strstr(err, gp_status_name(want)) && strstr(err, mention), "%s %s: last error '%s' should mention %s",
              call, what, err, mention);
    }
    if (in) {
        size_t bytes = 12345;
        gp_status s = gp_reduce_workspace_size(t->ctx, in_t, n, op, out_t, &bytes);
        CHECK(t, s == want, "gp_reduce_workspace_size %s: %s", what, gp_status_name(s));
    }
}

static void test_reduce_errors(gpt *t, outs *o, const void *in)
{
    char why[256];
    poison_outs(o);
    CHECK(t, gp_reduce(NULL, in, GP_DTYPE_I32, 4, GP_OP_SUM, o->dev.ptr, GP_DTYPE_I32) == GP_STATUS_NULL_POINTER,
          "gp_reduce ctx NULL");
    CHECK(t, gp_reduce_to_host(NULL, in, GP_DTYPE_I32, 4, GP_OP_SUM, o->host.ptr, GP_DTYPE_I32) ==
                 GP_STATUS_NULL_POINTER, "gp_reduce_to_host ctx NULL");
    CHECK(t, untouched(o, why, sizeof why), "ctx NULL: %s", why);
    CHECK(t, gp_reduce(t->ctx, in, GP_DTYPE_I32, 4, GP_OP_SUM, NULL, GP_DTYPE_I32) == GP_STATUS_NULL_POINTER,
          "gp_reduce out NULL");
    CHECK(t, strstr(gp_ctx_last_error(t->ctx), "out"), "out NULL: %s", gp_ctx_last_error(t->ctx));
    CHECK(t, gp_reduce_to_host(t->ctx, in, GP_DTYPE_I32, 4, GP_OP_SUM, NULL, GP_DTYPE_I32) == GP_STATUS_NULL_POINTER,
          "gp_reduce_to_host out NULL");
    size_t ws = 0;
    CHECK(t, gp_reduce_workspace_size(NULL, GP_DTYPE_I32, 4, GP_OP_SUM, GP_DTYPE_I32, &ws) == GP_STATUS_NULL_POINTER,
          "workspace_size ctx NULL");
    CHECK(t, gp_reduce_workspace_size(t->ctx, GP_DTYPE_I32, 4, GP_OP_SUM, GP_DTYPE_I32, NULL) ==
                 GP_STATUS_NULL_POINTER, "workspace_size bytes NULL");

    expect_fail(t, o, "in NULL, n 4", NULL, GP_DTYPE_I32, 4, GP_OP_SUM, GP_DTYPE_I32, GP_STATUS_NULL_POINTER, "in");
    expect_fail(t, o, "n -1", in, GP_DTYPE_I32, -1, GP_OP_SUM, GP_DTYPE_I32, GP_STATUS_INVALID_SIZE, "-1");
    expect_fail(t, o, "n INT64_MIN", in, GP_DTYPE_I32, INT64_MIN, GP_OP_SUM, GP_DTYPE_I32, GP_STATUS_INVALID_SIZE,
                "-9223372036854775808");
    expect_fail(t, o, "in dtype 0", in, (gp_dtype)0, 4, GP_OP_SUM, GP_DTYPE_I32, GP_STATUS_INVALID_DTYPE, "dtype");
    expect_fail(t, o, "in dtype 11", in, (gp_dtype)11, 4, GP_OP_SUM, GP_DTYPE_F64, GP_STATUS_INVALID_DTYPE, "11");
    expect_fail(t, o, "out dtype 99", in, GP_DTYPE_I32, 4, GP_OP_SUM, (gp_dtype)99, GP_STATUS_INVALID_DTYPE, "99");
    expect_fail(t, o, "op 0", in, GP_DTYPE_I32, 4, (gp_op)0, GP_DTYPE_I32, GP_STATUS_INVALID_OP, "op");
    expect_fail(t, o, "op 8", in, GP_DTYPE_I32, 4, (gp_op)8, GP_DTYPE_I32, GP_STATUS_INVALID_OP, "8");
    const gp_op bitwise[] = {GP_OP_AND, GP_OP_OR, GP_OP_XOR};
    for (int i = 0; i < 3; i++) {
        expect_fail(t, o, "bitwise f32", in, GP_DTYPE_F32, 4, bitwise[i], GP_DTYPE_F32, GP_STATUS_UNSUPPORTED_OP,
                    gp_op_name(bitwise[i]));
        expect_fail(t, o, "bitwise f64", in, GP_DTYPE_F64, 4, bitwise[i], GP_DTYPE_F64, GP_STATUS_UNSUPPORTED_OP,
                    "f64");
    }
    static const gp_dtype bad_pairs[][2] = {
        {GP_DTYPE_I32, GP_DTYPE_I16}, {GP_DTYPE_I64, GP_DTYPE_I8},  {GP_DTYPE_F64, GP_DTYPE_F32},
        {GP_DTYPE_I32, GP_DTYPE_U32}, {GP_DTYPE_U8, GP_DTYPE_I16},  {GP_DTYPE_U64, GP_DTYPE_I64},
        {GP_DTYPE_I32, GP_DTYPE_F64}, {GP_DTYPE_F32, GP_DTYPE_I32}, {GP_DTYPE_U16, GP_DTYPE_F32}};
    for (size_t i = 0; i < COUNT(bad_pairs); i++) {
        char what[64];
        snprintf(what, sizeof what, "%s into %s", gp_dtype_name(bad_pairs[i][0]), gp_dtype_name(bad_pairs[i][1]));
        expect_fail(t, o, what, in, bad_pairs[i][0], 4, GP_OP_MAX, bad_pairs[i][1], GP_STATUS_UNSUPPORTED_DTYPE,
                    gp_dtype_name(bad_pairs[i][1]));
    }

    expect_fail(t, o, "n GP_MAX_ELEMENTS + 1", in, GP_DTYPE_I8, GP_MAX_ELEMENTS + 1, GP_OP_SUM, GP_DTYPE_I64,
                GP_STATUS_INVALID_SIZE, "GP_MAX_ELEMENTS");
    expect_fail(t, o, "n INT64_MAX", in, GP_DTYPE_U8, INT64_MAX, GP_OP_MAX, GP_DTYPE_U8, GP_STATUS_INVALID_SIZE,
                "GP_MAX_ELEMENTS");

    /* host_out is host memory without an alignment rule, on every backend. */
    _Alignas(8) unsigned char room[16];
    int64_t got = 0;
    memset(room, 0xA5, sizeof room);
    CHECK(t, gp_reduce_to_host(t->ctx, NULL, GP_DTYPE_I32, 0, GP_OP_MAX, room + 1, GP_DTYPE_I64) == GP_STATUS_OK,
          "gp_reduce_to_host into a misaligned host_out: %s", gp_ctx_last_error(t->ctx));
    memcpy(&got, room + 1, 8);
    CHECK(t, got == INT64_MIN && room[0] == 0xA5 && room[9] == 0xA5,
          "gp_reduce_to_host into a misaligned host_out: %lld", (long long)got);

    /* n == 0 with in NULL is fine and writes the identity. */
    int64_t id = 0, want = 0;
    gpt_identity(GP_OP_MIN, GP_DTYPE_I64, &want);
    CHECK(t, gp_reduce_to_host(t->ctx, NULL, GP_DTYPE_I16, 0, GP_OP_MIN, &id, GP_DTYPE_I64) == GP_STATUS_OK &&
                 id == want, "n 0, in NULL: %lld", (long long)id);
}

/* A name, or "#N" for a value without one; buffers rotate so one format
 * can use three. */
static const char *name_of(const char *name, int v)
{
    static char bufs[4][16];
    static int next;
    if (name) return name;
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof bufs[0], "#%d", v);
    return b;
}

/* gp_supports must say exactly what gp_reduce then does, for every dtype
 * pair and op, unknown values included; and for every primitive it must
 * say 1 for each combination gpuprim.h documents (gpt_header_valid: no
 * backend may drop one) and 0 for the rest. */
static void test_supports(gpt *t, outs *o, const void *zeros)
{
    char why[256];
    for (int in_t = 0; in_t <= 12; in_t++)
        for (int out_t = 0; out_t <= 12; out_t++)
            for (int op = 0; op <= 8; op++) {
                int sup = gp_supports(t->ctx, GP_PRIM_REDUCE, (gp_op)op, (gp_dtype)in_t, (gp_dtype)out_t);
                poison_outs(o);
                gp_status s = gp_reduce(t->ctx, zeros, (gp_dtype)in_t, 3, (gp_op)op, o->dev.ptr, (gp_dtype)out_t);
                bool dt_ok = gpt_size((gp_dtype)in_t) && gpt_size((gp_dtype)out_t);
                bool op_ok = op >= GP_OP_SUM && op <= GP_OP_XOR;
                bool valid = gpt_op_defined((gp_op)op, (gp_dtype)in_t) &&
                             gpt_widening_ok((gp_dtype)in_t, (gp_dtype)out_t);
                const char *nm = gp_status_name(s);
                char what[96];
                snprintf(what, sizeof what, "%s %s -> %s", name_of(gp_op_name((gp_op)op), op),
                         name_of(gp_dtype_name((gp_dtype)in_t), in_t), name_of(gp_dtype_name((gp_dtype)out_t), out_t));
                if (sup) {
                    CHECK(t, valid, "gp_supports(%s) = 1 for an invalid combination", what);
                    unsigned char v[8];
                    CHECK(t, s == GP_STATUS_OK && gpt_guarded_check(&o->dev, v, why, sizeof why) &&
                                 memcmp(v, poison, gpt_size((gp_dtype)out_t)) != 0,
                          "supported %s: gp_reduce gave %s", what, nm);
                    continue;
                }
                CHECK(t, !valid, "gp_supports(reduce, %s) = 0 on the %s backend for a combination gpuprim.h documents",
                      what, gp_backend_name(t->backend));
                bool expected;
                if (!dt_ok || !op_ok) expected = (!dt_ok && s == GP_STATUS_INVALID_DTYPE) || (!op_ok && s == GP_STATUS_INVALID_OP);
                else if (!gpt_op_defined((gp_op)op, (gp_dtype)in_t)) expected = s == GP_STATUS_UNSUPPORTED_OP;
                else if (!valid) expected = s == GP_STATUS_UNSUPPORTED_DTYPE;
                else expected = s == GP_STATUS_UNSUPPORTED_DTYPE || s == GP_STATUS_UNSUPPORTED_OP;
                CHECK(t, expected && untouched(o, why, sizeof why), "unsupported %s: gp_reduce gave %s", what, nm);
            }
    /* Every primitive (and unknown ones either side), op and dtype pair: one
     * case a primitive, failing on its first wrong answer. */
    for (int prim = 0; prim <= GP_PRIM_HISTOGRAM + 1; prim++) {
        char wrong[160] = "";
        for (int in_t = 0; in_t <= 12 && !wrong[0]; in_t++)
            for (int out_t = 0; out_t <= 12 && !wrong[0]; out_t++)
                for (int op = 0; op <= 8 && !wrong[0]; op++) {
                    int sup = gp_supports(t->ctx, (gp_primitive)prim, (gp_op)op, (gp_dtype)in_t, (gp_dtype)out_t);
                    int want = gpt_header_valid((gp_primitive)prim, (gp_op)op, (gp_dtype)in_t, (gp_dtype)out_t);
                    if (sup != want)
                        snprintf(wrong, sizeof wrong, "gp_supports(%s, %s, %s -> %s) = %d, gpuprim.h says %d",
                                 name_of(prim >= 1 && prim <= GP_PRIM_HISTOGRAM ? gpt_prim_name((gp_primitive)prim) : NULL, prim),
                                 name_of(gp_op_name((gp_op)op), op), name_of(gp_dtype_name((gp_dtype)in_t), in_t),
                                 name_of(gp_dtype_name((gp_dtype)out_t), out_t), sup, want);
                }
        CHECK(t, !wrong[0], "%s on the %s backend", wrong, gp_backend_name(t->backend));
    }
    CHECK(t, !gp_supports(NULL, GP_PRIM_REDUCE, GP_OP_SUM, GP_DTYPE_I32, GP_DTYPE_I32), "ctx NULL");
    CHECK(t, !gp_supports(t->ctx, (gp_primitive)0, GP_OP_SUM, GP_DTYPE_I32, GP_DTYPE_I32), "primitive 0");
    CHECK(t, !gp_supports(t->ctx, (gp_primitive)99, GP_OP_SUM, GP_DTYPE_I32, GP_DTYPE_I32), "primitive 99");
}

/* --------------------------------------------------------------- workspace */

/* A caller's workspace: too small fails before writing, exact size works
 * and the context allocates nothing, misaligned is refused. */
static void test_workspace(gpt *t, outs *o, const void *in, const void *host_in, int64_t max_n)
{
    static const struct { gp_dtype in_t; gp_op op; gp_dtype out_t; int64_t n; } shapes[] = {
        {GP_DTYPE_I32, GP_OP_SUM, GP_DTYPE_I32, -1}, {GP_DTYPE_F32, GP_OP_MAX, GP_DTYPE_F64, -1},
        {GP_DTYPE_U8, GP_OP_MAX, GP_DTYPE_U64, -1},  {GP_DTYPE_I64, GP_OP_XOR, GP_DTYPE_I64, 1000},
        {GP_DTYPE_F64, GP_OP_MIN, GP_DTYPE_F64, 1},  {GP_DTYPE_I16, GP_OP_PROD, GP_DTYPE_I32, 0}};
    char why[256];
    int no_ws = 0;
    for (size_t i = 0; i < COUNT(shapes); i++) {
        gp_dtype it = shapes[i].in_t, ot = shapes[i].out_t;
        int64_t n = shapes[i].n < 0 ? max_n / (int64_t)gpt_size(it) : shapes[i].n;
        const char *what = gp_dtype_name(it);
        gpt_counter cnt;
        gp_ctx *ctx;
        size_t bytes = 0;
        void *ws = NULL;
        if (gpt_counted_ctx(&cnt, t->backend, &ctx) != GP_STATUS_OK ||
            gp_reduce_workspace_size(ctx, it, n, shapes[i].op, ot, &bytes) != GP_STATUS_OK ||
            gp_malloc(t->ctx, &ws, bytes + 256) != GP_STATUS_OK) {
            gpt_fail(t, "workspace %s n %lld: setup failed", what, (long long)n);
            gp_ctx_free(ctx);
            continue;
        }
        unsigned char ref[8], got[8];
        gpt_facts facts;
        gp_ref_reduce(host_in, it, n, shapes[i].op, ref, ot);
        gpt_facts_of(host_in, it, n, &facts);
#define MATCHES(g) gpt_result_ok(shapes[i].op, ot, n, &facts, (g), ref, why, sizeof why)
        void *ws_ptr = ws ? ws : &ws; /* a 0-byte workspace still needs an address */
        if (bytes == 0) {
            no_ws++; /* nothing is too small for a call that needs no workspace */
        } else {
            CHECK(t, gp_ctx_set_workspace(ctx, ws, bytes - 1) == GP_STATUS_OK, "set %zu - 1 bytes", bytes);
            poison_outs(o);
            gp_status s1 = gp_reduce(ctx, in, it, n, shapes[i].op, o->dev.ptr, ot);
            const char *err = gp_ctx_last_error(ctx);
            bool mentions = strstr(err, "WORKSPACE_TOO_SMALL") != NULL;
            gp_status s2 = gp_reduce_to_host(ctx, in, it, n, shapes[i].op, o->host.ptr, ot);
            CHECK(t, s1 == GP_STATUS_WORKSPACE_TOO_SMALL && s2 == GP_STATUS_WORKSPACE_TOO_SMALL && mentions,
                  "workspace %s n %lld, %zu - 1 bytes: %s, %s", what, (long long)n, bytes, gp_status_name(s1),
                  gp_status_name(s2));
            CHECK(t, untouched(o, why, sizeof why), "workspace too small: %s", why);
        }
        /* Reduce once through context scratch, so an exact workspace must
         * also stop the context from reusing or growing its own. */
        CHECK(t, gp_ctx_set_workspace(ctx, ws_ptr, bytes) == GP_STATUS_OK, "set %zu bytes", bytes);
        long before = cnt.calls;
        poison_outs(o);
        gp_status s = gp_reduce(ctx, in, it, n, shapes[i].op, o->dev.ptr, ot);
        bool ok = s == GP_STATUS_OK && gpt_guarded_check(&o->dev, got, why, sizeof why) && MATCHES(got);
        s = gp_reduce_to_host(ctx, in, it, n, shapes[i].op, got, ot);
        ok = ok && s == GP_STATUS_OK && MATCHES(got);
        CHECK(t, ok, "workspace %s n %lld, exactly %zu bytes: %s %s", what, (long long)n, bytes, gp_status_name(s),
              why);
        CHECK(t, cnt.calls == before, "with a workspace the context allocated %ld times", cnt.calls - before);

        gp_status mis = gp_ctx_set_workspace(ctx, (char *)ws_ptr + 8, bytes);
        CHECK(t, mis == GP_STATUS_INVALID_ARGUMENT, "misaligned workspace: %s", gp_status_name(mis));
        CHECK(t, gp_ctx_set_workspace(ctx, NULL, 16) == GP_STATUS_NULL_POINTER, "NULL workspace of 16 bytes");
        CHECK(t, gp_ctx_set_workspace(NULL, ws, bytes) == GP_STATUS_NULL_POINTER, "ctx NULL");
        CHECK(t, gp_ctx_set_workspace(ctx, NULL, 0) == GP_STATUS_OK, "back to context scratch");
        s = gp_reduce_to_host(ctx, in, it, n, shapes[i].op, got, ot);
        CHECK(t, s == GP_STATUS_OK && MATCHES(got), "context scratch again: %s", gp_status_name(s));
#undef MATCHES
        gp_ctx_free(ctx);
        CHECK(t, gpt_outstanding(&cnt) == 0, "the workspace context leaked %ld allocations", gpt_outstanding(&cnt));
        gp_free(t->ctx, ws); /* still ours: the context never frees it */
    }
    if (no_ws)
        printf("note: %d of %zu reductions need no workspace here, so none can be too small\n", no_ws, COUNT(shapes));
    size_t bytes = 0;
    gp_status s = gp_reduce_workspace_size(t->ctx, GP_DTYPE_I8, INT64_MAX, GP_OP_SUM, GP_DTYPE_I64, &bytes);
    CHECK(t, s == GP_STATUS_OK || s == GP_STATUS_INVALID_SIZE, "workspace for INT64_MAX: %s", gp_status_name(s));
}

/* ---------------------------------------------------- allocation failures */

/* The whole life of a context; `step` names the call that failed. */
typedef struct scenario {
    gp_ctx *ctx;
    void *in;
    gpt_guarded out;
    int64_t host_out;
    const char *step;
} scenario;

static gp_status run_scenario(scenario *sc, const gp_ctx_params *p, const void *host_in, int64_t n)
{
    gp_status s;
    if ((s = gp_ctx_create_ex(&sc->ctx, p)) != GP_STATUS_OK) return sc->step = "gp_ctx_create_ex", s;
    if ((s = gp_malloc(sc->ctx, &sc->in, (size_t)n * 4)) != GP_STATUS_OK) return sc->step = "gp_malloc", s;
    if ((s = gpt_guarded_alloc(sc->ctx, &sc->out, 8)) != GP_STATUS_OK) return sc->step = "gp_malloc (out)", s;
    if ((s = gp_copy_from_host(sc->ctx, sc->in, host_in, (size_t)n * 4)) != GP_STATUS_OK)
        return sc->step = "gp_copy_from_host", s;
    if ((s = gpt_guarded_poison(&sc->out, poison, 8)) != GP_STATUS_OK) return sc->step = "poison", s;
    s = gp_reduce(sc->ctx, sc->in, GP_DTYPE_I32, n, GP_OP_SUM, sc->out.ptr, GP_DTYPE_I64);
    if (s != GP_STATUS_OK) return sc->step = "gp_reduce", s;
    s = gp_reduce_to_host(sc->ctx, sc->in, GP_DTYPE_I32, n, GP_OP_SUM, &sc->host_out, GP_DTYPE_I64);
    if (s != GP_STATUS_OK) return sc->step = "gp_reduce_to_host", s;
    return GP_STATUS_OK;
}

/*
 * The scenario with allocation k failing, for k = 1, 2, ... until nothing
 * fails: each failure is a clear out-of-memory status with nothing written,
 * and nothing leaks.
 */
static void test_alloc_failures(gpt *t, const void *host_in, int64_t n)
{
    const int64_t unwritten = 0x5a5a5a5a5a5a5a5a;
    int64_t ref = 0;
    gp_ref_reduce(host_in, GP_DTYPE_I32, n, GP_OP_SUM, &ref, GP_DTYPE_I64);
    char why[256];
    for (long k = 1; k <= 200; k++) {
        gpt_counter cnt;
        gpt_counter_init(&cnt, k);
        gp_ctx_params p = {t->backend, 0, &cnt.allocator};
        scenario sc = {.ctx = (gp_ctx *)&sc, .host_out = unwritten};
        gp_status s = run_scenario(&sc, &p, host_in, n);
        bool injected = cnt.calls >= k;
        int64_t got = 0;
        if (s == GP_STATUS_OK) {
            bool ok = gpt_guarded_check(&sc.out, &got, why, sizeof why) && got == ref && sc.host_out == ref;
            CHECK(t, ok, "fail_at %ld: results %lld and %lld, want %lld", k, (long long)got, (long long)sc.host_out,
                  (long long)ref);
            CHECK(t, !injected, "allocation %ld failed, yet every call returned OK", k);
        } else {
            CHECK(t, injected && is_oom(t, s), "fail_at %ld: %s gave %s", k, sc.step, gp_status_name(s));
            if (strcmp(sc.step, "gp_ctx_create_ex") == 0) {
                CHECK(t, sc.ctx == NULL, "fail_at %ld: a failed create left *out set", k);
                sc.ctx = NULL;
            }
            CHECK(t, !sc.ctx || strstr(gp_ctx_last_error(sc.ctx), "OUT_OF_MEMORY"), "fail_at %ld: last error '%s'",
                  k, gp_ctx_last_error(sc.ctx));
            if (strcmp(sc.step, "gp_reduce") == 0) {
                unsigned char v[8];
                CHECK(t, gpt_guarded_check(&sc.out, v, why, sizeof why) && memcmp(v, poison, 8) == 0,
                      "fail_at %ld: a failed gp_reduce wrote its output", k);
            }
            if (strcmp(sc.step, "gp_reduce_to_host") == 0)
                CHECK(t, sc.host_out == unwritten, "fail_at %ld: a failed gp_reduce_to_host wrote", k);
        }
        if (sc.out.base) gpt_guarded_free(&sc.out);
        if (sc.ctx) gp_free(sc.ctx, sc.in);
        gp_ctx_free(sc.ctx);
        CHECK(t, gpt_outstanding(&cnt) == 0, "fail_at %ld: %ld allocations leaked", k, gpt_outstanding(&cnt));
        if (s == GP_STATUS_OK) {
            printf("allocation failure injected at each of the %ld allocations of the scenario\n", k - 1);
            return;
        }
    }
    gpt_fail(t, "the scenario still failed with the 200th allocation failing");
}

/*
 * An allocator whose blocks of shifted_from bytes and more come 16 bytes past
 * the alignment gpuprim.h asks (64 bytes on the host, 256 on a device): each
 * is handed back and the call fails with INVALID_ARGUMENT, saying why;
 * smaller blocks serve as usual; nothing leaks.
 */
static long shifted_outstanding;
static size_t shifted_from;
static void *shifted_alloc(void *user, gp_mem_space space, int device, size_t bytes)
{
    const gp_allocator *d = gp_default_allocator();
    const size_t shift = bytes >= shifted_from ? 16 : 0;
    unsigned char *p = d->alloc(d->user, space, device, bytes + shift);
    if (p) shifted_outstanding++;
    return p ? p + shift : NULL;
}
static void shifted_free(void *user, gp_mem_space space, int device, void *ptr)
{
    const gp_allocator *d = gp_default_allocator();
    shifted_outstanding--;
    /* The default allocator's blocks start on 64 bytes at least. */
    d->free(d->user, space, device, (unsigned char *)ptr - ((uintptr_t)ptr % 64 == 16 ? 16 : 0));
}

static void test_misaligned_allocator(gpt *t)
{
    const gp_allocator shifted = {shifted_alloc, shifted_free, NULL};
    gp_ctx_params p = {t->backend, 0, &shifted};
    gp_ctx *ctx = (gp_ctx *)&ctx;
    /* Every block shifted: the context itself is refused. */
    shifted_outstanding = 0;
    shifted_from = 0;
    gp_status s = gp_ctx_create_ex(&ctx, &p);
    CHECK(t, s == GP_STATUS_INVALID_ARGUMENT && ctx == NULL && shifted_outstanding == 0,
          "a context on misaligned blocks: %s, %ld blocks left", gp_status_name(s), shifted_outstanding);
    /* Then only blocks of 4 KiB and more: the context, but no large block. */
    shifted_from = 4096;
    s = gp_ctx_create_ex(&ctx, &p);
    CHECK(t, s == GP_STATUS_OK, "a context on small well-aligned blocks: %s", gp_status_name(s));
    if (s != GP_STATUS_OK) return;
    void *big = &big, *small = NULL;
    s = gp_malloc(ctx, &big, 1 << 20);
    CHECK(t, s == GP_STATUS_INVALID_ARGUMENT && big == NULL && strstr(gp_ctx_last_error(ctx), "aligned"),
          "gp_malloc of a misaligned block: %s, %p, '%s'", gp_status_name(s), big, gp_ctx_last_error(ctx));
    s = gp_malloc(ctx, &small, 1024);
    CHECK(t, s == GP_STATUS_OK && small && ((uintptr_t)small & 63) == 0, "gp_malloc of 1 KiB: %s", gp_status_name(s));
    /* A scan (on CUDA: its look-back pool) or a byte histogram (on the CPU,
     * with 2 threads and more) needs memory: it gets a misaligned block. */
    const int64_t n = 1 << 20;
    size_t scan_need = 0, hist_need = 0;
    s = gp_scan_workspace_size(ctx, GP_DTYPE_I32, n, GP_OP_SUM, GP_DTYPE_I32, &scan_need);
    if (s == GP_STATUS_OK) s = gp_histogram_workspace_size(ctx, GP_DTYPE_U8, n, 256, &hist_need);
    CHECK(t, s == GP_STATUS_OK, "workspace sizes: %s", gp_status_name(s));
    void *in = NULL, *hist = NULL;
    if (gp_malloc(t->ctx, &in, (size_t)n * 4) == GP_STATUS_OK && gp_malloc(t->ctx, &hist, 256 * 8) == GP_STATUS_OK) {
        /* In the test context's memory: each call fails before it writes. */
        if (scan_need > 0) {
            s = gp_scan_inclusive(ctx, in, GP_DTYPE_I32, n, GP_OP_SUM, in, GP_DTYPE_I32);
            CHECK(t, s == GP_STATUS_INVALID_ARGUMENT && strstr(gp_ctx_last_error(ctx), "aligned"),
                  "a scan on misaligned scratch: %s, '%s'", gp_status_name(s), gp_ctx_last_error(ctx));
        }
        if (hist_need > 0) {
            s = gp_histogram_even(ctx, in, GP_DTYPE_U8, n, 256, 0.0, 256.0, (uint64_t *)hist, 0);
            CHECK(t, s == GP_STATUS_INVALID_ARGUMENT && strstr(gp_ctx_last_error(ctx), "aligned"),
                  "a histogram on misaligned scratch: %s, '%s'", gp_status_name(s), gp_ctx_last_error(ctx));
        }
        if (scan_need == 0 && hist_need == 0)
            printf("note: neither the scan nor the histogram needs scratch here (one thread?): the scratch path is not checked\n");
    }
    gp_free(t->ctx, hist);
    gp_free(t->ctx, in);
    gp_free(ctx, small);
    gp_ctx_free(ctx);
    CHECK(t, shifted_outstanding == 0, "%ld blocks of the shifting allocator leaked", shifted_outstanding);
}

/* On the context's own scratch a CUDA scan, partition or filter keeps its
 * look-back statuses in the backend's pool, not also in the scratch: all a
 * call allocates on a fresh context is at most the caller's workspace
 * (gp_*_workspace_size), the part kept in scratch grown by a quarter. Each
 * held the arena twice before (2.25 times a scan's workspace). The filter
 * counts nothing first, so it allocates no scratch at all: the pool alone,
 * less than the workspace (which also holds a partition's count). Large
 * enough for 1024 tiles and more, the pool's least. */
static void test_pooled_scratch(gpt *t)
{
    const int64_t n = 1 << 24;
    void *in = NULL, *flags = NULL, *out = NULL;
    if (gp_malloc(t->ctx, &in, (size_t)n * 4) != GP_STATUS_OK || gp_malloc(t->ctx, &flags, (size_t)n) != GP_STATUS_OK ||
        gp_malloc(t->ctx, &out, (size_t)n * 4) != GP_STATUS_OK || gp_memset(t->ctx, in, 0, (size_t)n * 4) != GP_STATUS_OK ||
        gp_memset(t->ctx, flags, 1, (size_t)n) != GP_STATUS_OK) {
        gpt_fail(t, "pooled scratch: could not set up 2^24 items");
        goto done;
    }
    for (int call = 0; call < 3; call++) {
        static const char *names[] = {"scan", "partition by flags", "running-max filter"};
        gpt_counter cnt;
        gp_ctx *ctx;
        if (gpt_counted_ctx(&cnt, t->backend, &ctx) != GP_STATUS_OK) {
            gpt_fail(t, "pooled scratch: no context");
            break;
        }
        size_t need = 0;
        int64_t kept = -1;
        gp_status s = call == 0 ? gp_scan_workspace_size(ctx, GP_DTYPE_I32, n, GP_OP_SUM, GP_DTYPE_I32, &need)
                                : gp_select_workspace_size(ctx, GP_DTYPE_I32, n, &need);
        const unsigned long long before = cnt.bytes;
        if (s == GP_STATUS_OK) {
            if (call == 0) s = gp_scan_inclusive(ctx, in, GP_DTYPE_I32, n, GP_OP_SUM, in, GP_DTYPE_I32);
            else if (call == 1) s = gp_partition_flagged(ctx, in, GP_DTYPE_I32, n, (const uint8_t *)flags, out, NULL, &kept);
            else s = gp_filter_running_max(ctx, in, GP_DTYPE_I32, n, 0, out, NULL, &kept);
        }
        if (s == GP_STATUS_OK) s = gp_ctx_synchronize(ctx);
        const unsigned long long used = cnt.bytes - before;
        CHECK(t, s == GP_STATUS_OK && (call == 0 || kept == n),
              "pooled scratch, %s of 2^24 i32: %s, %lld kept", names[call], gp_status_name(s), (long long)kept);
        const size_t most = call == 2 ? need : need + need / 4;
        CHECK(t, used <= most, "pooled scratch, %s: the call allocated %llu bytes, at most %zu allowed (workspace %zu)",
              names[call], used, most, need);
        gp_ctx_free(ctx);
    }
done:
    gp_free(t->ctx, out);
    gp_free(t->ctx, flags);
    gp_free(t->ctx, in);
}

/* ------------------------------------------- the other calls' argument rules */

/* Every call of n elements refuses a misaligned input or output, a count
 * off 8 bytes and n above GP_MAX_ELEMENTS, and writes nothing when it does;
 * with n == 0 and NULL arrays each writes only its count of 0 (or clears
 * the histogram). `buf` holds 64 bytes of the context's space. */
static void test_array_rules(gpt *t, unsigned char *buf)
{
    const int32_t v = 0;
    const gp_dtype i32 = GP_DTYPE_I32;
    unsigned char *in = buf, *out = buf + 32;
    int64_t *count = (int64_t *)(void *)(buf + 24), host = -7;
    const int64_t big = GP_MAX_ELEMENTS + 1;
    gp_status s;
#define EXPECT(call, want, what)                                                                             \
    do {                                                                                                     \
        host = -7;                                                                                           \
        s = (call);                                                                                          \
        CHECK(t, s == (want) && host == -7, "%s: %s, want %s (host_count %lld)", what, gp_status_name(s),     \
              gp_status_name(want), (long long)host);                                                        \
    } while (0)
    EXPECT(gp_scan_inclusive(t->ctx, in + 1, i32, 4, GP_OP_SUM, out, i32), GP_STATUS_INVALID_ARGUMENT,
           "scan, in misaligned");
    EXPECT(gp_scan_exclusive(t->ctx, in, i32, 4, GP_OP_SUM, NULL, out + 2, i32), GP_STATUS_INVALID_ARGUMENT,
           "scan, out misaligned");
    EXPECT(gp_scan_inclusive(t->ctx, in, i32, big, GP_OP_SUM, out, i32), GP_STATUS_INVALID_SIZE,
           "scan, n above GP_MAX_ELEMENTS");
    EXPECT(gp_select_if(t->ctx, in + 2, i32, 4, GP_CMP_GE, &v, out, NULL, &host), GP_STATUS_INVALID_ARGUMENT,
           "select_if, in misaligned");
    EXPECT(gp_partition_flagged(t->ctx, in, i32, 4, buf, out + 1, NULL, &host), GP_STATUS_INVALID_ARGUMENT,
           "partition_flagged, out misaligned");
    EXPECT(gp_select_flagged(t->ctx, in, i32, 4, buf + 16, out, (int64_t *)(void *)(buf + 20), &host),
           GP_STATUS_INVALID_ARGUMENT, "select_flagged, count misaligned");
    EXPECT(gp_filter_running_max(t->ctx, in + 3, i32, 4, 0, out, NULL, &host), GP_STATUS_INVALID_ARGUMENT,
           "filter, in misaligned");
    EXPECT(gp_partition_if(t->ctx, in, i32, big, GP_CMP_LT, &v, out, NULL, &host), GP_STATUS_INVALID_SIZE,
           "partition_if, n above GP_MAX_ELEMENTS");
    EXPECT(gp_count_if(t->ctx, in, GP_DTYPE_U8, big, GP_CMP_EQ, &v, NULL, &host), GP_STATUS_INVALID_SIZE,
           "count_if, n above GP_MAX_ELEMENTS");
    EXPECT(gp_histogram_even(t->ctx, in, GP_DTYPE_U8, big, 4, 0.0, 1.0, (uint64_t *)(void *)out, 0),
           GP_STATUS_INVALID_SIZE, "histogram_even, n above GP_MAX_ELEMENTS");
    if (t->backend == GP_BACKEND_CUDA) {
        /* Past the CUDA selections' 2^38 - 1: refused before a workspace is
         * sized (it once asked for terabytes, DEVICE_OUT_OF_MEMORY). */
        const int64_t past = (int64_t)1 << 38;
        size_t ws = 1;
        EXPECT(gp_select_if(t->ctx, in, i32, past, GP_CMP_LT, &v, out, NULL, &host), GP_STATUS_INVALID_SIZE,
               "select_if, n 2^38 on CUDA");
        EXPECT(gp_partition_copy_flagged(t->ctx, in, GP_DTYPE_U8, past, buf, out, out + 16, NULL, &host),
               GP_STATUS_INVALID_SIZE, "partition_copy_flagged, n 2^38 on CUDA");
        EXPECT(gp_filter_running_max(t->ctx, in, i32, past, 0, out, NULL, &host), GP_STATUS_INVALID_SIZE,
               "filter, n 2^38 on CUDA");
        EXPECT(gp_select_workspace_size(t->ctx, i32, past, &ws), GP_STATUS_INVALID_SIZE,
               "select workspace size, n 2^38 on CUDA");
        CHECK(t, ws == 1, "a refused workspace size query wrote %zu", ws);
        CHECK(t, gp_select_workspace_size(t->ctx, i32, past - 1, &ws) == GP_STATUS_OK && ws > 1,
              "select workspace size, n 2^38 - 1 on CUDA: %zu bytes", ws);
    }
    /* Past the CUDA scan's (2^31 - 1) * 2048 elements (2^31 - 1 of its
     * smallest tiles): refused, by the workspace query too, which once
     * answered with such an n's look-back arena. The CPU takes it. */
    const int64_t scan_past = (int64_t)0x7fffffff * 2048 + 1;
    size_t scan_ws = 1;
    if (t->backend == GP_BACKEND_CUDA) {
        const gp_dtype i64 = GP_DTYPE_I64;
        EXPECT(gp_scan_inclusive(t->ctx, in, i64, scan_past, GP_OP_SUM, out, i64), GP_STATUS_INVALID_SIZE,
               "scan, n past (2^31 - 1) * 2048 on CUDA");
        EXPECT(gp_scan_exclusive(t->ctx, in, GP_DTYPE_U8, scan_past, GP_OP_MAX, NULL, out, GP_DTYPE_U8),
               GP_STATUS_INVALID_SIZE, "exclusive scan, n past (2^31 - 1) * 2048 on CUDA");
        EXPECT(gp_scan_workspace_size(t->ctx, GP_DTYPE_I8, scan_past, GP_OP_SUM, i64, &scan_ws),
               GP_STATUS_INVALID_SIZE, "scan workspace size, n past (2^31 - 1) * 2048 on CUDA");
        CHECK(t, scan_ws == 1, "a refused workspace size query wrote %zu", scan_ws);
        CHECK(t, gp_scan_workspace_size(t->ctx, i64, scan_past - 1, GP_OP_SUM, i64, &scan_ws) == GP_STATUS_OK &&
                     scan_ws > 1,
              "scan workspace size, n (2^31 - 1) * 2048 on CUDA: %zu bytes", scan_ws);
    } else {
        s = gp_scan_workspace_size(t->ctx, GP_DTYPE_I64, scan_past, GP_OP_SUM, GP_DTYPE_I64, &scan_ws);
        CHECK(t, s == GP_STATUS_OK, "scan workspace size, n past (2^31 - 1) * 2048 on the CPU: %s",
              gp_status_name(s));
    }

    const gp_status ok = GP_STATUS_OK;
    host = -7;
    s = gp_select_flagged(t->ctx, NULL, i32, 0, NULL, NULL, NULL, &host);
    CHECK(t, s == ok && host == 0, "select_flagged, n 0, NULL arrays: %s, count %lld", gp_status_name(s),
          (long long)host);
    host = -7;
    s = gp_partition_if(t->ctx, NULL, i32, 0, GP_CMP_LT, &v, NULL, NULL, &host);
    CHECK(t, s == ok && host == 0, "partition_if, n 0, NULL arrays: %s, count %lld", gp_status_name(s),
          (long long)host);
    host = -7;
    s = gp_filter_running_max(t->ctx, NULL, GP_DTYPE_F64, 0, GP_FILTER_DESCENDING, NULL, count, &host);
    CHECK(t, s == ok && host == 0, "filter, n 0, NULL arrays: %s, count %lld", gp_status_name(s), (long long)host);
    uint64_t hist[4] = {9, 9, 9, 9};
    CHECK(t, gp_memset(t->ctx, out, 0xA5, 32) == ok, "memset");
    s = gp_histogram_even(t->ctx, NULL, GP_DTYPE_F32, 0, 4, 0.0, 1.0, (uint64_t *)(void *)out, 0);
    CHECK(t, s == ok && gp_copy_to_host(t->ctx, hist, out, 32) == ok && !hist[0] && !hist[1] && !hist[2] && !hist[3],
          "histogram_even, n 0, in NULL: %s, counts %llu %llu %llu %llu", gp_status_name(s),
          (unsigned long long)hist[0], (unsigned long long)hist[1], (unsigned long long)hist[2],
          (unsigned long long)hist[3]);
#undef EXPECT
}

int main(int argc, char **argv)
{
    gpt t;
    gpt_init(&t, argc, argv);
    test_statuses(&t);
    test_version_and_names(&t);
    test_contexts(&t);
    test_memory(&t);

    /* Inputs for the reduction checks: 2^20 + 3 random i32 (for the wider
     * dtypes, fewer elements of the same bytes), and zeros. */
    const int64_t n = (1 << 20) + 3;
    const size_t bytes = (size_t)n * 4;
    outs o;
    void *in = NULL, *zeros = NULL;
    int32_t *h = malloc(bytes);
    gpt_rng r = {t.seed};
    for (int64_t i = 0; h && i < n; i++) h[i] = (int32_t)gpt_next(&r);
    if (!h || gp_malloc(t.ctx, &in, bytes) != GP_STATUS_OK || gp_malloc(t.ctx, &zeros, 64) != GP_STATUS_OK ||
        gp_copy_from_host(t.ctx, in, h, bytes) != GP_STATUS_OK || gp_memset(t.ctx, zeros, 0, 64) != GP_STATUS_OK ||
        gpt_guarded_alloc(t.ctx, &o.dev, 8) != GP_STATUS_OK || gpt_guarded_alloc(NULL, &o.host, 8) != GP_STATUS_OK) {
        gpt_fail(&t, "could not set up the reduction inputs");
        return gpt_finish(&t);
    }
    test_reduce_errors(&t, &o, in);
    test_supports(&t, &o, zeros);
    test_workspace(&t, &o, in, h, (int64_t)bytes);
    test_alloc_failures(&t, h, t.quick ? 4099 : n);
    test_misaligned_allocator(&t);
    test_pooled_scratch(&t);
    test_array_rules(&t, (unsigned char *)zeros);

    gpt_guarded_free(&o.dev);
    gpt_guarded_free(&o.host);
    gp_free(t.ctx, in);
    gp_free(t.ctx, zeros);
    free(h);
    return gpt_finish(&t);
}
