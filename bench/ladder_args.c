/* `gpuprim ladder`'s options and the ladder table (ladder.h). */
#include "ladder.h"

#include <stdio.h>
#include <string.h>

#ifdef GPUPRIM_BENCH_CUDA
extern const gpl_ladder gpl_ladder_reduce, gpl_ladder_transpose, gpl_ladder_atomics, gpl_ladder_stalin;
static const gpl_ladder *const ladders[] = {&gpl_ladder_reduce, &gpl_ladder_transpose, &gpl_ladder_atomics,
                                            &gpl_ladder_stalin};
enum { NLADDERS = sizeof ladders / sizeof ladders[0] };
#else
static const gpl_ladder *const *const ladders = NULL;
enum { NLADDERS = 0 };
#endif
/* Every name, also in builds without CUDA, so that they can say why not. */
static const char *const ladder_names[] = {"reduce", "transpose", "atomics", "stalin"};
enum { NNAMES = sizeof ladder_names / sizeof ladder_names[0] };

static void usage(FILE *f)
{
    fputs("usage: gpuprim ladder NAME [options]\n"
          "The seed articles' experiments on the present GPU, each rung checked against a\n"
          "serial reference and timed in the same run as gpuprim and its best peer.\n"
          "ladders:\n",
          f);
    for (int i = 0; i < NLADDERS; i++) fprintf(f, "  %-10s %s\n", ladders[i]->name, ladders[i]->about);
    if (NLADDERS == 0) fputs("  reduce, transpose, atomics, stalin (need a CUDA build; this one has none)\n", f);
    fputs("options:\n"
          "  --device N               CUDA device (default 0)\n"
          "  --runs N                 timed calls per rung (default 20)\n"
          "  --warmup N               untimed calls before them (default 3)\n"
          "  --seed N                 input seed (default 1)\n"
          "  --sizes LIST             replace the ladder's default sizes (e.g. 1000,2^20)\n"
          "  --check                  check every rung at small and boundary sizes, no timing\n"
          "  --csv FILE, --json FILE  also write the rows for programs\n"
          "Exit status: 0; 1 if a rung disagreed with the reference (the racy rung of the\n"
          "atomics ladder excepted: its variance is the point); 2 on a usage or runtime error.\n",
          f);
}

/* A size for --sizes; take_option bounds it at 2^40 elements a rung. */
static int size_item(const char *s, int i, void *dst) { return gpb_parse_size(s, &((int64_t *)dst)[i]); }

/* The ladder's own options (gpb_command's take). */
static int take_option(const char *name, const char *val, void *ctx)
{
    gpl_args *a = ctx;
    if (!strcmp(name, "--sizes")) {
        const int max = (int)(sizeof a->o.sizes / sizeof a->o.sizes[0]);
        if (gpb_parse_list("ladder", name, val, max, size_item, a->o.sizes, &a->o.nsizes) != GPB_OK) return GPB_ERROR;
        return gpb_sizes_at_most("ladder", a->o.sizes, a->o.nsizes, INT64_C(1) << 40,
                                 "2^40, the most the ladders take");
    }
    if (!strcmp(name, "--csv")) a->csv = val;
    if (!strcmp(name, "--json")) a->json = val;
    return GPB_OK;
}

int gpl_parse_args(int argc, char **argv, gpl_args *a)
{
    static const char *const known[] = {"--device", "--runs", "--warmup", "--seed", "--sizes", "--csv", "--json"};
    static const gpb_command ladder = {"ladder", known, sizeof known / sizeof known[0], "--check", usage, take_option};
    memset(a, 0, sizeof *a);
    return gpb_parse_command(&ladder, argc, argv, &a->name, &a->o.check_only, &a->run, a);
}

const gpl_ladder *gpl_find_ladder(const char *name, int *known)
{
    *known = 0;
    for (int i = 0; i < NNAMES; i++) *known |= !strcmp(ladder_names[i], name);
    for (int i = 0; i < NLADDERS; i++)
        if (!strcmp(ladders[i]->name, name)) return ladders[i];
    return NULL;
}
