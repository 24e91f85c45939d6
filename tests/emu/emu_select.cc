/* cuda_select.cu compiled for the CPU emulation (cuda_emu.h). */
#include "cuda_emu.h"

#include "cuda_select.cu"

static const int registered = (gp_emu::register_thunk("select_kernel", gp_emu::call_kernel<gp_cuda::select_params>),
                               gp_emu::register_thunk("filter_kernel", gp_emu::call_kernel<gp_cuda::filter_params>), 0);
