/*
 * Output files that appear only when complete: the bytes go to a temporary
 * name in the same directory (so the final rename stays on one file system
 * and is atomic), and a failure or an interrupt removes it. A device or a
 * pipe is written in place.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_common.h"
#include "cli_output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary files of the outputs being written, removed on a signal
 * that ends the tool (end_signals): a verb's pair (partition's two
 * buffers, histogram's counts and plot), both open until both are written,
 * or the bench's three (--csv, --json, --plot), open for the whole run. */
#define MAX_PENDING 3
static char *volatile pending_temp[MAX_PENDING];

/* The signals whose default action ends the tool: an interrupt, a kill, a
 * closed terminal, a reader gone from the pipe of stdout (`| head`), a
 * quit, a timer or a user signal nobody handles, a CPU or file-size limit
 * (`ulimit -t`, `ulimit -f`), and the crashes. Left out: SIGTRAP, SIGPROF
 * and SIGVTALRM, which debuggers and profilers own. */
static const int end_signals[] = {SIGHUP,  SIGINT,  SIGPIPE, SIGQUIT, SIGTERM, SIGALRM, SIGUSR1, SIGUSR2,
                                  SIGXCPU, SIGXFSZ, SIGABRT, SIGBUS,  SIGFPE,  SIGILL,  SIGSEGV, SIGSYS};
#define N_END_SIGNALS ((int)(sizeof end_signals / sizeof end_signals[0]))

/* A signal the processor raises at the faulting instruction. */
static int is_fault(int sig) { return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL; }

static void remove_pending_and_reraise(int sig, siginfo_t *info, void *context)
{
    (void)context;
    for (int i = 0; i < MAX_PENDING; i++) {
        char *t = pending_temp[i];
        if (t) unlink(t); /* async-signal-safe, as are signal and raise */
    }
    signal(sig, SIG_DFL);
    /* A fault the processor raised strikes again when this returns, now to
     * the default action, whose core shows the instruction; one sent by
     * kill or raise (abort's) must be sent again. */
    if (is_fault(sig) && info && info->si_code > 0) return;
    raise(sig);
}

/* Whether disposition `a` is this file's handler, or the default. */
static int is_ours(const struct sigaction *a)
{
    return (a->sa_flags & SA_SIGINFO) && a->sa_sigaction == remove_pending_and_reraise;
}
static int is_default(const struct sigaction *a) { return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_DFL; }

/* Adds temp to the pending files, or (done) takes it off; the handlers
 * stay while any is pending. Only a signal left at its default is taken:
 * one ignored (nohup, a script's background job) stays ignored, and one
 * handled already (AddressSanitizer's SIGSEGV) stays with its handler. */
static void track_temp(char *temp, int done)
{
    int any = 0;
    for (int i = 0, placed = 0; i < MAX_PENDING; i++) {
        if (done && pending_temp[i] == temp) pending_temp[i] = NULL;
        else if (!done && !placed && !pending_temp[i]) pending_temp[i] = temp, placed = 1;
        any |= pending_temp[i] != NULL;
    }
    struct sigaction take = {0}, give_back = {0};
    take.sa_sigaction = remove_pending_and_reraise;
    take.sa_flags = SA_SIGINFO | SA_RESTART;
    give_back.sa_handler = SIG_DFL;
    sigemptyset(&take.sa_mask);
    sigemptyset(&give_back.sa_mask);
    for (int i = 0; i < N_END_SIGNALS; i++) {
        struct sigaction now;
        if (sigaction(end_signals[i], NULL, &now) != 0) continue;
        if (any && is_default(&now)) sigaction(end_signals[i], &take, NULL);
        else if (!any && is_ours(&now)) sigaction(end_signals[i], &give_back, NULL);
    }
}

/* An existing path that is neither a regular file nor a folder: /dev/null,
 * /dev/stdout, a FIFO. A file renamed onto it would replace it (as root,
 * /dev/null itself), so it is written in place. */
static int is_stream(const struct stat *st) { return !S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode); }

/* Frees what an open that failed with errno e had taken, and says why. */
static int open_failed(cli_outfile *f, const char *path, int e)
{
    free(f->path);
    free(f->temp_path);
    memset(f, 0, sizeof *f);
    return cli_error("cannot create '%s': %s", path, strerror(e));
}

static int open_in_place(cli_outfile *f, const char *path)
{
    if (!(f->path = strdup(path))) return open_failed(f, path, ENOMEM);
    if (!(f->fp = fopen(path, "wb"))) return open_failed(f, path, errno);
    return CLI_EXIT_OK;
}

int cli_outfile_open(cli_outfile *f, const char *path)
{
    memset(f, 0, sizeof *f);
    /* A file that exists is replaced only where it could be written in
     * place, and keeps its permissions: a read-only file is refused as a
     * plain open refuses it, and a private one does not come back readable
     * by all (the umask's 0644). */
    struct stat old;
    const int exists = stat(path, &old) == 0;
    if (exists && is_stream(&old)) return open_in_place(f, path);
    const int replaces = exists && S_ISREG(old.st_mode);
    if (replaces && access(path, W_OK) != 0) return cli_error("cannot write '%s': %s", path, strerror(errno));
    size_t size = strlen(path) + 64;
    f->path = (char *)malloc(strlen(path) + 1);
    f->temp_path = (char *)malloc(size);
    if (!f->path || !f->temp_path) return open_failed(f, path, ENOMEM);
    strcpy(f->path, path);
    int fd = -1;
    /* O_EXCL: never reuse a file someone else is writing; mode 0666 lets the
     * umask decide, as for any file the user creates (a replaced file's mode
     * is set below). */
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        snprintf(f->temp_path, size, "%s.gpuprim-tmp-%ld-%d", path, (long)getpid(), attempt);
        fd = open(f->temp_path, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) return open_failed(f, path, errno);
    f->fp = replaces && fchmod(fd, old.st_mode & 0777) != 0 ? NULL : fdopen(fd, "wb");
    if (!f->fp) {
        int e = errno;
        close(fd);
        unlink(f->temp_path);
        return open_failed(f, path, e);
    }
    track_temp(f->temp_path, 0);
    return CLI_EXIT_OK;
}

static void release(cli_outfile *f)
{
    if (f->temp_path) track_temp(f->temp_path, 1);
    free(f->path);
    free(f->temp_path);
    memset(f, 0, sizeof *f);
}

/* Opened and not yet committed or aborted (release zeroes f). */
static int is_open(const cli_outfile *f) { return f->fp || f->temp_path; }

void cli_outfile_abort(cli_outfile *f)
{
    if (!is_open(f)) return;
    if (f->fp) fclose(f->fp);
    if (f->temp_path) unlink(f->temp_path);
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
    if (!failed && f->temp_path && rename(f->temp_path, f->path) != 0) {
        failed = 1;
        e = errno;
    }
    if (failed) {
        if (f->temp_path) unlink(f->temp_path);
        cli_error("cannot write '%s': %s", f->path, strerror(e ? e : EIO));
        release(f);
        return CLI_EXIT_FAILURE;
    }
    release(f);
    return CLI_EXIT_OK;
}

int cli_outfile_commit_pair(cli_outfile *a, cli_outfile *b)
{
    int rc = is_open(a) ? cli_outfile_commit(a) : CLI_EXIT_OK;
    if (rc != CLI_EXIT_OK) {
        cli_outfile_abort(b);
        return rc;
    }
    return is_open(b) ? cli_outfile_commit(b) : CLI_EXIT_OK;
}

/* Whether stat finds the folder of `path` ("." where it names none). */
static int stat_folder(const char *path, struct stat *st)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return stat(".", st) == 0;
    char folder[PATH_MAX];
    size_t len = slash == path ? 1 : (size_t)(slash - path);
    if (len >= sizeof folder) return 0; /* too long to create either */
    memcpy(folder, path, len);
    folder[len] = '\0';
    return stat(folder, st) == 0;
}

int cli_outputs_collide(const char *a, const char *b)
{
    if (strcmp(a, b) == 0) return 1;
    const char *slash_a = strrchr(a, '/'), *slash_b = strrchr(b, '/');
    if (strcmp(slash_a ? slash_a + 1 : a, slash_b ? slash_b + 1 : b) != 0) return 0;
    struct stat sa, sb;
    return stat_folder(a, &sa) && stat_folder(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
