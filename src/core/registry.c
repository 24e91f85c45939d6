/*
 * Backend registry and the default allocator. The only place in core that
 * names the backends; each backend defines its table in its own directory.
 */
#include "gp_internal.h"

#include <stdlib.h>
#include <string.h>

extern const gp_backend_vtable gp_cpu_backend;
#ifdef GPUPRIM_HAVE_CUDA
extern const gp_backend_vtable gp_cuda_backend;
#endif

const gp_backend_vtable *gp_backend_table(gp_backend b)
{
    switch (b) {
    case GP_BACKEND_CPU: return &gp_cpu_backend;
#ifdef GPUPRIM_HAVE_CUDA
    case GP_BACKEND_CUDA: return &gp_cuda_backend;
#endif
    default: return NULL;
    }
}

int gp_backend_built(gp_backend b) { return gp_backend_table(b) != NULL; }

gp_status gp_backend_probe(gp_backend b, char *detail, size_t detail_size)
{
    if (detail && detail_size) detail[0] = '\0';
    if (!gp_backend_name(b) || b == GP_BACKEND_AUTO) return GP_STATUS_INVALID_BACKEND;
    const gp_backend_vtable *vt = gp_backend_table(b);
    if (!vt) {
        if (detail && detail_size)
            strncpy(detail, "not built into this library", detail_size - 1), detail[detail_size - 1] = '\0';
        return GP_STATUS_BACKEND_UNAVAILABLE;
    }
    return vt->probe(detail, detail_size);
}

int gp_device_count(void)
{
    const gp_backend_vtable *vt = gp_backend_table(GP_BACKEND_CUDA);
    return vt ? vt->device_count() : 0;
}

gp_status gp_device_get_info(int device, gp_device_info *info)
{
    if (!info) return GP_STATUS_NULL_POINTER;
    const gp_backend_vtable *vt = gp_backend_table(GP_BACKEND_CUDA);
    if (!vt) return GP_STATUS_BACKEND_UNAVAILABLE;
    if (device < 0 || device >= vt->device_count()) return GP_STATUS_INVALID_DEVICE;
    return vt->device_info(device, info);
}

/* ------------------------------------------------------ default allocator */

enum { GP_HOST_ALIGN = 256 };

static void *default_alloc(void *user, gp_mem_space space, int device, size_t bytes)
{
    (void)user;
    if (bytes == 0) bytes = 1;
    if (space == GP_MEM_HOST) {
        size_t rounded = (bytes + GP_HOST_ALIGN - 1) / GP_HOST_ALIGN * GP_HOST_ALIGN;
        if (rounded < bytes) return NULL; /* overflow */
        return aligned_alloc(GP_HOST_ALIGN, rounded);
    }
    const gp_backend_vtable *vt = gp_backend_table(GP_BACKEND_CUDA);
    return vt ? vt->device_alloc(device, bytes) : NULL;
}

static void default_free(void *user, gp_mem_space space, int device, void *ptr)
{
    (void)user;
    if (!ptr) return;
    if (space == GP_MEM_HOST) {
        free(ptr);
        return;
    }
    const gp_backend_vtable *vt = gp_backend_table(GP_BACKEND_CUDA);
    if (vt) vt->device_free(device, ptr);
}

static const gp_allocator default_allocator = {default_alloc, default_free, NULL};

const gp_allocator *gp_default_allocator(void) { return &default_allocator; }
