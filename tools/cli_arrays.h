/*
 * Array files for the verbs that write arrays (scan, select, partition,
 * stalin): saving a result by its file name, and loading a flags file.
 */
#ifndef CLI_ARRAYS_H
#define CLI_ARRAYS_H

#include "gpuprim.h"

#include <stdint.h>

/* Writes n values of t to `path`: .npy when the name ends in ".npy", else
 * text with one number a line. The file appears only when complete. Errors
 * printed; returns an exit code. */
int cli_save_array(const char *path, const void *data, gp_dtype t, int64_t n);

/* Loads a flags file into *flags (malloc'd, n bytes, each 0 or 1): a 1-D
 * .npy of booleans (|b1) or of any integer dtype, or text integers; a
 * value is a flag when it is not zero. Errors printed; returns an exit code. */
int cli_load_flags(const char *path, uint8_t **flags, int64_t *n);

#endif
