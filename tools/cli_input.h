/*
 * Reading arrays for the verbs: NumPy .npy files and text files with one
 * number a line, from a path or "-" (standard input). Errors are printed
 * ("gpuprim VERB: FILE: what is wrong") and the loaders return an exit code.
 */
#ifndef CLI_INPUT_H
#define CLI_INPUT_H

#include "gpuprim.h"

#include <stddef.h>
#include <stdint.h>

typedef struct cli_array {
    gp_dtype dtype;
    int64_t n;
    void *data;      /* n values in host byte order; may point inside `storage` */
    void *storage;   /* the block to free */
    const char *format; /* "npy" or "text" */
} cli_array;

void cli_array_free(cli_array *a);

/* Loads `path`. It is read as .npy when its name ends in ".npy" or its
 * content starts with the .npy magic, else as text. `text_dtype` is the
 * dtype of text input (0: i64, or f64 when any number looks like a float);
 * with .npy input, a non-zero `text_dtype` (--dtype) must match the file's
 * dtype. */
int cli_load_array(const char *path, gp_dtype text_dtype, cli_array *out);
/* As cli_load_array, but a .npy file is taken in whatever dtype it holds
 * (text in text_dtype): for a file whose dtype the caller compares with
 * something other than --dtype (histogram --edges, with the input's). */
int cli_load_array_any(const char *path, gp_dtype text_dtype, cli_array *out);

struct cli_args;
/* For the verbs that apply an op (reduce, scan): parses --op (required and
 * present: the caller has checked), --dtype for text input and --out-dtype,
 * then loads the first positional file. *out_t defaults to the input's
 * dtype. On failure nothing is left allocated. */
int cli_load_op_input(const struct cli_args *args, gp_op *op, gp_dtype *out_t, cli_array *a);

/* Parsers over a whole file held in memory (`buf` has len + 1 bytes; the
 * parsers may write into it). `name` is used in messages. */
int cli_parse_npy(unsigned char *buf, size_t len, const char *name, cli_array *out);
int cli_parse_text(char *buf, size_t len, const char *name, gp_dtype dtype, cli_array *out);
/* As cli_parse_text with the dtype inferred, for a flags file, which has no
 * --dtype to suggest when a value is out of range. */
int cli_parse_flags_text(char *buf, size_t len, const char *name, cli_array *out);

/* Reads all of `path` ("-": standard input) into a malloc'd block with one
 * spare byte after `len`; *name is what messages call it. Errors printed. */
int cli_read_file(const char *path, unsigned char **buf, size_t *len, const char **name);

/* A .npy header of any dtype and shape, for verbs that move bytes without
 * reading them (transpose). */
typedef struct cli_npy_header {
    char descr[32]; /* as written: "<f4", "|u1", "<c16", "|S5", ... */
    int fortran_order;
    int ndim;
    int64_t dims[8];
    int shape_too_large;
    size_t data_offset; /* the data starts here */
} cli_npy_header;
/* Checks the magic and version and parses the header; errors printed. */
int cli_npy_read_header(const unsigned char *buf, size_t len, const char *name, cli_npy_header *out);

#endif /* CLI_INPUT_H */
