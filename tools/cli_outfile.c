/*
 * Output files that appear only when complete: the bytes go to a temporary
 * name in the same directory (so the final rename stays on one file system
 * and is atomic), and a failure or an interrupt removes it.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_common.h"
#include "cli_output.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The temporary file of the output being written, removed on SIGINT or
 * SIGTERM. One output at a time is all the tool needs. */
static char *volatile pending_temp;

static void remove_pending_and_reraise(int sig)
{
    char *t = pending_temp;
    if (t) unlink(t); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void track_temp(char *temp)
{
    pending_temp = temp;
    signal(SIGINT, temp ? remove_pending_and_reraise : SIG_DFL);
    signal(SIGTERM, temp ? remove_pending_and_reraise : SIG_DFL);
}

int cli_outfile_open(cli_outfile *f, const char *path)
{
    memset(f, 0, sizeof *f);
    size_t size = strlen(path) + 64;
    f->path = (char *)malloc(strlen(path) + 1);
    f->temp_path = (char *)malloc(size);
    if (!f->path || !f->temp_path) {
        free(f->path);
        free(f->temp_path);
        return cli_error("cannot create '%s': %s", path, strerror(ENOMEM));
    }
    strcpy(f->path, path);
    int fd = -1;
    /* O_EXCL: never reuse a file someone else is writing; mode 0666 lets the
     * umask decide, as for any file the user creates. */
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        snprintf(f->temp_path, size, "%s.gpuprim-tmp-%ld-%d", path, (long)getpid(), attempt);
        fd = open(f->temp_path, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        int e = errno;
        free(f->path);
        free(f->temp_path);
        memset(f, 0, sizeof *f);
        return cli_error("cannot create '%s': %s", path, strerror(e));
    }
    f->fp = fdopen(fd, "wb");
    if (!f->fp) {
        int e = errno;
        close(fd);
        unlink(f->temp_path);
        free(f->path);
        free(f->temp_path);
        memset(f, 0, sizeof *f);
        return cli_error("cannot create '%s': %s", path, strerror(e));
    }
    track_temp(f->temp_path);
    return CLI_EXIT_OK;
}

static void release(cli_outfile *f)
{
    track_temp(NULL);
    free(f->path);
    free(f->temp_path);
    memset(f, 0, sizeof *f);
}

void cli_outfile_abort(cli_outfile *f)
{
    if (!f->temp_path) return;
    if (f->fp) fclose(f->fp);
    unlink(f->temp_path);
    release(f);
}

int cli_outfile_commit(cli_outfile *f)
{
    int failed = ferror(f->fp) != 0;
    int e = errno;
    if (fclose(f->fp) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    f->fp = NULL;
    if (!failed && rename(f->temp_path, f->path) != 0) {
        failed = 1;
        e = errno;
    }
    if (failed) {
        unlink(f->temp_path);
        cli_error("cannot write '%s': %s", f->path, strerror(e ? e : EIO));
        release(f);
        return CLI_EXIT_FAILURE;
    }
    release(f);
    return CLI_EXIT_OK;
}
