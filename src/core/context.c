/* Context lifetime, stream, scratch memory and the memory calls. */
#include "gp_internal.h"

#include <string.h>

size_t gp_alloc_alignment(gp_mem_space space) { return space == GP_MEM_DEVICE ? 256 : 64; }

void *gp_ctx_alloc(gp_ctx *ctx, gp_mem_space space, size_t bytes)
{
    void *p = ctx->alloc.alloc(ctx->alloc.user, space, ctx->device, bytes);
    ctx->misaligned_block = p && !gp_aligned(p, gp_alloc_alignment(space));
    if (!ctx->misaligned_block) return p;
    ctx->alloc.free(ctx->alloc.user, space, ctx->device, p);
    return NULL;
}

gp_status gp_ctx_alloc_failed(gp_ctx *ctx, gp_mem_space space, size_t bytes, const char *what)
{
    if (ctx->misaligned_block)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT,
                            "the allocator's block for %s (%zu bytes) is not %zu-byte aligned, as gpuprim.h asks", what,
                            bytes, gp_alloc_alignment(space));
    return gp_set_error(ctx, space == GP_MEM_DEVICE ? GP_STATUS_DEVICE_OUT_OF_MEMORY : GP_STATUS_OUT_OF_MEMORY,
                        "could not allocate %s (%zu bytes)", what, bytes);
}

void gp_ctx_dealloc(gp_ctx *ctx, gp_mem_space space, void *ptr)
{
    if (ptr) ctx->alloc.free(ctx->alloc.user, space, ctx->device, ptr);
}

gp_status gp_ctx_create(gp_ctx **out, gp_backend backend, int device)
{
    gp_ctx_params p = {backend, device, NULL};
    return gp_ctx_create_ex(out, &p);
}

static gp_backend resolve_auto(void)
{
    return gp_backend_probe(GP_BACKEND_CUDA, NULL, 0) == GP_STATUS_OK ? GP_BACKEND_CUDA
                                                                      : GP_BACKEND_CPU;
}

gp_status gp_ctx_create_ex(gp_ctx **out, const gp_ctx_params *params)
{
    if (!out) return GP_STATUS_NULL_POINTER;
    *out = NULL;
    if (!params) return GP_STATUS_NULL_POINTER;
    gp_backend b = params->backend;
    if (!gp_backend_name(b)) return GP_STATUS_INVALID_BACKEND;
    if (b == GP_BACKEND_AUTO) b = resolve_auto();
    const gp_backend_vtable *vt = gp_backend_table(b);
    if (!vt) return GP_STATUS_BACKEND_UNAVAILABLE;
    gp_status s = vt->probe(NULL, 0);
    if (s != GP_STATUS_OK) return s;
    if (b == GP_BACKEND_CUDA && (params->device < 0 || params->device >= vt->device_count()))
        return GP_STATUS_INVALID_DEVICE;
    if (b == GP_BACKEND_CPU && params->device != 0) return GP_STATUS_INVALID_DEVICE;

    const gp_allocator *a = params->allocator ? params->allocator : gp_default_allocator();
    if (!a->alloc || !a->free) return GP_STATUS_NULL_POINTER;
    gp_ctx *ctx = (gp_ctx *)a->alloc(a->user, GP_MEM_HOST, params->device, sizeof *ctx);
    if (!ctx) return GP_STATUS_OUT_OF_MEMORY;
    if (!gp_aligned(ctx, gp_alloc_alignment(GP_MEM_HOST))) {
        a->free(a->user, GP_MEM_HOST, params->device, ctx);
        return GP_STATUS_INVALID_ARGUMENT;
    }
    memset(ctx, 0, sizeof *ctx);
    ctx->backend = b;
    ctx->device = params->device;
    ctx->space = b == GP_BACKEND_CUDA ? GP_MEM_DEVICE : GP_MEM_HOST;
    ctx->vt = vt;
    ctx->alloc = *a;
    s = vt->ctx_init(ctx);
    if (s != GP_STATUS_OK) {
        a->free(a->user, GP_MEM_HOST, params->device, ctx);
        return s;
    }
    *out = ctx;
    return GP_STATUS_OK;
}

static void release_scratch(gp_ctx *ctx)
{
    gp_ctx_dealloc(ctx, ctx->space, ctx->scratch);
    ctx->scratch = NULL;
    ctx->scratch_bytes = 0;
}

void gp_ctx_free(gp_ctx *ctx)
{
    if (!ctx) return;
    ctx->vt->synchronize(ctx);
    release_scratch(ctx);
    ctx->vt->ctx_fini(ctx);
    gp_allocator a = ctx->alloc;
    a.free(a.user, GP_MEM_HOST, ctx->device, ctx);
}

gp_backend gp_ctx_backend(const gp_ctx *ctx) { return ctx ? ctx->backend : GP_BACKEND_AUTO; }
int gp_ctx_device(const gp_ctx *ctx) { return ctx ? ctx->device : -1; }
void *gp_ctx_stream(const gp_ctx *ctx) { return ctx ? ctx->stream : NULL; }
const char *gp_ctx_last_error(const gp_ctx *ctx) { return ctx ? ctx->last_error : ""; }

gp_status gp_ctx_set_stream(gp_ctx *ctx, void *stream)
{
    if (!ctx) return GP_STATUS_NULL_POINTER;
    if (ctx->backend == GP_BACKEND_CPU && stream)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "a CPU context has no streams");
    gp_status s = ctx->vt->synchronize(ctx);
    if (s != GP_STATUS_OK) return s;
    s = ctx->vt->set_stream(ctx, stream);
    if (s == GP_STATUS_OK) ctx->stream = stream;
    return s;
}

gp_status gp_ctx_synchronize(gp_ctx *ctx)
{
    if (!ctx) return GP_STATUS_NULL_POINTER;
    return ctx->vt->synchronize(ctx);
}

gp_status gp_ctx_set_workspace(gp_ctx *ctx, void *workspace, size_t bytes)
{
    if (!ctx) return GP_STATUS_NULL_POINTER;
    if (!workspace && bytes)
        return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "workspace is NULL but bytes is %zu", bytes);
    if (((uintptr_t)workspace & 255u) != 0)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "workspace must be 256-byte aligned");
    gp_status s = ctx->vt->synchronize(ctx);
    if (s != GP_STATUS_OK) return s;
    ctx->have_user_ws = workspace != NULL;
    ctx->user_ws = workspace;
    ctx->user_ws_bytes = workspace ? bytes : 0;
    if (ctx->have_user_ws) release_scratch(ctx);
    return GP_STATUS_OK;
}

gp_status gp_ctx_scratch(gp_ctx *ctx, size_t bytes, void **ws)
{
    *ws = NULL;
    if (bytes == 0) return GP_STATUS_OK;
    if (ctx->have_user_ws) {
        if (bytes > ctx->user_ws_bytes)
            return gp_set_error(ctx, GP_STATUS_WORKSPACE_TOO_SMALL,
                                "the call needs %zu bytes of workspace, the caller gave %zu", bytes,
                                ctx->user_ws_bytes);
        *ws = ctx->user_ws;
        return GP_STATUS_OK;
    }
    if (bytes > ctx->scratch_bytes) {
        /* Earlier calls may still read the old block on the stream. */
        gp_status s = ctx->vt->synchronize(ctx);
        if (s != GP_STATUS_OK) return s;
        release_scratch(ctx);
        size_t grown = bytes < 4096 ? 4096 : bytes + bytes / 4;
        void *p = gp_ctx_alloc(ctx, ctx->space, grown);
        if (!p) return gp_ctx_alloc_failed(ctx, ctx->space, grown, "scratch");
        ctx->scratch = p;
        ctx->scratch_bytes = grown;
    }
    *ws = ctx->scratch;
    return GP_STATUS_OK;
}

/* ------------------------------------------------------------------ memory */

gp_status gp_malloc(gp_ctx *ctx, void **ptr, size_t bytes)
{
    if (!ctx || !ptr) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "gp_malloc: ctx or ptr is NULL");
    *ptr = NULL;
    if (bytes == 0) return GP_STATUS_OK;
    void *p = gp_ctx_alloc(ctx, ctx->space, bytes);
    if (!p) return gp_ctx_alloc_failed(ctx, ctx->space, bytes, "gp_malloc");
    *ptr = p;
    return GP_STATUS_OK;
}

gp_status gp_free(gp_ctx *ctx, void *ptr)
{
    if (!ctx) return GP_STATUS_NULL_POINTER;
    if (!ptr) return GP_STATUS_OK;
    gp_status s = ctx->vt->synchronize(ctx);
    gp_ctx_dealloc(ctx, ctx->space, ptr);
    return s;
}

static gp_status copy_checked(gp_ctx *ctx, void *dst, const void *src, size_t bytes, gp_copy_kind k)
{
    if (!ctx) return GP_STATUS_NULL_POINTER;
    if (bytes == 0) return GP_STATUS_OK;
    if (!dst || !src) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "copy: dst or src is NULL");
    return ctx->vt->copy(ctx, dst, src, bytes, k);
}

gp_status gp_copy_from_host(gp_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    return copy_checked(ctx, dst, src, bytes, GP_COPY_HOST_TO_CTX);
}

gp_status gp_copy_to_host(gp_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    return copy_checked(ctx, dst, src, bytes, GP_COPY_CTX_TO_HOST);
}

gp_status gp_copy(gp_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    return copy_checked(ctx, dst, src, bytes, GP_COPY_CTX_TO_CTX);
}

gp_status gp_memset(gp_ctx *ctx, void *dst, int value, size_t bytes)
{
    if (!ctx) return GP_STATUS_NULL_POINTER;
    if (bytes == 0) return GP_STATUS_OK;
    if (!dst) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "gp_memset: dst is NULL");
    if (value < 0 || value > 255)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "gp_memset: value %d is not a byte", value);
    return ctx->vt->memset(ctx, dst, value, bytes);
}

/* ------------------------------------------------------------ count outputs */

gp_status gp_count_target(gp_ctx *ctx, int64_t *count, int64_t *host_count, int64_t **target)
{
    if (!count && !host_count)
        return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "both count and host_count are NULL");
    *target = count ? count : (int64_t *)ctx->result_slot;
    return GP_STATUS_OK;
}

gp_status gp_count_finish(gp_ctx *ctx, const int64_t *target, int64_t *host_count)
{
    if (!host_count) return GP_STATUS_OK;
    return ctx->vt->copy(ctx, host_count, target, sizeof *host_count, GP_COPY_CTX_TO_HOST);
}

bool gp_overlaps(const void *a, size_t abytes, const void *b, size_t bbytes)
{
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return abytes && bbytes && pa < pb + bbytes && pb < pa + abytes;
}

bool gp_aligned(const void *p, size_t align) { return align == 0 || (uintptr_t)p % align == 0; }
