/*
 * The result files of `gpuprim bench` and `gpuprim ladder` (--csv, --json,
 * --plot): opened before the run, so that a name that cannot be written,
 * or two that name one file, fail at once rather than after minutes of
 * measuring; each appears only when written whole (cli_outfile, which
 * also removes the temporary files on an interrupt).
 */
#ifndef GP_BENCH_OUTPUTS_H
#define GP_BENCH_OUTPUTS_H

#include "cli_output.h"

typedef struct {
    const char *option; /* "--csv", for the messages */
    const char *path;   /* NULL: not asked for */
    cli_outfile file;
} gpb_output;

/* Refuses two outputs that name one file, then opens each asked for; on
 * failure nothing stays open. Prints why; GPB_OK or GPB_ERROR. */
int gpb_outputs_open(gpb_output *out, int n);
/* Removes the files of outputs not yet finished. */
void gpb_outputs_abort(gpb_output *out, int n);
/* The stream to write o into; errno cleared, so that a failed write's
 * reason is the one gpb_output_finish prints. */
FILE *gpb_output_stream(gpb_output *o);
/* After the writer of o (one asked for, so open): renames o into place
 * where the writer returned GPB_OK and every byte reached the file, else
 * removes it (a write error printed with its reason; a writer's own
 * failure it printed). */
int gpb_output_finish(gpb_output *o, int write_rc);

#endif
