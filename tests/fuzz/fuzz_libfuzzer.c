/* libFuzzer's entry points for one target, chosen at build time with
 * -DGPF_TARGET=gpf_npy (tests/fuzz/CMakeLists.txt builds one binary per
 * target with clang's -fsanitize=fuzzer). */
#include "fuzz_targets.h"

#ifndef GPF_TARGET
#error "GPF_TARGET names the target, e.g. -DGPF_TARGET=gpf_npy"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gpf_setup(0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GPF_TARGET(data, size);
    return 0;
}
