/*
 * Crashes for real while an output is being written, so the CLI tests can
 * check that cli_outfile.c's handler removes the temporary file and that
 * the crash still ends the process with its signal (and a core, where the
 * limits allow one). The tool itself has no way to crash on purpose.
 *
 *   outfile_fault segv|abort OUT
 *   outfile_fault tmpfile DIR
 *
 * segv: a store to a read-only page, a fault the processor raises (the
 * handler returns and the store faults again, to the default action); not
 * a null pointer, which UndefinedBehaviorSanitizer stops first. abort:
 * abort(), a signal the process sends itself. tmpfile: prints whether the
 * file system of DIR makes files with no name (O_TMPFILE), asked of the
 * kernel directly, so a tool that fell back to named temporary files where
 * it need not would fail the tests rather than skip them.
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS, O_TMPFILE */
#include "cli_common.h"
#include "cli_output.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "tmpfile") == 0) {
        puts(has_unnamed_files(argv[2]) ? "yes" : "no");
        return 0;
    }
    if (argc != 3 || (strcmp(argv[1], "segv") != 0 && strcmp(argv[1], "abort") != 0)) {
        fprintf(stderr, "usage: outfile_fault segv|abort OUT | outfile_fault tmpfile DIR\n");
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
