/* cuda_scan.cu compiled for the CPU emulation (cuda_emu.h). */
#include "cuda_emu.h"

#include "cuda_scan.cu"

static const int registered = (gp_emu::register_thunk("scan_kernel", gp_emu::call_kernel<gp_cuda::scan_params>), 0);
