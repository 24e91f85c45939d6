/*
 * gpuprim: data-parallel primitives for C, on NVIDIA GPUs (CUDA) and on any
 * CPU (C11 + OpenMP).
 *
 * Conventions
 * - Every function that can fail returns a gp_status; none aborts or exits.
 * - Pointers to elements must be aligned to the element's size.
 * - Memory passed to a primitive lives in the context's space: device memory
 *   for a CUDA context, host memory for a CPU context. gp_malloc() and the
 *   copy calls below let one program run unchanged on both backends.
 * - Primitives are asynchronous on the context's stream where the backend
 *   allows (CUDA). A call that synchronises says so. Host memory a call
 *   takes by pointer (a comparison's value, a scan's init, a transpose's
 *   parameters) is read before it returns and may be reused at once.
 * - A call that fails keeps a message with the detail in the context
 *   (gp_ctx_last_error()). One refused for its arguments, support or
 *   memory (statuses 100-399) writes nothing to the caller's output. One
 *   that fails on the device (400-499: a launch refused after an earlier
 *   kernel of the same call ran, or a fault) may leave the output partly
 *   written.
 * - A context serves one host thread at a time: it holds the last error and
 *   the slot a host count passes through, so calls on one context from
 *   several threads at once must be serialised by the caller. Separate
 *   contexts may run at once, from any threads.
 *
 * The header has no CUDA types: a stream is passed as `void *`.
 */
#ifndef GPUPRIM_H
#define GPUPRIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(GPUPRIM_SHARED)
#  ifdef GPUPRIM_BUILDING
#    define GP_API __declspec(dllexport)
#  else
#    define GP_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define GP_API __attribute__((visibility("default")))
#else
#  define GP_API
#endif

/* ---------------------------------------------------------------- version */

#define GP_VERSION_MAJOR 0
#define GP_VERSION_MINOR 1
#define GP_VERSION_PATCH 0
#define GP_VERSION_NUMBER \
    (GP_VERSION_MAJOR * 10000 + GP_VERSION_MINOR * 100 + GP_VERSION_PATCH)

/* The version the library was built as (compare with GP_VERSION_NUMBER). */
GP_API unsigned gp_version_number(void);
/* "MAJOR.MINOR.PATCH". */
GP_API const char *gp_version_string(void);

/* --------------------------------------------------------------- statuses */

/*
 * X(NAME, number, message). Numbers are banded and never reused:
 *   0       success
 *   100-199 bad arguments from the caller
 *   200-299 valid request this build or backend does not support
 *   300-399 resources (memory, workspace)
 *   400-499 device and runtime failures
 */
#define GP_STATUS_MAP(X)                                                                   \
    X(OK, 0, "success")                                                                    \
    X(NULL_POINTER, 100, "a required pointer argument is NULL")                            \
    X(INVALID_SIZE, 101, "a size or count is negative or too large")                       \
    X(INVALID_DTYPE, 102, "unknown dtype")                                                 \
    X(INVALID_OP, 103, "unknown operation")                                                \
    X(INVALID_BACKEND, 104, "unknown backend")                                             \
    X(INVALID_DEVICE, 105, "no such device index")                                         \
    X(INVALID_ARGUMENT, 106, "invalid argument")                                           \
    X(UNSUPPORTED_OP, 200, "operation not defined for this dtype")                         \
    X(UNSUPPORTED_DTYPE, 201, "dtype or dtype pair not supported by this primitive")       \
    X(BACKEND_UNAVAILABLE, 202, "backend not built into this library or no usable device") \
    X(OUT_OF_MEMORY, 300, "host memory allocation failed")                                 \
    X(DEVICE_OUT_OF_MEMORY, 301, "device memory allocation failed")                        \
    X(WORKSPACE_TOO_SMALL, 302, "the caller's workspace is smaller than the call needs")   \
    X(DEVICE_ERROR, 400, "the CUDA runtime reported an error")                             \
    X(LAUNCH_FAILED, 401, "a kernel launch failed")                                        \
    X(INTERNAL, 499, "internal error in gpuprim")

typedef enum gp_status {
#define GP_STATUS_ENUM_(name, num, msg) GP_STATUS_##name = num,
    GP_STATUS_MAP(GP_STATUS_ENUM_)
#undef GP_STATUS_ENUM_
} gp_status;

/* "OK", "NULL_POINTER", ...; "UNKNOWN" for a number not in the table. */
GP_API const char *gp_status_name(gp_status s);
/* A one-line English message; "unknown status" for a number not in the table. */
GP_API const char *gp_status_string(gp_status s);

/* ----------------------------------------------------------------- dtypes */

/* Numbers are stable. 11 and 12 are reserved for f16 and bf16. */
typedef enum gp_dtype {
    GP_DTYPE_I8 = 1,
    GP_DTYPE_U8 = 2,
    GP_DTYPE_I16 = 3,
    GP_DTYPE_U16 = 4,
    GP_DTYPE_I32 = 5,
    GP_DTYPE_U32 = 6,
    GP_DTYPE_I64 = 7,
    GP_DTYPE_U64 = 8,
    GP_DTYPE_F32 = 9,
    GP_DTYPE_F64 = 10
} gp_dtype;

/* Size in bytes of one element; 0 for an unknown dtype. */
GP_API size_t gp_dtype_size(gp_dtype t);
/* "i8", "u8", ... "f64"; NULL for an unknown dtype. */
GP_API const char *gp_dtype_name(gp_dtype t);
/* Parses a name as printed by gp_dtype_name (also "int32", "float32" style),
 * in any case. GP_STATUS_INVALID_DTYPE if the name is unknown. */
GP_API gp_status gp_dtype_from_name(const char *name, gp_dtype *out);

/* ---------------------------------------------------------- operations */

typedef enum gp_op {
    GP_OP_SUM = 1,
    GP_OP_PROD = 2,
    GP_OP_MIN = 3,
    GP_OP_MAX = 4,
    GP_OP_AND = 5, /* bitwise, integer dtypes only */
    GP_OP_OR = 6,  /* bitwise, integer dtypes only */
    GP_OP_XOR = 7  /* bitwise, integer dtypes only */
} gp_op;

/* "sum", "prod", ...; NULL for an unknown op. */
GP_API const char *gp_op_name(gp_op op);
/* A name as gp_op_name prints it, in any case; GP_STATUS_INVALID_OP if the
 * name is unknown. */
GP_API gp_status gp_op_from_name(const char *name, gp_op *out);

/* --------------------------------------------------------------- backends */

typedef enum gp_backend {
    GP_BACKEND_AUTO = 0, /* CUDA when a usable GPU is present, else CPU */
    GP_BACKEND_CPU = 1,
    GP_BACKEND_CUDA = 2
} gp_backend;

/* "auto", "cpu", "cuda"; NULL for an unknown value. */
GP_API const char *gp_backend_name(gp_backend b);
/* A name as gp_backend_name prints it, in any case;
 * GP_STATUS_INVALID_BACKEND if the name is unknown. */
GP_API gp_status gp_backend_from_name(const char *name, gp_backend *out);
/* 1 if the backend was compiled into this library. */
GP_API int gp_backend_built(gp_backend b);
/* GP_STATUS_OK if the backend is built and usable here (for CUDA: a device
 * is present and the driver works). On failure, if `detail` is not NULL, a
 * reason is written to it (at most `detail_size` bytes, NUL-terminated). */
GP_API gp_status gp_backend_probe(gp_backend b, char *detail, size_t detail_size);

/* What a GPU is, for tools and reports. Fields are 0 where unknown. */
typedef struct gp_device_info {
    char name[256];
    int compute_major, compute_minor;
    int sm_count;
    size_t total_memory_bytes;
    size_t l2_bytes;
    int memory_bus_width_bits;
    int memory_clock_khz;
    /* Datasheet bandwidth by seed 000's formula: bus width / 8 x memory
     * clock x 2 (double data rate), in GB/s (10^9 bytes per second). */
    double peak_bandwidth_gbs;
    int driver_version;  /* e.g. 13000 */
    int runtime_version; /* e.g. 13000 */
} gp_device_info;

/* Number of CUDA devices (0 where the CUDA backend is absent or unusable). */
GP_API int gp_device_count(void);
/* Fills `info` for CUDA device `device`. */
GP_API gp_status gp_device_get_info(int device, gp_device_info *info);

/* ------------------------------------------------------------- allocation */

typedef enum gp_mem_space {
    GP_MEM_HOST = 0,  /* ordinary host memory */
    GP_MEM_DEVICE = 1 /* CUDA device memory of `device` */
} gp_mem_space;

/*
 * Every allocation a context makes (the context itself, its scratch memory,
 * gp_malloc) goes through one allocator. `alloc` returns NULL on failure;
 * host blocks must be aligned to at least 64 bytes, device blocks to at
 * least 256 (as cudaMalloc's are): the kernels load 16 bytes at a time and
 * take 64-bit atomics. A block off that alignment is handed back to `free`
 * and the call fails with INVALID_ARGUMENT. The default allocator is
 * gp_default_allocator(); a custom one may wrap it (pools, accounting,
 * failure injection in tests).
 */
typedef struct gp_allocator {
    void *(*alloc)(void *user, gp_mem_space space, int device, size_t bytes);
    void (*free)(void *user, gp_mem_space space, int device, void *ptr);
    void *user;
} gp_allocator;

GP_API const gp_allocator *gp_default_allocator(void);

/* ---------------------------------------------------------------- context */

typedef struct gp_ctx gp_ctx;

typedef struct gp_ctx_params {
    gp_backend backend;            /* GP_BACKEND_AUTO by default */
    int device;                    /* CUDA device index, 0 by default */
    const gp_allocator *allocator; /* NULL: gp_default_allocator() */
} gp_ctx_params;

/* Creates a context. AUTO takes CUDA when a usable GPU is present, else CPU.
 * *out is NULL on failure. Statuses: NULL_POINTER, INVALID_BACKEND,
 * INVALID_DEVICE, BACKEND_UNAVAILABLE, OUT_OF_MEMORY, DEVICE_OUT_OF_MEMORY,
 * DEVICE_ERROR, INVALID_ARGUMENT (a custom allocator's block misaligned). */
GP_API gp_status gp_ctx_create(gp_ctx **out, gp_backend backend, int device);
GP_API gp_status gp_ctx_create_ex(gp_ctx **out, const gp_ctx_params *params);
/* Waits for the context's work, then frees it and its scratch. NULL: no-op.
 * After a sticky CUDA error (a kernel's fault ends the CUDA context: every
 * later call on the device fails with DEVICE_ERROR or LAUNCH_FAILED), free
 * every context of the device, call cudaDeviceReset() and create new ones. */
GP_API void gp_ctx_free(gp_ctx *ctx);

/* The backend the context runs on (never AUTO), and its device index. */
GP_API gp_backend gp_ctx_backend(const gp_ctx *ctx);
GP_API int gp_ctx_device(const gp_ctx *ctx);

/* Sets the CUDA stream (a cudaStream_t) the context's work is issued on;
 * NULL means the default stream. Synchronises the previous stream first, so
 * scratch memory is never shared between streams in flight. On a CPU
 * context only NULL is accepted (INVALID_ARGUMENT otherwise). */
GP_API gp_status gp_ctx_set_stream(gp_ctx *ctx, void *stream);
GP_API void *gp_ctx_stream(const gp_ctx *ctx);
/* Waits until all work issued on the context's stream has finished. */
GP_API gp_status gp_ctx_synchronize(gp_ctx *ctx);

/* The detail of the context's last failure ("" if none yet). The string is
 * owned by the context and valid until its next call. */
GP_API const char *gp_ctx_last_error(const gp_ctx *ctx);

/*
 * Workspace. By default the context grows and caches its own scratch memory.
 * A caller who wants no hidden allocation hands in a workspace (memory in the
 * context's space, 256-byte aligned), after asking each call's size with the
 * matching *_workspace_size function; a call whose workspace is too small
 * fails with WORKSPACE_TOO_SMALL before writing anything. Passing NULL, 0
 * returns to context-owned scratch. The context never frees a caller's
 * workspace. Synchronises the context's stream.
 */
GP_API gp_status gp_ctx_set_workspace(gp_ctx *ctx, void *workspace, size_t bytes);

/* ----------------------------------------------------------------- memory */

/* Allocates `bytes` in the context's space (device memory on CUDA), aligned
 * to at least 256 bytes by the default allocator (a custom allocator's
 * blocks come back as it aligns them, at least as the allocator's contract
 * above asks). bytes == 0 gives *ptr == NULL and OK. */
GP_API gp_status gp_malloc(gp_ctx *ctx, void **ptr, size_t bytes);
/* Frees memory from gp_malloc. NULL is a no-op. Synchronises. */
GP_API gp_status gp_free(gp_ctx *ctx, void *ptr);
/* Host -> context space. Synchronises: `src` may be reused on return. */
GP_API gp_status gp_copy_from_host(gp_ctx *ctx, void *dst, const void *src, size_t bytes);
/* Context space -> host. Synchronises: `dst` holds the data on return. */
GP_API gp_status gp_copy_to_host(gp_ctx *ctx, void *dst, const void *src, size_t bytes);
/* Within the context's space. Asynchronous on the stream. */
GP_API gp_status gp_copy(gp_ctx *ctx, void *dst, const void *src, size_t bytes);
/* Sets `bytes` bytes to `value` (0..255). Asynchronous on the stream. */
GP_API gp_status gp_memset(gp_ctx *ctx, void *dst, int value, size_t bytes);

/* ------------------------------------------------------------- primitives */

/* The most elements a call of n elements takes (2^60 - 1): no larger array of
 * 8-byte elements fits an address space. Beyond it, and for n < 0, each call
 * returns INVALID_SIZE. A backend may take fewer (CUDA selections: 2^38 - 1). */
#define GP_MAX_ELEMENTS ((int64_t)((UINT64_C(1) << 60) - 1))

typedef enum gp_primitive {
    GP_PRIM_REDUCE = 1,
    GP_PRIM_SCAN = 2,
    GP_PRIM_SELECT = 3,     /* gp_select_flagged, gp_select_if */
    GP_PRIM_PARTITION = 4,  /* gp_partition_flagged, gp_partition_if, gp_partition_copy_* */
    GP_PRIM_FILTER = 5,     /* gp_filter_running_max */
    GP_PRIM_TRANSPOSE = 6,
    GP_PRIM_COUNT = 7,      /* gp_count_if */
    GP_PRIM_HISTOGRAM = 8   /* gp_histogram_even, gp_histogram_edges */
} gp_primitive;

/*
 * 1 if the context's backend runs `prim` with `op` from `in` to `out` dtype,
 * 0 if not (unknown values included). Calling a primitive with a combination
 * this rejects fails with UNSUPPORTED_OP or UNSUPPORTED_DTYPE.
 * Primitives without an op (select, partition, filter, count, histogram)
 * take op = 0 and out = in. For transpose, which moves bytes, pass op = 0
 * and the dtype whose size is the element size (in = out).
 */
GP_API int gp_supports(const gp_ctx *ctx, gp_primitive prim, gp_op op, gp_dtype in, gp_dtype out);

/*
 * Reduction: out[0] = in[0] op in[1] op ... op in[n-1], computed in `out_t`.
 *
 * - `in` holds n elements of `in_t`; `out` one element of `out_t`, both in
 *   the context's space. The call is asynchronous on the stream.
 * - out_t is in_t, or a wider dtype of the same kind: a signed integer into
 *   a wider signed one, unsigned into wider unsigned, f32 into f64. Each
 *   element is converted to out_t before it is combined.
 * - Integer sum and product wrap in two's complement in out_t (an i32 sum
 *   into i32 is the true sum mod 2^32).
 * - AND, OR, XOR: integer dtypes only (UNSUPPORTED_OP for floats).
 * - Float MIN and MAX propagate NaN: any NaN in the input gives NaN. They
 *   order the zeros as IEEE 754-2019's minimum and maximum do, -0 < +0, so
 *   over both zeros MIN gives -0 and MAX +0 on every backend, whatever the
 *   order of combination.
 *   Float sums are computed in an unspecified order (a tree), so they may
 *   differ from a serial loop in the last bits; the error is within (n-1)
 *   ulp-scaled bounds of sum |x|. They start from +0, as CUB's do, so
 *   zeros that are all -0 sum to +0; a scan's prefix of them may be +0 or
 *   -0 (the backends differ: the CPU's keeps -0).
 * - n == 0 writes the op's identity in out_t: 0 for SUM, OR, XOR; 1 for
 *   PROD; all bits set for AND; for MIN the largest value of out_t (+inf for
 *   floats); for MAX the smallest (-inf for floats).
 * Statuses: NULL_POINTER (ctx, out, or in with n > 0), INVALID_SIZE (n < 0 or
 * above GP_MAX_ELEMENTS), INVALID_ARGUMENT (in or out not aligned to its
 * element size), INVALID_DTYPE, INVALID_OP, UNSUPPORTED_OP, UNSUPPORTED_DTYPE,
 * WORKSPACE_TOO_SMALL, OUT_OF_MEMORY, DEVICE_OUT_OF_MEMORY, DEVICE_ERROR,
 * LAUNCH_FAILED.
 */
GP_API gp_status gp_reduce(gp_ctx *ctx, const void *in, gp_dtype in_t, int64_t n, gp_op op,
                           void *out, gp_dtype out_t);

/* As gp_reduce, then copies the result to `host_out` (gp_dtype_size(out_t)
 * bytes of host memory). Synchronises. */
GP_API gp_status gp_reduce_to_host(gp_ctx *ctx, const void *in, gp_dtype in_t, int64_t n,
                                   gp_op op, void *host_out, gp_dtype out_t);

/* The workspace gp_reduce needs for these arguments (see gp_ctx_set_workspace). */
GP_API gp_status gp_reduce_workspace_size(const gp_ctx *ctx, gp_dtype in_t, int64_t n,
                                          gp_op op, gp_dtype out_t, size_t *bytes);

/* -------------------------------------------------------------- prefix scan */

/*
 * Inclusive scan: out[i] = in[0] op in[1] op ... op in[i], in out_t.
 * Ops, dtypes, widening, wrapping and NaN rules as gp_reduce: integer sums
 * and products wrap in out_t; float MIN/MAX propagate NaN (every output
 * from the first NaN on is NaN) and order the zeros, -0 < +0; float sums
 * and products are combined in an unspecified order, within the same
 * bounds as gp_reduce's, per prefix, and may differ between runs on CUDA.
 * In place is allowed (out == in, when out_t is in_t); other overlaps are
 * INVALID_ARGUMENT. in and out must be aligned to their element sizes.
 * n == 0 writes nothing (in and out may then be NULL). Asynchronous: on
 * CUDA one kernel launch, each element read once and written once.
 * Statuses: NULL_POINTER (ctx, or in or out with n > 0), INVALID_SIZE
 * (n < 0, above GP_MAX_ELEMENTS, or on CUDA above (2^31 - 1) * 2048, some
 * 4.4 * 10^12; also from gp_scan_workspace_size), INVALID_DTYPE, INVALID_OP,
 * UNSUPPORTED_OP, UNSUPPORTED_DTYPE, INVALID_ARGUMENT (overlap,
 * misaligned), WORKSPACE_TOO_SMALL, OUT_OF_MEMORY, DEVICE_OUT_OF_MEMORY,
 * DEVICE_ERROR, LAUNCH_FAILED.
 */
GP_API gp_status gp_scan_inclusive(gp_ctx *ctx, const void *in, gp_dtype in_t, int64_t n, gp_op op,
                                   void *out, gp_dtype out_t);
/*
 * Exclusive scan: out[0] = init, out[i] = init op in[0] op ... op in[i-1].
 * `init` is a host pointer to one out_t value, or NULL for the op's
 * identity. Otherwise as gp_scan_inclusive.
 */
GP_API gp_status gp_scan_exclusive(gp_ctx *ctx, const void *in, gp_dtype in_t, int64_t n, gp_op op,
                                   const void *init, void *out, gp_dtype out_t);
/* The workspace either scan needs (see gp_ctx_set_workspace). With a
 * caller's workspace, a CUDA scan that looks back over tiles (every scan
 * but one tile's worth and the small ones one thread-block cluster takes,
 * up to 2^16 elements, 2^17 for most 1-byte inputs) also clears its part
 * of it on the stream (one cudaMemsetAsync per call); with the context's
 * own scratch it does not. */
GP_API gp_status gp_scan_workspace_size(const gp_ctx *ctx, gp_dtype in_t, int64_t n, gp_op op,
                                        gp_dtype out_t, size_t *bytes);

/* ------------------------------------------------ selection and partition */

typedef enum gp_cmp {
    GP_CMP_LT = 1, /* x <  value */
    GP_CMP_LE = 2, /* x <= value */
    GP_CMP_GT = 3, /* x >  value */
    GP_CMP_GE = 4, /* x >= value */
    GP_CMP_EQ = 5, /* x == value */
    GP_CMP_NE = 6  /* x != value */
} gp_cmp;

/* "lt", "le", "gt", "ge", "eq", "ne"; NULL for an unknown value. */
GP_API const char *gp_cmp_name(gp_cmp c);
/* A name as gp_cmp_name prints it, in any case; GP_STATUS_INVALID_ARGUMENT
 * if the name is unknown. */
GP_API gp_status gp_cmp_from_name(const char *name, gp_cmp *out);

/*
 * Common to the calls below. Comparisons follow IEEE 754 for floats (a NaN
 * compares false with everything, except NE, which is true); `value` is a
 * host pointer to one element of the input dtype. The number of selected
 * items is written to `count` (one int64_t in the context's space, 8-byte
 * aligned, asynchronously) when count is not NULL, and to `host_count`
 * (host memory) when host_count is not NULL, in which case the call
 * synchronises. Both may be given. `out` must not overlap `in`, the flags
 * or `count`; in and out must be aligned to the element size. All are
 * stable: input order is kept. Selection writes out[0..count) only; the
 * rest of out is left as it was. n == 0 writes a count of 0. On CUDA a
 * selection or a partition into two buffers is one kernel launch, and so
 * is a partition into one up to the sizes below; n is limited to 2^38 - 1
 * there.
 * Statuses: NULL_POINTER (ctx; in, out or flags with n > 0; value; both
 * count and host_count), INVALID_SIZE (n < 0, above GP_MAX_ELEMENTS, or on
 * CUDA above 2^38 - 1; also from gp_select_workspace_size), INVALID_DTYPE,
 * INVALID_ARGUMENT (unknown cmp or flag bits, overlaps, in
 * or out off its element size, count off 8 bytes),
 * UNSUPPORTED_DTYPE, WORKSPACE_TOO_SMALL, OUT_OF_MEMORY,
 * DEVICE_OUT_OF_MEMORY, DEVICE_ERROR, LAUNCH_FAILED.
 */

/* Copies in[i] for which flags[i] != 0 (a u8 array of n, in the context's
 * space) to out, in order. out holds room for n elements. */
GP_API gp_status gp_select_flagged(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n,
                                   const uint8_t *flags, void *out, int64_t *count,
                                   int64_t *host_count);
/* Copies in[i] for which (in[i] cmp value) holds to out, in order. */
GP_API gp_status gp_select_if(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, gp_cmp cmp,
                              const void *value, void *out, int64_t *count, int64_t *host_count);
/*
 * Partition: out[0..count) holds the selected items in input order, then
 * out[count..n) the rejected items, also in their input order (CUB's
 * DevicePartition reverses the rejected part; gpuprim does not). Placing
 * the rejected items needs the total first, so on CUDA a partition_if
 * reads its input twice, and a partition_flagged its flags (or a bit an
 * element made from them). Small ones count inside their one launch;
 * larger ones are counted first by a launch of their own: by flags from
 * 16 MiB of 4- or 8-byte elements, 2^24 elements of 2 bytes and 2^23 of
 * 1; by comparison from 2^23 elements of 1 or 2 bytes, and for 4- or
 * 8-byte elements from 16 to 128 MiB, from 256 MiB, and where they fill
 * over half the L2 and fit in it (docs/DESIGN.md has each path). That
 * launch leaves a bit an element or a count a block in the workspace
 * (gp_select_workspace_size counts those bytes for any call of that
 * size). Reading the input twice is the price of the stable order: at
 * half selected partition_if costs 1.5 x the bytes of CUB's one read
 * (docs/perf/scan.md, round 29).
 */
GP_API gp_status gp_partition_flagged(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n,
                                      const uint8_t *flags, void *out, int64_t *count,
                                      int64_t *host_count);
GP_API gp_status gp_partition_if(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, gp_cmp cmp,
                                 const void *value, void *out, int64_t *count,
                                 int64_t *host_count);
/*
 * Partition into two buffers (std::partition_copy's contract, stable):
 * out_selected[0..count) gets the selected items and out_rejected[0..n -
 * count) the rejected ones, each in input order; the rest of both is left
 * as it was. Each needs room for n elements, may not overlap the other,
 * in, the flags or count, and must be aligned to the element size (an
 * INVALID_ARGUMENT otherwise, and NULL_POINTER for either one NULL with n >
 * 0). With the rejected items in a buffer of their own no total is needed
 * before writing, so on CUDA the call reads its input (and flags) once,
 * as a selection does, where gp_partition_* must read it twice. Statuses
 * as above.
 */
GP_API gp_status gp_partition_copy_flagged(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n,
                                           const uint8_t *flags, void *out_selected, void *out_rejected,
                                           int64_t *count, int64_t *host_count);
GP_API gp_status gp_partition_copy_if(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, gp_cmp cmp,
                                      const void *value, void *out_selected, void *out_rejected,
                                      int64_t *count, int64_t *host_count);

/* ------------------------------------------------- the running-max filter */

enum {
    GP_FILTER_DESCENDING = 1 /* keep x[i] <= the running minimum instead */
};

/*
 * The running-max filter ("Stalin sort", seed 002): keeps x[i] when x[i] >=
 * the maximum of all elements before it, so the survivors ascend
 * (non-strictly; equal values are kept). The first element is always kept.
 * With GP_FILTER_DESCENDING: keeps x[i] <= the running minimum.
 * NaN rule: a NaN is never kept and does not move the running maximum (a
 * leading NaN is dropped and the first non-NaN element is kept).
 * Writes the survivors to out (room for n elements, no overlap with in) and
 * their number as the selection calls do.
 */
GP_API gp_status gp_filter_running_max(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n,
                                       unsigned flags, void *out, int64_t *count,
                                       int64_t *host_count);

/* The workspace a selection, partition or filter call of n elements of t
 * needs (see gp_ctx_set_workspace): on CUDA, a status a tile and, for a
 * partition counted first, a bit an element or a count a block. With a
 * caller's workspace, a CUDA selection or partition of more than one tile
 * (4096 elements, 2048 of 8 bytes), or a filter of more than one chunk,
 * also clears its part of it on the stream (one cudaMemsetAsync); with the
 * context's own scratch it does not. */
GP_API gp_status gp_select_workspace_size(const gp_ctx *ctx, gp_dtype t, int64_t n, size_t *bytes);

/* -------------------------------------------------------------- transpose */

enum {
    GP_TRANSPOSE_NONE = 1,         /* do not transpose: only the flips below (rotate 180, flips) */
    GP_TRANSPOSE_REVERSE_ROWS = 2, /* reverse the order of the output's rows (flip vertically) */
    GP_TRANSPOSE_REVERSE_COLS = 4  /* reverse each output row (flip horizontally) */
};

/*
 * A 2-D layout operation on matrices of elements of elem_size bytes. Strides
 * are in elements. With flags 0 it is a transpose: out is cols x rows and
 * out[j][i] = in[i][j]. The REVERSE flags then reverse the output's rows or
 * columns: rotating by 90 degrees clockwise is a transpose with
 * REVERSE_COLS, by 270 a transpose with REVERSE_ROWS, by 180 NONE with both;
 * flipping is NONE with one REVERSE flag; NONE alone is a strided copy.
 */
typedef struct gp_transpose_params {
    size_t elem_size;         /* 1, 2, 4, 8 or 16 bytes */
    int64_t rows, cols;       /* of the input */
    int64_t in_stride;        /* elements between input rows; 0: cols */
    int64_t out_stride;       /* elements between output rows; 0: the output's width */
    int64_t batch;            /* number of matrices; 0 means 1 */
    int64_t in_batch_stride;  /* elements between input matrices; 0: rows x in_stride */
    int64_t out_batch_stride; /* elements between output matrices; 0: output rows x out_stride */
    unsigned flags;           /* GP_TRANSPOSE_* */
} gp_transpose_params;

/*
 * out = the transpose (or flip) of in, as described by p. Asynchronous.
 *
 * - Any shape: 0 x n (or a batch of 0 rows) writes nothing, and in and out
 *   may then be NULL. Elements are moved, never interpreted (NaNs and
 *   padding bytes come through bit for bit); bytes between rows and between
 *   matrices (strides larger than the width) are neither read nor written.
 * - in and out must be aligned to elem_size (16-byte elements: 16 bytes).
 * - Batches: matrix k of the input starts k x in_batch_stride elements into
 *   in; input matrices may overlap (they are only read). Output matrices may
 *   not share an element: each must lie past the previous one, or their
 *   rows interleave (out_batch_stride >= the output width and out_stride >=
 *   (batch - 1) x out_batch_stride + the output width).
 * - In place (in == out): a square matrix transposed or rotated, or any
 *   matrix flipped (NONE with REVERSE flags), with in_stride == out_stride
 *   and equal batch strides. Other overlaps of the spans of in and out
 *   (from their first to one past their last element) are refused, even
 *   where no element is shared.
 * Statuses: NULL_POINTER (ctx, p, or in or out for a non-empty matrix),
 * INVALID_SIZE (a negative size, stride or batch; spans past the address
 * space), INVALID_ARGUMENT (elem_size, unknown flags, a stride below the
 * width, misaligned pointers, overlapping outputs, the in-place rules
 * above), UNSUPPORTED_DTYPE (a backend without transpose), DEVICE_ERROR,
 * LAUNCH_FAILED. gp_supports(ctx, GP_PRIM_TRANSPOSE, 0, t, t) says whether
 * a dtype's element size runs (16-byte elements have no dtype and run
 * wherever transpose does).
 */
GP_API gp_status gp_transpose_ex(gp_ctx *ctx, const void *in, void *out, const gp_transpose_params *p);
/* Dense rows x cols matrix of elem_size-byte elements into cols x rows; in
 * place when in == out and rows == cols. As gp_transpose_ex otherwise. */
GP_API gp_status gp_transpose(gp_ctx *ctx, const void *in, void *out, size_t elem_size, int64_t rows,
                              int64_t cols);

/* ------------------------------------------------ counting and histograms */

/*
 * Counts the elements x with (x cmp value), compared in t (IEEE rules, as
 * the selection calls: NaN compares false, except with NE). `value` is a
 * host pointer to one element of t. The count goes to `count` (one int64_t
 * in the context's space, 8-byte aligned, written asynchronously) and/or
 * `host_count` (host memory; the call then synchronises). n == 0 counts 0.
 * `in` must be aligned to its element size.
 * Statuses: NULL_POINTER (ctx, value, in with n > 0, or both outputs),
 * INVALID_SIZE (n < 0 or above GP_MAX_ELEMENTS), INVALID_DTYPE,
 * INVALID_ARGUMENT (unknown cmp, misaligned pointers, count inside the
 * input), UNSUPPORTED_DTYPE,
 * WORKSPACE_TOO_SMALL, OUT_OF_MEMORY, DEVICE_OUT_OF_MEMORY, DEVICE_ERROR,
 * LAUNCH_FAILED.
 */
GP_API gp_status gp_count_if(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, gp_cmp cmp,
                             const void *value, int64_t *count, int64_t *host_count);
/* The workspace gp_count_if needs for n elements of t (see
 * gp_ctx_set_workspace): on CUDA, a partial count a block when more than
 * one block counts; 0 on the CPU. */
GP_API gp_status gp_count_workspace_size(const gp_ctx *ctx, gp_dtype t, int64_t n, size_t *bytes);

enum {
    GP_HISTOGRAM_ACCUMULATE = 1 /* add to the counts in hist instead of overwriting them */
};

/*
 * Histogram with `bins` bins (1 to 2^20) evenly spaced over [lower, upper):
 * x, converted to double, falls in bin floor((x - lower) * bins / (upper -
 * lower)), evaluated in double in that order with each operation rounded
 * (no fused multiply-add; where (x - lower) * bins overflows, as (x - lower)
 * / (upper - lower) * bins) and the result clamped to bins - 1 (rounding can
 * reach bins just below upper), for lower <= x < upper. The product comes
 * first so that integers fall in their own bins: 15 in bin 15 of 22 over
 * [0, 22), where 15 / 22 * 22 rounds to 14.999999999999998. Every backend gives
 * exactly these counts. Values outside the range, and NaN, are not counted.
 * hist is `bins` uint64_t counts in the context's space (8-byte aligned):
 * overwritten (all bins, n == 0 included), or added to with
 * GP_HISTOGRAM_ACCUMULATE. Asynchronous. `in` must be aligned to its
 * element size and hist must not overlap it.
 * Statuses: NULL_POINTER (ctx, hist, in with n > 0), INVALID_SIZE (n < 0 or
 * above GP_MAX_ELEMENTS, bins outside 1..2^20), INVALID_DTYPE,
 * INVALID_ARGUMENT (not lower < upper, either not finite, upper - lower
 * overflowing, unknown flags, misaligned or overlapping pointers),
 * UNSUPPORTED_DTYPE, WORKSPACE_TOO_SMALL,
 * OUT_OF_MEMORY, DEVICE_OUT_OF_MEMORY, DEVICE_ERROR, LAUNCH_FAILED.
 */
GP_API gp_status gp_histogram_even(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, int64_t bins,
                                   double lower, double upper, uint64_t *hist, unsigned flags);
/*
 * Histogram over bins given by bins + 1 ascending edges (elements of the
 * input dtype, in the context's space): bin i holds edges[i] <= x <
 * edges[i+1], compared in t. Values outside [edges[0], edges[bins]) and NaN
 * are not counted; infinite edges are allowed. Edges that do not ascend
 * strictly (or hold a NaN) give INVALID_ARGUMENT: the check reads them on
 * the host, so on CUDA the call copies them back and synchronises. Otherwise
 * as gp_histogram_even (hist must not overlap the edges either).
 */
GP_API gp_status gp_histogram_edges(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, int64_t bins,
                                    const void *edges, uint64_t *hist, unsigned flags);
/* The workspace either histogram of n elements of t into this many bins
 * needs (see gp_ctx_set_workspace); 0 on CUDA. */
GP_API gp_status gp_histogram_workspace_size(const gp_ctx *ctx, gp_dtype t, int64_t n, int64_t bins,
                                             size_t *bytes);

#ifdef __cplusplus
}
#endif

#endif /* GPUPRIM_H */
