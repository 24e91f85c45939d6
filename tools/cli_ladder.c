/* `gpuprim ladder`: the seeds' experiments; the harness parses its own arguments. */
#include "cli_common.h"
#include "gp_bench.h"

/* argv[0] is "ladder", as gp_ladder_main expects. */
static int run_ladder(int argc, char **argv) { return gp_ladder_main(argc, argv); }

const cli_verb cli_verb_ladder = {
    .name = "ladder",
    .summary = "rerun a seed article's experiment: reduce, transpose, atomics, stalin",
    .synopsis = "NAME [ladder options]",
    .run_raw = run_ladder,
};
