/*
 * Array files for the verbs that write arrays (scan, select, partition,
 * stalin): saving a result by its file name, and loading a flags file.
 */
#ifndef CLI_ARRAYS_H
#define CLI_ARRAYS_H

#include "cli_output.h"
#include "gpuprim.h"

#include <stdint.h>

/* Writes n values of t into f, opened for `path`: .npy when the name ends
 * in ".npy" (any case), else text, and flushes them, so that a full disk
 * shows before any rename. On failure f is abandoned and the error
 * printed; returns an exit code. */
int cli_write_array(cli_outfile *f, const char *path, const void *data, gp_dtype t, int64_t n);

/* Writes n values of t to `path` as cli_write_array does (.npy by the
 * name, else text with one number a line). The file appears only when
 * complete. Errors printed; returns an exit code. */
int cli_save_array(const char *path, const void *data, gp_dtype t, int64_t n);

/* Two arrays of t, each as cli_save_array writes one: both are written
 * whole before either file appears (a rename each, last), so a failed
 * write leaves both names as they were. */
int cli_save_array_pair(const char *path_a, const void *a, int64_t na, const char *path_b, const void *b, int64_t nb,
                        gp_dtype t);

/* Loads a flags file into *flags (malloc'd, n bytes, each 0 or 1): a 1-D
 * .npy of booleans (|b1) or of any integer dtype, or text integers; a
 * value is a flag when it is not zero. Errors printed; returns an exit code. */
int cli_load_flags(const char *path, uint8_t **flags, int64_t *n);

#endif
