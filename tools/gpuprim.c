/*
 * gpuprim: the command-line tool. `gpuprim VERB [options]`; this file holds
 * the verb table and the top-level options, each verb lives in its own file.
 */
#include "cli_common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const cli_verb *const verbs[] = {
    &cli_verb_info, &cli_verb_gen, &cli_verb_reduce, &cli_verb_scan, &cli_verb_select, &cli_verb_partition,
    &cli_verb_stalin, &cli_verb_count, &cli_verb_histogram, &cli_verb_transpose, &cli_verb_demo, &cli_verb_bench,
    &cli_verb_ladder,
};
enum { VERB_COUNT = sizeof verbs / sizeof verbs[0] };

static const cli_verb *find_verb(const char *name)
{
    for (int i = 0; i < VERB_COUNT; i++)
        if (strcmp(verbs[i]->name, name) == 0) return verbs[i];
    return NULL;
}

static void print_main_help(FILE *to)
{
    fprintf(to,
            "usage: gpuprim VERB [options] [arguments]\n"
            "       gpuprim --version | --help | help VERB\n\n"
            "gpuprim %s: data-parallel primitives on NVIDIA GPUs (CUDA) and CPUs (OpenMP).\n\nverbs:\n",
            gp_version_string());
    for (int i = 0; i < VERB_COUNT; i++) fprintf(to, "  %-10s %s\n", verbs[i]->name, verbs[i]->summary);
    fputs("\nEvery verb takes --backend auto|cpu|cuda (but ladder, which runs on the GPU) and\n"
          "--json (bench and ladder: --json FILE); 'gpuprim VERB --help' says more.\n"
          "Exit status: 0 success; 1 a failure (file, data, library or device); 2 a bad command line.\n",
          to);
}

static void print_version(void)
{
    printf("gpuprim %s (backends built:", gp_version_string());
    if (gp_backend_built(GP_BACKEND_CPU)) printf(" cpu");
    if (gp_backend_built(GP_BACKEND_CUDA)) printf(" cuda");
    printf(")\n");
    /* A tool linked against a library other than the header it was built with
     * would misreport; say so rather than hide it. */
    if (gp_version_number() != GP_VERSION_NUMBER)
        printf("warning: built with gpuprim.h %d.%d.%d\n", GP_VERSION_MAJOR, GP_VERSION_MINOR, GP_VERSION_PATCH);
}

static int run_verb(int argc, char **argv)
{
    const cli_verb *verb = find_verb(argv[0]);
    if (!verb) {
        char names[128] = "";
        for (int i = 0; i < VERB_COUNT; i++) {
            strncat(names, " ", sizeof names - strlen(names) - 1);
            strncat(names, verbs[i]->name, sizeof names - strlen(names) - 1);
        }
        return cli_usage_error("unknown verb '%s' (verbs:%s)", argv[0], names);
    }
    cli_set_verb_name(verb->name);
    if (verb->run_raw) return verb->run_raw(argc, argv);
    cli_args args;
    int rc = cli_parse_args(verb, argc, argv, &args);
    if (rc < 0) return CLI_EXIT_OK; /* help printed */
    if (rc != CLI_EXIT_OK) return rc;
    return verb->run(&args);
}

int main(int argc, char **argv)
{
    int rc;
    if (argc < 2) {
        print_main_help(stderr);
        rc = CLI_EXIT_USAGE;
    } else if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
               (strcmp(argv[1], "help") == 0 && argc == 2)) {
        print_main_help(stdout);
        rc = CLI_EXIT_OK;
    } else if (strcmp(argv[1], "help") == 0) {
        const cli_verb *verb = find_verb(argv[2]);
        if (verb && !verb->run_raw) {
            cli_print_verb_help(verb, stdout);
            rc = CLI_EXIT_OK;
        } else {
            /* A verb with its own parser answers --help itself. */
            static char help_flag[] = "--help";
            char *help_argv[] = {argv[2], help_flag, NULL};
            rc = run_verb(2, help_argv);
        }
    } else if (strcmp(argv[1], "--version") == 0) {
        print_version();
        rc = CLI_EXIT_OK;
    } else if (argv[1][0] == '-') {
        rc = cli_usage_error("unknown option '%s' before the verb", argv[1]);
    } else {
        rc = run_verb(argc - 1, argv + 1);
    }
    /* A full disk or a closed pipe on stdout is a failure, not a success. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno;
        cli_set_verb_name(NULL);
        cli_error("cannot write to standard output: %s", strerror(e));
        if (rc == CLI_EXIT_OK) rc = CLI_EXIT_FAILURE;
    }
    return rc;
}
