/*
 * cuBLAS, loaded when a bench case first needs it (dlopen), not linked: the
 * gpuprim tool then starts without mapping cuBLAS's several hundred MB, and
 * runs where cuBLAS is absent (the transpose bench then has no cuBLAS peer
 * and says so). The header gives the types; the functions come from dlsym.
 */
#ifndef GPB_CUBLAS_CUH
#define GPB_CUBLAS_CUH

#include <cublas_v2.h>
#include <dlfcn.h>
#include <stdio.h>

struct gpb_cublas_api {
    decltype(&cublasCreate_v2) create;
    decltype(&cublasDestroy_v2) destroy;
    decltype(&cublasSetStream_v2) set_stream;
    decltype(&cublasSgeam) sgeam;
    decltype(&cublasDgeam) dgeam;
    decltype(&cublasZgeam) zgeam;
};

/* The loaded API, or NULL (with the reason in `why`) when cuBLAS cannot be
 * loaded. Loads once; the library stays loaded for the process. */
static inline const gpb_cublas_api *gpb_cublas(char *why, size_t why_size)
{
    static gpb_cublas_api api;
    static int state; /* 0 not tried, 1 loaded, -1 failed */
    static char reason[160];
    if (state == 0) {
        void *lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
        if (!lib) lib = dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL);
        state = -1;
        if (!lib) {
            snprintf(reason, sizeof reason, "cuBLAS could not be loaded: %s", dlerror());
        } else {
            api.create = (decltype(api.create))dlsym(lib, "cublasCreate_v2");
            api.destroy = (decltype(api.destroy))dlsym(lib, "cublasDestroy_v2");
            api.set_stream = (decltype(api.set_stream))dlsym(lib, "cublasSetStream_v2");
            api.sgeam = (decltype(api.sgeam))dlsym(lib, "cublasSgeam");
            api.dgeam = (decltype(api.dgeam))dlsym(lib, "cublasDgeam");
            api.zgeam = (decltype(api.zgeam))dlsym(lib, "cublasZgeam");
            if (api.create && api.destroy && api.set_stream && api.sgeam && api.dgeam && api.zgeam)
                state = 1;
            else
                snprintf(reason, sizeof reason, "cuBLAS lacks a geam entry point");
        }
    }
    if (state < 0 && why && why_size) snprintf(why, why_size, "%s", reason);
    return state > 0 ? &api : nullptr;
}

#endif
