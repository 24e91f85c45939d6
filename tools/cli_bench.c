/* `gpuprim bench`: the benchmark harness parses its own arguments. */
#include "cli_common.h"
#include "gp_bench.h"

/* argv[0] is "bench", as gp_bench_main expects. */
static int run_bench(int argc, char **argv) { return gp_bench_main(argc, argv); }

const cli_verb cli_verb_bench = {
    .name = "bench",
    .summary = "benchmark the primitives against peers (see 'gpuprim bench --help')",
    .synopsis = "[bench options]",
    .run_raw = run_bench,
};
