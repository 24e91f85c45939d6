/* `gpuprim ladder transpose`: placeholder until the ladder is written. */
#include "ladder.h"

#include <stdio.h>

static int run(gpb_env *env, const gpl_opts *o, gpl_report *rep)
{
    (void)env, (void)o, (void)rep;
    fprintf(stderr, "gpuprim ladder: the transpose ladder is not written yet\n");
    return GPB_ERROR;
}

extern "C" const gpl_ladder gpl_ladder_transpose = {"transpose", "not written yet", run};
