/*
 * Numbers as text, per dtype: parsing with range checks (text input, gen
 * --value) and printing (results, text output). Values are in host byte
 * order, gp_dtype_size(t) bytes each.
 */
#ifndef CLI_VALUES_H
#define CLI_VALUES_H

#include "gpuprim.h"

#include <stddef.h>

int cli_dtype_is_float(gp_dtype t);
int cli_dtype_is_signed(gp_dtype t);

/* 1 if `text` has a mark of a float ('.', an exponent, inf, nan): the
 * text reader's reason to default to f64 rather than i64. The _bytes form
 * reads len bytes, NUL bytes included (a whole file's text). */
int cli_text_looks_float(const char *text);
int cli_text_bytes_look_float(const char *bytes, size_t len);

/* Parses the whole NUL-terminated `text` as one value of dtype t into *out.
 * Returns 0, or -1 with a reason in `err` ("'300' is out of range for u8
 * (0 to 255)"). Integers must be decimal integers in range; floats may
 * underflow to 0 or a subnormal but not overflow (inf must be written). */
int cli_parse_value(const char *text, gp_dtype t, void *out, char *err, size_t err_size);

/* Integers exactly; f64 with %.17g and f32 with %.9g (enough digits to
 * read back the same bits); "nan", "inf", "-inf". */
const char *cli_format_value(const void *value, gp_dtype t, char *buf, size_t size);
/* As cli_format_value, but a JSON value: non-finite floats become the
 * strings "nan", "inf", "-inf" (JSON has no literal for them). */
const char *cli_format_value_json(const void *value, gp_dtype t, char *buf, size_t size);

/* "LO:HI" (histogram --range): two f64 values as cli_parse_value reads
 * them. Returns 0, or -1 with *lo and *hi unset. */
int cli_parse_range(const char *text, double *lo, double *hi);

/* The shortest "%.Ng" from 15 digits that reads back as the same double
 * (a shorter %g would turn 10 into 1e+01); from 1 digit for a subnormal,
 * which from 15 would show its binary value's (1e-320 as
 * 9.99988867182683e-321). */
const char *cli_format_double(double v, char *buf, size_t size);

/* Boundary i (0 to bins) of `bins` even bins over [lo, hi): lo + (hi - lo)
 * x i / bins, finite wherever hi - lo is; boundary `bins` is hi itself. */
double cli_even_boundary(double lo, double hi, int64_t bins, int64_t i);

#endif /* CLI_VALUES_H */
