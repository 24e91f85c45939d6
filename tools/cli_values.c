/* Parsing and printing one value of a dtype. */
#include "cli_values.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_dtype_is_float(gp_dtype t) { return t == GP_DTYPE_F32 || t == GP_DTYPE_F64; }

int cli_dtype_is_signed(gp_dtype t)
{
    return t == GP_DTYPE_I8 || t == GP_DTYPE_I16 || t == GP_DTYPE_I32 || t == GP_DTYPE_I64;
}

int cli_text_bytes_look_float(const char *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (bytes[i] != '\0' && strchr(".eEiInN", bytes[i])) return 1;
    return 0;
}

int cli_text_looks_float(const char *text) { return cli_text_bytes_look_float(text, strlen(text)); }

/* The range of an integer dtype, from its size. */
static void signed_range(gp_dtype t, int64_t *lo, int64_t *hi)
{
    int bits = (int)gp_dtype_size(t) * 8;
    *hi = bits == 64 ? INT64_MAX : (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
    *lo = -*hi - 1;
}

static uint64_t unsigned_max(gp_dtype t)
{
    int bits = (int)gp_dtype_size(t) * 8;
    return bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

/* Stores the low gp_dtype_size(t) bytes of v: for an in-range value this is
 * the value itself in host byte order, whatever that order is. */
static void store_integer(uint64_t v, gp_dtype t, void *out)
{
    switch (gp_dtype_size(t)) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(out, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(out, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(out, &x, 4); break; }
    default: memcpy(out, &v, 8); break;
    }
}

/* Why integer text did not parse: a float where an integer belongs, or junk. */
static int explain_not_integer(const char *text, gp_dtype t, char *err, size_t err_size)
{
    char *end;
    strtod(text, &end);
    if (end != text && !*end)
        snprintf(err, err_size, "'%s' is not an integer (the dtype is %s)", text, gp_dtype_name(t));
    else
        snprintf(err, err_size, "'%s' is not a number", text);
    return -1;
}

static int parse_signed(const char *text, gp_dtype t, void *out, char *err, size_t err_size)
{
    int64_t lo, hi;
    signed_range(t, &lo, &hi);
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end) return explain_not_integer(text, t, err, err_size);
    if (errno == ERANGE || v < lo || v > hi) {
        snprintf(err, err_size, "'%s' is out of range for %s (%" PRId64 " to %" PRId64 ")", text,
                 gp_dtype_name(t), lo, hi);
        return -1;
    }
    store_integer((uint64_t)v, t, out);
    return 0;
}

static int parse_unsigned(const char *text, gp_dtype t, void *out, char *err, size_t err_size)
{
    uint64_t hi = unsigned_max(t);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || *end) return explain_not_integer(text, t, err, err_size);
    /* strtoull wraps "-1" to the maximum; a minus sign is out of range. */
    if (errno == ERANGE || v > hi || strchr(text, '-')) {
        snprintf(err, err_size, "'%s' is out of range for %s (0 to %" PRIu64 ")", text, gp_dtype_name(t), hi);
        return -1;
    }
    store_integer((uint64_t)v, t, out);
    return 0;
}

static int parse_float(const char *text, gp_dtype t, void *out, char *err, size_t err_size)
{
    char *end;
    errno = 0;
    /* strtof for f32 rounds once, from the decimal text straight to float. */
    double v64 = 0;
    float v32 = 0;
    if (t == GP_DTYPE_F32)
        v32 = strtof(text, &end);
    else
        v64 = strtod(text, &end);
    if (end == text || *end) {
        snprintf(err, err_size, "'%s' is not a number", text);
        return -1;
    }
    int overflow = errno == ERANGE && (t == GP_DTYPE_F32 ? isinf(v32) : isinf(v64));
    if (overflow) {
        snprintf(err, err_size, "'%s' is out of range for %s", text, gp_dtype_name(t));
        return -1;
    }
    if (t == GP_DTYPE_F32)
        memcpy(out, &v32, sizeof v32);
    else
        memcpy(out, &v64, sizeof v64);
    return 0;
}

/* 0x or 0X after an optional sign: strtod reads it, strtoll in base 10
 * does not, so hexadecimal is refused for every dtype alike. */
static int is_hexadecimal(const char *text)
{
    const char *p = text + (*text == '+' || *text == '-');
    return p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
}

int cli_parse_value(const char *text, gp_dtype t, void *out, char *err, size_t err_size)
{
    if (is_hexadecimal(text)) {
        snprintf(err, err_size, "'%s' is hexadecimal: numbers are read in decimal", text);
        return -1;
    }
    if (cli_dtype_is_float(t)) return parse_float(text, t, out, err, err_size);
    if (cli_dtype_is_signed(t)) return parse_signed(text, t, out, err, err_size);
    return parse_unsigned(text, t, out, err, err_size);
}

static const char *format_float(double v, int digits, int json, char *buf, size_t size)
{
    if (isnan(v))
        snprintf(buf, size, json ? "\"nan\"" : "nan");
    else if (isinf(v))
        snprintf(buf, size, v > 0 ? (json ? "\"inf\"" : "inf") : (json ? "\"-inf\"" : "-inf"));
    else
        snprintf(buf, size, "%.*g", digits, v);
    return buf;
}

static const char *format_any(const void *value, gp_dtype t, int json, char *buf, size_t size)
{
    switch (t) {
    case GP_DTYPE_I8: { int8_t x; memcpy(&x, value, 1); snprintf(buf, size, "%d", (int)x); break; }
    case GP_DTYPE_U8: { uint8_t x; memcpy(&x, value, 1); snprintf(buf, size, "%u", (unsigned)x); break; }
    case GP_DTYPE_I16: { int16_t x; memcpy(&x, value, 2); snprintf(buf, size, "%d", (int)x); break; }
    case GP_DTYPE_U16: { uint16_t x; memcpy(&x, value, 2); snprintf(buf, size, "%u", (unsigned)x); break; }
    case GP_DTYPE_I32: { int32_t x; memcpy(&x, value, 4); snprintf(buf, size, "%" PRId32, x); break; }
    case GP_DTYPE_U32: { uint32_t x; memcpy(&x, value, 4); snprintf(buf, size, "%" PRIu32, x); break; }
    case GP_DTYPE_I64: { int64_t x; memcpy(&x, value, 8); snprintf(buf, size, "%" PRId64, x); break; }
    case GP_DTYPE_U64: { uint64_t x; memcpy(&x, value, 8); snprintf(buf, size, "%" PRIu64, x); break; }
    case GP_DTYPE_F32: { float x; memcpy(&x, value, 4); return format_float(x, 9, json, buf, size); }
    case GP_DTYPE_F64: { double x; memcpy(&x, value, 8); return format_float(x, 17, json, buf, size); }
    default: snprintf(buf, size, "?"); break;
    }
    return buf;
}

const char *cli_format_value(const void *value, gp_dtype t, char *buf, size_t size)
{
    return format_any(value, t, 0, buf, size);
}

const char *cli_format_value_json(const void *value, gp_dtype t, char *buf, size_t size)
{
    return format_any(value, t, 1, buf, size);
}

int cli_parse_range(const char *text, double *lo, double *hi)
{
    const char *colon = strchr(text, ':');
    char left[64], err[160];
    double l, h;
    const size_t len = colon ? (size_t)(colon - text) : 0;
    if (!colon || len == 0 || len >= sizeof left || cli_parse_value(colon + 1, GP_DTYPE_F64, &h, err, sizeof err) != 0)
        return -1;
    memcpy(left, text, len);
    left[len] = '\0';
    if (cli_parse_value(left, GP_DTYPE_F64, &l, err, sizeof err) != 0) return -1;
    *lo = l;
    *hi = h;
    return 0;
}

const char *cli_format_double(double v, char *buf, size_t size)
{
    for (int digits = fpclassify(v) == FP_SUBNORMAL ? 1 : 15; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

double cli_even_boundary(double lo, double hi, int64_t bins, int64_t i)
{
    if (i == bins) return hi;
    /* The span times i passes DBL_MAX for a span near it (--range
     * 0:1e308): then the fraction first, which cannot overflow. */
    const double span = hi - lo, scaled = span * (double)i;
    return lo + (isfinite(scaled) ? scaled / (double)bins : span * ((double)i / (double)bins));
}
