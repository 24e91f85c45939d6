/* Entry point of `gpuprim bench`, called by the tool with the verb's arguments
 * (argv[0] is "bench"). Returns the process exit code. */
#ifndef GP_BENCH_H
#define GP_BENCH_H

#ifdef __cplusplus
extern "C" {
#endif

int gp_bench_main(int argc, char **argv);
/* Entry point of `gpuprim ladder` (argv[0] is "ladder"). */
int gp_ladder_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
