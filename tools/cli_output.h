/*
 * Writing arrays: a .npy header and values in little-endian order, or text
 * with one number a line, into a file that appears only when complete
 * (written to a file with no name in the same folder, or where the file
 * system has none under a temporary name, then renamed into place), or into
 * a device, a pipe (/dev/null, a FIFO) or the tool's standard output in
 * place.
 */
#ifndef CLI_OUTPUT_H
#define CLI_OUTPUT_H

#include "gpuprim.h"

#include <stdint.h>
#include <stdio.h>

typedef struct cli_outfile {
    FILE *fp;
    char *path;      /* the final name */
    char *temp_path; /* the temporary name, until cli_outfile_commit; NULL: written in place (a device, pipe or stdout) */
    int unnamed;     /* the bytes go to a file with no name (O_TMPFILE), linked under temp_path at commit */
    int held_fd;     /* the unnamed file between its stream's close and its link; -1 */
} cli_outfile;

/* Creates the file with no name, or the temporary one, next to `path`,
 * with the mode of the file it will replace; a file that exists but may not
 * be written is refused (as a plain open refuses it), and so is a folder. A
 * device or pipe is opened in place, and so is the tool's standard output
 * or error where path is "-" or leads to it (/dev/stdout). Prints the
 * error; returns an exit code. */
int cli_outfile_open(cli_outfile *f, const char *path);
/* Whether an output named `path` would be written to the tool's standard
 * output: "-", or a path that leads to what stdout has open (/dev/stdout, a
 * link to it, the file stdout was redirected to), as cli_outfile_open finds
 * it; never the null device, which keeps nothing. */
int cli_output_is_stdout(const char *path);
/* Flushes, closes and renames into place; on any error leaves nothing of
 * it, prints the error and returns CLI_EXIT_FAILURE. */
int cli_outfile_commit(cli_outfile *f);
/* Closes and removes what was written (a failed run leaves nothing). */
void cli_outfile_abort(cli_outfile *f);
/* Commits a and b so that two outputs appear together: both are written
 * out before either is renamed; where a's rename fails b is removed, and
 * where b's fails after it, a's old file is put back (kept under a second
 * name, a hard link, until b is in place) or a new a removed. Only where
 * that cannot be done (no hard links; a folder that no longer lets a name
 * change) does one stay, and the error says so. A signal that ends the tool
 * between the two renames undoes a too. A zeroed cli_outfile (never
 * opened) stands for none. */
int cli_outfile_commit_pair(cli_outfile *a, cli_outfile *b);
/* Whether two output paths name one entry of one folder, however spelled
 * (p.txt, ./p.txt, d/../p.txt, a link to the folder): the second rename
 * would replace the first file. Links to a file are entries of their own,
 * which rename replaces, not the file they name. */
int cli_outputs_collide(const char *a, const char *b);

/* The .npy version 1.0 header of a 1-D little-endian array. */
int cli_npy_write_header(FILE *fp, gp_dtype t, int64_t n);
/* The .npy version 1.0 header of a C-order array of any descr and shape. */
int cli_npy_write_header_nd(FILE *fp, const char *descr, int ndim, const int64_t *dims);
/* `count` values from host order to little-endian bytes. Returns 0 or -1. */
int cli_npy_write_values(FILE *fp, const void *values, gp_dtype t, size_t count);
/* One number a line (cli_format_value). Returns 0 or -1. */
int cli_text_write_values(FILE *fp, const void *values, gp_dtype t, size_t count);

/* 1 on a little-endian host; the byte order of .npy data we read and write. */
int cli_host_is_little_endian(void);
/* Reverses the bytes of each of `count` elements of `size` bytes. */
void cli_swap_bytes(void *data, size_t size, size_t count);

#endif /* CLI_OUTPUT_H */
