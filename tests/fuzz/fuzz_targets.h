/*
 * Fuzz targets for the tool's input readers: .npy arrays, text arrays,
 * flags files and PNG images, whatever bytes a user hands them; for its
 * command lines; and for the library's calls themselves. Each target
 * takes one input, must not crash, leak or read outside it, and checks
 * what it can of a success: sizes inside the input, and a round trip
 * (written back by the tool's own writer, read again, the same values).
 *
 * Two drivers: fuzz_replay.c (a seeded mutation run, a ctest on every
 * build) and fuzz_libfuzzer.c (clang's libFuzzer, `make fuzz`).
 */
#ifndef GP_FUZZ_TARGETS_H
#define GP_FUZZ_TARGETS_H

#include "gpuprim.h"

#include <stddef.h>
#include <stdint.h>

/* Each returns 1 when the reader took the input, 0 when it refused it. */
typedef int (*gpf_target)(const uint8_t *data, size_t size);

int gpf_npy(const uint8_t *data, size_t size);
int gpf_text(const uint8_t *data, size_t size);
int gpf_flags(const uint8_t *data, size_t size);
int gpf_png(const uint8_t *data, size_t size);
/* The tool's command lines (fuzz_args.c): the first byte picks the verb,
 * gpf_args_choice("scan") gives it ("bench" and "ladder": their own command
 * lines; an unknown name: their comma lists). */
int gpf_args(const uint8_t *data, size_t size);
int gpf_args_choice(const char *verb);
/* The library's calls with arguments valid or not, against gpuprim.h's
 * contract and the serial reference (fuzz_api.c). Its context is made on
 * the first input, on the backend gpf_api_backend chose (the CPU's if
 * none was chosen). */
int gpf_api(const uint8_t *data, size_t size);
void gpf_api_backend(gp_backend b);

/* Bit-exact, but any NaN equals any NaN of the same dtype (text keeps no
 * NaN payloads). */
int gpf_same_value(const void *a, const void *b, gp_dtype t);

/* Makes the flags target's scratch file; with `quiet`, also sends the
 * tool's error messages (every refused input prints one) to /dev/null
 * (libFuzzer keeps its own reports on stderr: it is given -close_fd_mask=2
 * instead). Call once. */
void gpf_setup(int quiet);

/* A broken property: prints it and aborts (the drivers report the input). */
void gpf_violation(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

#endif
