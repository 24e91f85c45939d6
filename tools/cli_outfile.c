/*
 * Output files that appear only when complete. Where the kernel and the
 * folder's file system allow (Linux's O_TMPFILE), the bytes go to a file
 * with no name in the output's folder, which is linked under a temporary
 * name and renamed into place once written: an end of any kind before then,
 * SIGKILL and a sanitizer's crash report included, leaves nothing. Where
 * they do not, the bytes go to a temporary name beside the output, and a
 * failure or a signal that ends the tool removes it. Either way the final
 * rename stays on one file system and is atomic. A device or a pipe is
 * written in place.
 */
#define _GNU_SOURCE /* O_TMPFILE; harmless where it is not defined */
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

/* The named temporary files of the outputs being written, removed on a
 * signal that ends the tool (end_signals): a verb's pair (partition's two
 * buffers, histogram's counts and plot) with the second name of the old
 * file its first replaces (arm_undo), or the bench's three (--csv, --json,
 * --plot). A named fallback file is pending from its open to its commit
 * (a pair's first, to the second's); an unnamed one from its link. */
#define MAX_PENDING 4
static char *volatile pending_temp[MAX_PENDING];

/* What undoes a pair's first rename (cli_outfile_commit_pair) until the
 * second is done: put back the old file, kept under a second name
 * (UNDO_RESTORE), or remove the new one, where none was there before
 * (UNDO_REMOVE). Read by the signal handler too, so that a signal that ends
 * the tool between the two renames leaves neither new file. */
enum { UNDO_NONE, UNDO_RESTORE, UNDO_REMOVE };
static volatile sig_atomic_t undo_kind = UNDO_NONE;
static const char *volatile undo_path; /* the first output's final name */
static char *volatile undo_kept;       /* its old file's second name (UNDO_RESTORE) */
/* The second output: its final name and its new file, which a signal finds
 * there once its rename is done, and then leaves the first in place. */
static const char *volatile second_path;
static volatile dev_t second_dev;
static volatile ino_t second_ino;

/* Undoes the pair's first rename as undo_kind says; async-signal-safe.
 * Where the rename has not happened yet, the old file is both names, so
 * putting it back changes nothing (rename between two links of one file
 * does nothing), and no new file is there to remove. 0 or an errno. */
static int undo_first(void)
{
    int e = 0;
    if (undo_kind == UNDO_RESTORE && rename(undo_kept, undo_path) != 0) e = errno;
    if (undo_kind == UNDO_REMOVE && unlink(undo_path) != 0 && errno != ENOENT) e = errno;
    undo_kind = UNDO_NONE;
    return e;
}

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
    /* Before the pending names go: the old file may be one of them. */
    struct stat second;
    if (undo_kind != UNDO_NONE && !(stat(second_path, &second) == 0 && second.st_dev == second_dev &&
                                    second.st_ino == second_ino))
        undo_first();
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
    int any = 0, found = 0;
    for (int i = 0, placed = 0; i < MAX_PENDING; i++) {
        if (done && pending_temp[i] == temp) pending_temp[i] = NULL, found = 1;
        else if (!done && !placed && !pending_temp[i]) pending_temp[i] = temp, placed = 1;
        any |= pending_temp[i] != NULL;
    }
    if (done && !found) return; /* never pending (an unnamed file not linked): nothing changes */
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

/* The folder of `path` ("." where it names none); 0 where that is too long
 * to name. */
static int folder_of(const char *path, char *folder, size_t size)
{
    const char *slash = strrchr(path, '/');
    size_t len = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    if (len + 2 > size) return 0;
    if (!slash) memcpy(folder, ".", 2);
    else memcpy(folder, path, len), folder[len] = '\0';
    return 1;
}

/* The name by which an open file with no name can be linked: its
 * descriptor's entry under /proc (linkat's AT_EMPTY_PATH would need a
 * privilege). */
static void proc_entry(int fd, char *entry, size_t size) { snprintf(entry, size, "/proc/self/fd/%d", fd); }

/* A file with no name in the folder of `path`, open for writing; -1 where
 * the kernel or the folder's file system has none, where /proc is missing
 * (it could not be linked), or where GPUPRIM_OUTFILE_NAMED is set to other
 * than 0 (the tests' way to the named temporary file). */
static int open_unnamed(const char *path)
{
#ifdef O_TMPFILE
    const char *named = getenv("GPUPRIM_OUTFILE_NAMED");
    char folder[PATH_MAX], entry[64];
    if ((named && *named && strcmp(named, "0") != 0) || !folder_of(path, folder, sizeof folder)) return -1;
    /* Mode 0666: the umask decides, as for any file the user creates. */
    int fd = open(folder, O_TMPFILE | O_WRONLY, 0666);
    if (fd < 0) return -1;
    proc_entry(fd, entry, sizeof entry);
    if (access(entry, F_OK) == 0) return fd;
    close(fd);
#else
    (void)path;
#endif
    return -1;
}

/* A temporary name beside `path` into `name` (strlen(path) + 64 bytes):
 * tag "" for an output's own, "old-" for the old file a pair's first
 * replaces (arm_undo). */
static void name_temp(char *name, const char *path, const char *tag, int attempt)
{
    snprintf(name, strlen(path) + 64, "%s.gpuprim-tmp-%ld-%s%d", path, (long)getpid(), tag, attempt);
}

/* Frees what f holds and zeroes it; a zeroed file is not open. */
static void reset(cli_outfile *f)
{
    free(f->path);
    free(f->temp_path);
    memset(f, 0, sizeof *f);
    f->held_fd = -1;
}

/* Frees what an open that failed with errno e had taken, and says why. */
static int open_failed(cli_outfile *f, const char *path, int e)
{
    reset(f);
    return cli_error("cannot create '%s': %s", path, strerror(e));
}

static int open_in_place(cli_outfile *f, const char *path)
{
    if (!(f->path = strdup(path))) return open_failed(f, path, ENOMEM);
    if (!(f->fp = fopen(path, "wb"))) return open_failed(f, path, errno);
    return CLI_EXIT_OK;
}

/* The tool's standard output or error where `path` names it: "-", or the
 * file /dev/stdout leads to when that is a regular file (`-o /dev/stdout >
 * res.txt`). Renamed over, the link itself would be replaced (as root,
 * /dev/stdout for the whole machine); 0 where path is neither. */
static int standard_stream_of(const char *path, const struct stat *st, int exists)
{
    if (strcmp(path, "-") == 0) return STDOUT_FILENO;
    for (int fd = STDOUT_FILENO; exists && fd <= STDERR_FILENO; fd++) {
        struct stat s;
        if (fstat(fd, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino) return fd;
    }
    return 0;
}

int cli_output_is_stdout(const char *path)
{
    if (strcmp(path, "-") == 0) return 1;
    struct stat st, null_dev;
    if (stat(path, &st) != 0 || standard_stream_of(path, &st, 1) != STDOUT_FILENO) return 0;
    /* The null device keeps nothing, so nothing written there can mix. */
    return !(stat("/dev/null", &null_dev) == 0 && null_dev.st_dev == st.st_dev && null_dev.st_ino == st.st_ino);
}

/* Writes through a descriptor of its own to what `fd` has open, keeping
 * its offset and append mode (a shell's `>>`). */
static int open_on_stream(cli_outfile *f, const char *path, int fd)
{
    if (!(f->path = strdup(path))) return open_failed(f, path, ENOMEM);
    fflush(fd == STDOUT_FILENO ? stdout : stderr); /* what the tool printed before comes first */
    int copy = dup(fd);
    if (copy < 0 || !(f->fp = fdopen(copy, "wb"))) {
        int e = errno;
        if (copy >= 0) close(copy);
        return open_failed(f, path, e);
    }
    return CLI_EXIT_OK;
}

/* Where no file may be made beside `path` (a folder not writable) but
 * path itself could be written: the reason is the folder, not the file. */
static int folder_refused(cli_outfile *f, const char *path, int e)
{
    reset(f);
    return cli_error("cannot write '%s': its folder does not let a file be made in it (%s); an output is written "
                     "beside its final name and renamed into place",
                     path, strerror(e));
}

int cli_outfile_open(cli_outfile *f, const char *path)
{
    memset(f, 0, sizeof *f);
    f->held_fd = -1;
    /* A file that exists is replaced only where it could be written in
     * place, and keeps its permissions: a read-only file is refused as a
     * plain open refuses it, and a private one does not come back readable
     * by all (the umask's 0644). */
    struct stat old;
    const int exists = stat(path, &old) == 0;
    const int stream = standard_stream_of(path, &old, exists);
    if (stream) return open_on_stream(f, path, stream);
    if (exists && is_stream(&old)) return open_in_place(f, path);
    /* Refused now, not at the rename: a pair's first file is not yet in place. */
    if (exists && S_ISDIR(old.st_mode)) return cli_error("cannot write '%s': %s", path, strerror(EISDIR));
    const int replaces = exists && S_ISREG(old.st_mode);
    if (replaces && access(path, W_OK) != 0) return cli_error("cannot write '%s': %s", path, strerror(errno));
    f->path = (char *)malloc(strlen(path) + 1);
    f->temp_path = (char *)malloc(strlen(path) + 64);
    if (!f->path || !f->temp_path) return open_failed(f, path, ENOMEM);
    strcpy(f->path, path);
    f->temp_path[0] = '\0';
    int fd = open_unnamed(path);
    f->unnamed = fd >= 0;
    /* O_EXCL: never reuse a file someone else is writing; mode 0666 as for
     * the unnamed file (a replaced file's mode is set below). */
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        name_temp(f->temp_path, f->path, "", attempt);
        fd = open(f->temp_path, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0 && replaces && (errno == EACCES || errno == EPERM || errno == EROFS)) return folder_refused(f, path, errno);
    if (fd < 0) return open_failed(f, path, errno);
    f->fp = replaces && fchmod(fd, old.st_mode & 0777) != 0 ? NULL : fdopen(fd, "wb");
    if (!f->fp) {
        int e = errno;
        close(fd);
        if (!f->unnamed) unlink(f->temp_path);
        return open_failed(f, path, e);
    }
    /* An unnamed file needs no removing until commit links it. */
    if (!f->unnamed) track_temp(f->temp_path, 0);
    return CLI_EXIT_OK;
}

static void release(cli_outfile *f)
{
    if (f->temp_path) track_temp(f->temp_path, 1);
    if (f->held_fd >= 0) close(f->held_fd);
    reset(f);
}

/* Opened and not yet committed or aborted (release zeroes f). */
static int is_open(const cli_outfile *f) { return f->fp || f->temp_path; }

/* Closes and removes what f has written; an unnamed file goes with its
 * last descriptor (and temp_path may name another's file, see
 * link_unnamed). */
static void discard(cli_outfile *f)
{
    if (f->fp) fclose(f->fp);
    if (f->temp_path && !f->unnamed) unlink(f->temp_path);
    release(f);
}

void cli_outfile_abort(cli_outfile *f)
{
    if (is_open(f)) discard(f);
}

/* Ends the writing: every byte out and the stream closed, or 0 with the
 * error in *e. An unnamed file is held open by a second descriptor until
 * put_in_place links it. */
static int finish_writing(cli_outfile *f, int *e)
{
    int ok = ferror(f->fp) == 0;
    *e = errno;
    if (ok && f->unnamed && (f->held_fd = dup(fileno(f->fp))) < 0) ok = 0, *e = errno;
    if (fclose(f->fp) != 0 && ok) ok = 0, *e = errno;
    f->fp = NULL;
    return ok;
}

/* Links `from` (followed where `follow` is AT_SYMLINK_FOLLOW) under the
 * first temporary name beside `path` that no file has, into `name`. The
 * name is pending before the link: a signal between the link and its
 * removal or rename removes it (one that finds it not yet linked removes a
 * stale name of this tool's pattern at most). On failure it is taken off
 * the pending files. 0 or an errno. */
static int link_pending(const char *from, int follow, const char *path, const char *tag, char *name)
{
    for (int attempt = 0; attempt < 100; attempt++) {
        name_temp(name, path, tag, attempt);
        track_temp(name, 0);
        if (linkat(AT_FDCWD, from, AT_FDCWD, name, follow) == 0) return 0;
        int e = errno;
        track_temp(name, 1);
        if (e != EEXIST) return e;
    }
    return EEXIST;
}

/* Links an unnamed file under a temporary name. 0 or an errno. */
static int link_unnamed(cli_outfile *f)
{
    char entry[64];
    proc_entry(f->held_fd, entry, sizeof entry);
    return link_pending(entry, AT_SYMLINK_FOLLOW, f->path, "", f->temp_path);
}

/* Renames a finished file into place, an unnamed one linked first; on
 * failure nothing of it stays. 0 or an errno. */
static int put_in_place(cli_outfile *f)
{
    if (!f->temp_path) return 0; /* written in place */
    int e = f->unnamed ? link_unnamed(f) : 0;
    if (e != 0) return e; /* nothing was linked */
    if (rename(f->temp_path, f->path) == 0) return 0;
    e = errno;
    unlink(f->temp_path);
    return e;
}

static int commit_failed(cli_outfile *f, int e)
{
    cli_error("cannot write '%s': %s", f->path, strerror(e ? e : EIO));
    discard(f);
    return CLI_EXIT_FAILURE;
}

int cli_outfile_commit(cli_outfile *f)
{
    int e = 0;
    if (!finish_writing(f, &e) || (e = put_in_place(f)) != 0) return commit_failed(f, e);
    release(f);
    return CLI_EXIT_OK;
}

/* Before a pair's first rename: its old file (if any) linked under a
 * second name, pending, and the undo set, with b's new file to tell a
 * signal whether b is in place. Where the old file cannot be kept (a file
 * system without hard links), the undo stays UNDO_NONE: the second rename's
 * failure would then leave the first file new. */
static void arm_undo(const char *path, const cli_outfile *b)
{
    struct stat st;
    if ((b->unnamed ? fstat(b->held_fd, &st) : stat(b->temp_path, &st)) != 0) return;
    second_path = b->path, second_dev = st.st_dev, second_ino = st.st_ino;
    char *kept = (char *)malloc(strlen(path) + 64);
    if (!kept) return;
    /* No flag: a link at `path` is kept as the link, as rename replaces it. */
    const int e = link_pending(path, 0, path, "old-", kept);
    if (e == 0) {
        undo_path = path, undo_kept = kept;
        undo_kind = UNDO_RESTORE;
        return;
    }
    if (e == ENOENT) { /* nothing to keep: the file is new */
        undo_path = path;
        undo_kind = UNDO_REMOVE;
    }
    free(kept);
}

/* After the pair: the undo cleared, and the old file's second name
 * removed (remove_kept) or, where it is that file's only name now, left. */
static void disarm_undo(int remove_kept)
{
    char *kept = undo_kept;
    undo_kind = UNDO_NONE;
    undo_kept = NULL;
    undo_path = NULL;
    second_path = NULL;
    if (!kept) return;
    if (remove_kept) unlink(kept);
    track_temp(kept, 1);
    free(kept);
}

/* The second rename failed with e: the first file undone, and the error. */
static int second_failed(cli_outfile *a, cli_outfile *b, int e)
{
    const int kind = undo_kind;
    const char *kept = undo_kept;
    const int undo_e = undo_first();
    if (kind == UNDO_NONE)
        cli_error("cannot write '%s': %s; '%s' is already in place (its old file could not be kept aside)", b->path,
                  strerror(e), a->path);
    else if (undo_e != 0 && kind == UNDO_RESTORE)
        cli_error("cannot write '%s': %s; '%s' is already in place and its old file could not be put back (%s): "
                  "it is kept as '%s'",
                  b->path, strerror(e), a->path, strerror(undo_e), kept);
    else if (undo_e != 0)
        cli_error("cannot write '%s': %s; '%s' is already in place and could not be removed (%s)", b->path,
                  strerror(e), a->path, strerror(undo_e));
    else
        cli_error("cannot write '%s': %s", b->path, strerror(e));
    disarm_undo(!(undo_e != 0 && kind == UNDO_RESTORE));
    release(a);
    discard(b);
    return CLI_EXIT_FAILURE;
}

int cli_outfile_commit_pair(cli_outfile *a, cli_outfile *b)
{
    /* Both written out before either is renamed, so a write error in one
     * (a full disk) leaves neither. Which are open is asked once: a file
     * written in place looks closed once its stream is. */
    const int has_a = is_open(a), has_b = is_open(b);
    int e = 0;
    if (has_a && !finish_writing(a, &e)) {
        cli_outfile_abort(b);
        return commit_failed(a, e);
    }
    if (has_b && !finish_writing(b, &e)) {
        if (has_a) discard(a);
        return commit_failed(b, e);
    }
    /* Only where both are renamed can the second fail after the first. */
    const int undoable = has_a && a->temp_path && has_b && b->temp_path;
    if (undoable) arm_undo(a->path, b);
    if (has_a && (e = put_in_place(a)) != 0) {
        disarm_undo(1);
        if (has_b) discard(b);
        return commit_failed(a, e);
    }
    /* a stays pending until b is in place: its temporary name, gone with
     * the rename, keeps the signal handler, and with it the undo. */
    if (has_b && (e = put_in_place(b)) != 0) {
        if (undoable) return second_failed(a, b, e);
        if (has_a) release(a); /* written in place: nothing to undo */
        return commit_failed(b, e);
    }
    disarm_undo(1);
    if (has_a) release(a);
    if (has_b) release(b);
    return CLI_EXIT_OK;
}

/* Whether stat finds the folder of `path`. */
static int stat_folder(const char *path, struct stat *st)
{
    char folder[PATH_MAX];
    return folder_of(path, folder, sizeof folder) && stat(folder, st) == 0;
}

int cli_outputs_collide(const char *a, const char *b)
{
    if (strcmp(a, b) == 0) return 1;
    const char *slash_a = strrchr(a, '/'), *slash_b = strrchr(b, '/');
    if (strcmp(slash_a ? slash_a + 1 : a, slash_b ? slash_b + 1 : b) != 0) return 0;
    struct stat sa, sb;
    return stat_folder(a, &sa) && stat_folder(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
