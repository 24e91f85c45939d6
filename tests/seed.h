/* Seeds of the test programs (harness.c), in a header that C++ can read too:
 * the emulators (tests/emu, tests/emu_hist) draw theirs the harness's way. */
#ifndef GPT_SEED_H
#define GPT_SEED_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* From the clock and the process id: two runs started together differ. */
uint64_t gpt_fresh_seed(void);
/* A whole string as an unsigned number (decimal, 0x hexadecimal or 0 octal);
 * false for NULL, "" or trailing characters. */
bool gpt_parse_u64(const char *s, uint64_t *v);

#ifdef __cplusplus
}
#endif

#endif
