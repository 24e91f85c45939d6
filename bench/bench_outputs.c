/* Result files of the bench and the ladders: see bench_outputs.h. */
#include "bench_outputs.h"

#include "bench.h"
#include "cli_common.h"

#include <errno.h>
#include <string.h>

int gpb_outputs_open(gpb_output *out, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (out[i].path && out[j].path && cli_outputs_collide(out[i].path, out[j].path)) {
                cli_error("%s %s and %s %s name the same file: each needs its own", out[j].option, out[j].path,
                          out[i].option, out[i].path);
                return GPB_ERROR;
            }
    /* The table goes to standard output: a file there would mix with it. */
    for (int i = 0; i < n; i++)
        if (out[i].path && cli_output_is_stdout(out[i].path)) {
            cli_error("%s %s writes to standard output, where the table goes: name a file", out[i].option,
                      out[i].path);
            return GPB_ERROR;
        }
    for (int i = 0; i < n; i++)
        if (out[i].path && cli_outfile_open(&out[i].file, out[i].path) != CLI_EXIT_OK) {
            gpb_outputs_abort(out, i);
            return GPB_ERROR;
        }
    return GPB_OK;
}

void gpb_outputs_abort(gpb_output *out, int n)
{
    for (int i = 0; i < n; i++)
        if (out[i].path && out[i].file.fp) cli_outfile_abort(&out[i].file);
}

FILE *gpb_output_stream(gpb_output *o)
{
    errno = 0;
    return o->file.fp;
}

int gpb_output_finish(gpb_output *o, int write_rc)
{
    cli_outfile *f = &o->file;
    if (write_rc == GPB_OK && fflush(f->fp) == 0 && !ferror(f->fp))
        return cli_outfile_commit(f) == CLI_EXIT_OK ? GPB_OK : GPB_ERROR;
    const int e = ferror(f->fp) ? (errno ? errno : EIO) : 0;
    cli_outfile_abort(f);
    if (e) cli_error("writing %s failed: %s", o->path, strerror(e));
    return GPB_ERROR;
}
