/*
 * Crashes for real while an output is being written, so the CLI tests can
 * check that cli_outfile.c's handler removes the temporary file and that
 * the crash still ends the process with its signal (and a core, where the
 * limits allow one). The tool itself has no way to crash on purpose.
 *
 *   outfile_fault segv|abort OUT
 *   outfile_fault tmpfile DIR
 *   outfile_fault pair A B
 *   outfile_fault pair-term 1|2 A B
 *   outfile_fault refused file|folder OUT
 *
 * segv: a store to a read-only page, a fault the processor raises (the
 * handler returns and the store faults again, to the default action); not
 * a null pointer, which UndefinedBehaviorSanitizer stops first. abort:
 * abort(), a signal the process sends itself. tmpfile: prints whether the
 * file system of DIR makes files with no name (O_TMPFILE), asked of the
 * kernel directly, so a tool that fell back to named temporary files where
 * it need not would fail the tests rather than skip them. pair: writes
 * "new" to A and B as a pair, but makes B a folder before the commit, so
 * that B's rename fails after A's (what a folder changed under the tool
 * does), and prints the commit's exit status. pair-term: commits A and
 * B as a pair, but sends itself SIGTERM right after the first rename (the
 * helper is linked with --wrap=rename), which the handler must undo, or
 * after the second, which it must not. refused: opens OUT as the tool
 * would where OUT itself may not be written (file) or where its folder lets
 * no file be made in it (folder), both made so for this helper (linked with
 * --wrap=access and --wrap=open): permissions do not stop root, who runs the
 * tests on some machines.
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS, O_TMPFILE */
#include "cli_common.h"
#include "cli_output.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int has_unnamed_files(const char *dir)
{
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_WRONLY, 0600);
    if (fd >= 0) return close(fd), 1;
#else
    (void)dir;
#endif
    return 0;
}

/* Every rename of the output code (linked with --wrap=rename); once
 * armed with N, the Nth that succeeds is followed by SIGTERM. */
int __real_rename(const char *from, const char *to);
int __wrap_rename(const char *from, const char *to);
static volatile sig_atomic_t renames_to_term;
int __wrap_rename(const char *from, const char *to)
{
    const int rc = __real_rename(from, to);
    if (rc == 0 && renames_to_term > 0 && --renames_to_term == 0) raise(SIGTERM); /* once: the handler's own goes through */
    return rc;
}

/* Writing refused as a user without the permission would be: OUT itself
 * (refuse_file), or any new file in its folder (refuse_folder). */
static int refuse_file, refuse_folder;
int __real_access(const char *path, int how);
int __wrap_access(const char *path, int how);
int __wrap_access(const char *path, int how)
{
    if (refuse_file && (how & W_OK)) return errno = EACCES, -1;
    return __real_access(path, how);
}

/* Whether open with these flags makes a file (and takes a mode). */
static int makes_file(int flags)
{
#ifdef O_TMPFILE
    if ((flags & O_TMPFILE) == O_TMPFILE) return 1;
#endif
    return (flags & O_CREAT) != 0;
}
int __real_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...)
{
    va_list args;
    va_start(args, flags);
    const mode_t mode = makes_file(flags) ? (mode_t)va_arg(args, int) : 0;
    va_end(args);
    if (refuse_folder && makes_file(flags)) return errno = EACCES, -1;
    return __real_open(path, flags, mode);
}

static int open_refused(const char *what, const char *path)
{
    refuse_file = strcmp(what, "file") == 0;
    refuse_folder = strcmp(what, "folder") == 0;
    cli_outfile out;
    const int rc = cli_outfile_open(&out, path);
    if (rc == CLI_EXIT_OK) cli_outfile_abort(&out);
    printf("open %d\n", rc);
    return 0;
}

/* A pair of "new" files committed over A and B, B made a folder first
 * (make_b_folder), or SIGTERM after the nth rename (nth > 0). */
static int pair_commit(const char *a_path, const char *b_path, int make_b_folder, int nth)
{
    cli_outfile a, b;
    if (cli_outfile_open(&a, a_path) != CLI_EXIT_OK) return CLI_EXIT_FAILURE;
    if (cli_outfile_open(&b, b_path) != CLI_EXIT_OK) {
        cli_outfile_abort(&a);
        return CLI_EXIT_FAILURE;
    }
    fputs("new\n", a.fp);
    fputs("new\n", b.fp);
    if (make_b_folder && ((unlink(b_path) != 0 && errno != ENOENT) || mkdir(b_path, 0755) != 0)) {
        perror(b_path);
        cli_outfile_abort(&a);
        cli_outfile_abort(&b);
        return CLI_EXIT_FAILURE;
    }
    renames_to_term = nth;
    printf("commit %d\n", cli_outfile_commit_pair(&a, &b));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "pair") == 0) return pair_commit(argv[2], argv[3], 1, 0);
    if (argc == 4 && strcmp(argv[1], "refused") == 0) return open_refused(argv[2], argv[3]);
    if (argc == 5 && strcmp(argv[1], "pair-term") == 0) return pair_commit(argv[3], argv[4], 0, atoi(argv[2]));
    if (argc == 3 && strcmp(argv[1], "tmpfile") == 0) {
        puts(has_unnamed_files(argv[2]) ? "yes" : "no");
        return 0;
    }
    if (argc != 3 || (strcmp(argv[1], "segv") != 0 && strcmp(argv[1], "abort") != 0)) {
        fprintf(stderr, "usage: outfile_fault segv|abort OUT | outfile_fault tmpfile DIR | outfile_fault pair A B | outfile_fault pair-term N A B | outfile_fault refused file|folder OUT\n");
        return CLI_EXIT_USAGE;
    }
    const size_t page_bytes = (size_t)sysconf(_SC_PAGESIZE);
    volatile int *read_only = mmap(NULL, page_bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (read_only == MAP_FAILED) return CLI_EXIT_FAILURE;
    cli_outfile out;
    if (cli_outfile_open(&out, argv[2]) != CLI_EXIT_OK) return CLI_EXIT_FAILURE;
    fputs("partial\n", out.fp);
    fflush(out.fp);
    if (strcmp(argv[1], "abort") == 0) abort();
    read_only[0] = 1;
    return 3; /* not reached: the store faults */
}
