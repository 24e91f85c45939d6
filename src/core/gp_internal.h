/*
 * Internal interface between the core and the backends. The core checks
 * every argument before a backend sees it: a backend may assume valid,
 * supported arguments and a large-enough workspace.
 */
#ifndef GP_INTERNAL_H
#define GP_INTERNAL_H

#include "gpuprim.h"

#include <stdarg.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- dtype kinds */

typedef enum gp_kind { GP_KIND_SIGNED, GP_KIND_UNSIGNED, GP_KIND_FLOAT } gp_kind;

bool gp_dtype_valid(gp_dtype t);
gp_kind gp_dtype_kind(gp_dtype t);
bool gp_op_valid(gp_op op);
/* True for AND, OR, XOR. */
bool gp_op_is_bitwise(gp_op op);
/* The op is defined on this dtype (bitwise ops on integers only). */
bool gp_op_defined_for(gp_op op, gp_dtype t);
/* out_t is in_t or a wider dtype of the same kind. */
bool gp_widening_ok(gp_dtype in_t, gp_dtype out_t);

/* ---------------------------------------------------------------- backends */

typedef enum gp_copy_kind {
    GP_COPY_HOST_TO_CTX,
    GP_COPY_CTX_TO_HOST,
    GP_COPY_CTX_TO_CTX
} gp_copy_kind;

typedef struct gp_reduce_args {
    const void *in;
    gp_dtype in_t;
    int64_t n;
    gp_op op;
    void *out;
    gp_dtype out_t;
} gp_reduce_args;

/* Scan: init holds one out_t value (the identity when the caller gave none). */
typedef struct gp_scan_args {
    const void *in;
    gp_dtype in_t;
    int64_t n;
    gp_op op;
    bool exclusive;
    unsigned char init[16];
    void *out;
    gp_dtype out_t;
} gp_scan_args;

/* Select and partition: by flags when flags != NULL, else by (x cmp value). */
typedef struct gp_select_args {
    const void *in;
    gp_dtype t;
    int64_t n;
    const uint8_t *flags;
    gp_cmp cmp;
    unsigned char value[16];
    bool partition;
    void *out;
    void *rejected; /* gp_partition_copy_*: the rejected items' buffer; NULL: in out after the selected */
    int64_t *count; /* context space; never NULL here (the core supplies a slot) */
} gp_select_args;

typedef struct gp_filter_args {
    const void *in;
    gp_dtype t;
    int64_t n;
    bool descending;
    void *out;
    int64_t *count; /* context space; never NULL here */
} gp_filter_args;

/* Transpose: the core fills every default (strides, batch >= 1). */
typedef struct gp_transpose_args {
    const void *in;
    void *out;
    gp_transpose_params p;
    int64_t out_rows, out_cols; /* shape of each output matrix */
} gp_transpose_args;

typedef struct gp_count_args {
    const void *in;
    gp_dtype t;
    int64_t n;
    gp_cmp cmp;
    unsigned char value[16];
    int64_t *count; /* context space; never NULL here */
} gp_count_args;

/* Histogram: even bins when edges == NULL. */
typedef struct gp_histogram_args {
    const void *in;
    gp_dtype t;
    int64_t n;
    int64_t bins;
    double lower, upper;
    const void *edges;
    uint64_t *hist;
    bool accumulate;
} gp_histogram_args;

/*
 * One table per backend. Every function returns a status; on failure it
 * records the detail with gp_set_error(). `ws` is scratch memory in the
 * context's space of at least the size the matching *_workspace function
 * returned (NULL when that size is 0).
 */
typedef struct gp_backend_vtable {
    gp_backend id;
    gp_status (*probe)(char *detail, size_t detail_size);
    /* Device memory for the default allocator (NULL for a host backend). */
    void *(*device_alloc)(int device, size_t bytes);
    void (*device_free)(int device, void *ptr);
    int (*device_count)(void);
    gp_status (*device_info)(int device, gp_device_info *info);

    gp_status (*ctx_init)(gp_ctx *ctx); /* may set ctx->impl */
    void (*ctx_fini)(gp_ctx *ctx);      /* waits for work, frees ctx->impl */
    gp_status (*set_stream)(gp_ctx *ctx, void *stream);
    gp_status (*synchronize)(gp_ctx *ctx);
    gp_status (*copy)(gp_ctx *ctx, void *dst, const void *src, size_t bytes, gp_copy_kind kind);
    gp_status (*memset)(gp_ctx *ctx, void *dst, int value, size_t bytes);

    int (*supports)(gp_primitive prim, gp_op op, gp_dtype in_t, gp_dtype out_t);
    size_t (*reduce_workspace)(const gp_ctx *ctx, const gp_reduce_args *a);
    gp_status (*reduce)(gp_ctx *ctx, const gp_reduce_args *a, void *ws);

    /* Later primitives; NULL where a backend does not have them yet (the core
     * then answers UNSUPPORTED_DTYPE and gp_supports says 0). `pooled`: the
     * call runs on the context's own scratch, not a caller's workspace, and
     * the backend may keep part of what it needs (CUDA: the look-back
     * statuses) in a pool of its own; false for the public *_workspace_size
     * answers, which size a caller's workspace. */
    size_t (*scan_workspace)(const gp_ctx *ctx, const gp_scan_args *a, bool pooled);
    gp_status (*scan)(gp_ctx *ctx, const gp_scan_args *a, void *ws);
    /* The most elements a scan takes (at most GP_MAX_ELEMENTS): the core
     * refuses more with INVALID_SIZE, in the workspace query too. */
    int64_t max_scan_elements;
    size_t (*select_workspace)(const gp_ctx *ctx, gp_dtype t, int64_t n, bool pooled);
    gp_status (*select)(gp_ctx *ctx, const gp_select_args *a, void *ws);
    /* The filter's: select_workspace's public answer for a caller's
     * workspace; on the context's own scratch it may be less (CUDA: 0). */
    size_t (*filter_workspace)(const gp_ctx *ctx, gp_dtype t, int64_t n, bool pooled);
    gp_status (*filter)(gp_ctx *ctx, const gp_filter_args *a, void *ws);
    /* The most elements select and filter take (at most GP_MAX_ELEMENTS):
     * the core refuses more with INVALID_SIZE before it sizes a workspace. */
    int64_t max_select_elements;
    gp_status (*transpose)(gp_ctx *ctx, const gp_transpose_args *a);
    size_t (*count_workspace)(const gp_ctx *ctx, const gp_count_args *a);
    gp_status (*count)(gp_ctx *ctx, const gp_count_args *a, void *ws);
    size_t (*histogram_workspace)(const gp_ctx *ctx, gp_dtype t, int64_t n, int64_t bins);
    gp_status (*histogram)(gp_ctx *ctx, const gp_histogram_args *a, void *ws);
} gp_backend_vtable;

/* NULL when the backend is not built. */
const gp_backend_vtable *gp_backend_table(gp_backend b);
/* The backend implements the primitive at all (its entry is not NULL). */
bool gp_backend_has(const gp_backend_vtable *vt, gp_primitive prim);

/* ----------------------------------------------------------------- context */

/* How a CUDA context launched a kernel (cuda_backend.cu): in stream order,
 * in clusters, cooperatively (a persistent grid, all blocks resident), or
 * overlapping the launch before it (programmatic dependent launch). */
typedef enum gp_launch_kind {
    GP_LAUNCH_PLAIN,
    GP_LAUNCH_CLUSTER,
    GP_LAUNCH_COOPERATIVE,
    GP_LAUNCH_OVERLAPPED,
    GP_LAUNCH_KINDS
} gp_launch_kind;

struct gp_ctx {
    gp_backend backend;
    int device;
    gp_mem_space space;
    const gp_backend_vtable *vt;
    gp_allocator alloc;
    void *stream;
    void *impl;        /* backend-private state */
    void *result_slot; /* 64 bytes in the context's space, set by the backend's ctx_init */

    void *scratch; /* context-owned, grown on demand */
    size_t scratch_bytes;
    void *user_ws; /* caller-owned workspace, when set */
    size_t user_ws_bytes;
    bool have_user_ws;
    bool misaligned_block; /* gp_ctx_alloc refused the allocator's last block: gp_ctx_alloc_failed says so */
    /* The kernels this context's backend launched, by kind, counting only
     * launches that succeeded: tests read it to prove which path a call
     * took (the CPU backend launches none). */
    unsigned long long launches[GP_LAUNCH_KINDS];

    char last_error[512];
};

/* Records "NAME: detail" as the context's last error and returns `s`.
 * ctx may be NULL (then only the status is returned). */
gp_status gp_set_error(gp_ctx *ctx, gp_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* n's upper bounds, one message for every primitive: GP_MAX_ELEMENTS, then
 * `backend_limit`, what the context's backend takes of this primitive
 * (GP_MAX_ELEMENTS where it takes all). INVALID_SIZE past either; `name`
 * prefixes the message where not NULL. ctx must not be NULL. */
gp_status gp_check_max_elements(gp_ctx *ctx, const char *name, int64_t n, int64_t backend_limit);

/* Allocation through the context's allocator, in its own space or on the
 * host. A block off the alignment gpuprim.h asks of allocators (64 bytes on
 * the host, 256 on a device) is handed back and NULL returned: the kernels'
 * 16-byte loads and 64-bit atomics would fault on it. */
void *gp_ctx_alloc(gp_ctx *ctx, gp_mem_space space, size_t bytes);
void gp_ctx_dealloc(gp_ctx *ctx, gp_mem_space space, void *ptr);
/* The status for a NULL from gp_ctx_alloc, with `what` (bytes of it) in the
 * detail: INVALID_ARGUMENT for a misaligned block, else OUT_OF_MEMORY or,
 * in device space, DEVICE_OUT_OF_MEMORY. */
gp_status gp_ctx_alloc_failed(gp_ctx *ctx, gp_mem_space space, size_t bytes, const char *what);
/* The alignment gpuprim.h asks of an allocator's blocks in `space`. */
size_t gp_alloc_alignment(gp_mem_space space);

/* Scratch of at least `bytes` in the context's space: the caller's workspace
 * (WORKSPACE_TOO_SMALL if short) or the context's cache, grown as needed
 * (OUT_OF_MEMORY / DEVICE_OUT_OF_MEMORY). bytes == 0 gives NULL and OK. */
gp_status gp_ctx_scratch(gp_ctx *ctx, size_t bytes, void **ws);

/*
 * Count outputs (select, partition, filter, count): the backend always writes
 * one int64_t in the context's space. gp_count_target picks the caller's
 * `count`, or the context's result slot when the caller wants only
 * `host_count`; gp_count_finish then copies it to host_count (synchronising)
 * when that was asked for. NULL_POINTER when both are NULL.
 */
gp_status gp_count_target(gp_ctx *ctx, int64_t *count, int64_t *host_count, int64_t **target);
gp_status gp_count_finish(gp_ctx *ctx, const int64_t *target, int64_t *host_count);

/* True when p is a multiple of `align` bytes (elements must be naturally
 * aligned: the GPU faults on a misaligned access). */
bool gp_aligned(const void *p, size_t align);

/* True when [a, a+abytes) and [b, b+bbytes) share a byte. */
bool gp_overlaps(const void *a, size_t abytes, const void *b, size_t bbytes);

#ifdef __cplusplus
}
#endif

#endif /* GP_INTERNAL_H */
