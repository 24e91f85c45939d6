/* The generator and the distributions of the test data. */
#include "cli_random.h"
#include "cli_values.h"

#include <math.h>
#include <string.h>
#include <time.h>

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void cli_rng_seed(cli_rng *r, uint64_t seed)
{
    /* splitmix64 never yields four zero words, the one state xoshiro must avoid. */
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t cli_rng_next(cli_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t cli_rng_fresh_seed(void)
{
    struct timespec ts = {0, 0};
    timespec_get(&ts, TIME_UTC);
    int local;
    uint64_t mix = (uint64_t)ts.tv_sec * UINT64_C(1000000007) ^ (uint64_t)ts.tv_nsec ^
                   (uint64_t)(uintptr_t)&local ^ (uint64_t)clock() << 32;
    return splitmix64(&mix);
}

/* [0, 1) with every float of the form k / 2^53 (f64) or k / 2^24 (f32). */
static double unit_f64(cli_rng *r) { return (double)(cli_rng_next(r) >> 11) * 0x1.0p-53; }
static float unit_f32(cli_rng *r) { return (float)(cli_rng_next(r) >> 40) * 0x1.0p-24f; }

/* Box-Muller, one value per pair of draws (simple, and chunking-safe). */
static double normal01(cli_rng *r)
{
    double u1 = 1.0 - unit_f64(r); /* (0, 1]: log(u1) is finite */
    double u2 = unit_f64(r);
    const double two_pi = 6.283185307179586476925286766559;
    return sqrt(-2.0 * log(u1)) * cos(two_pi * u2);
}

static const char *const dist_names[] = {"uniform", "normal", "ascending", "descending", "constant"};

int cli_dist_from_name(const char *name, cli_dist *out)
{
    for (int i = 0; i < (int)(sizeof dist_names / sizeof dist_names[0]); i++)
        if (strcmp(name, dist_names[i]) == 0) {
            *out = (cli_dist)i;
            return 0;
        }
    return -1;
}

const char *cli_dist_name(cli_dist d) { return dist_names[d]; }

/* Stores the low bytes of v (wrap-around into narrow integer dtypes). */
static void store_bits(uint64_t v, size_t size, unsigned char *out)
{
    switch (size) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(out, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(out, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(out, &x, 4); break; }
    default: memcpy(out, &v, 8); break;
    }
}

static void store_float(double v, gp_dtype t, unsigned char *out)
{
    if (t == GP_DTYPE_F32) {
        float f = (float)v;
        memcpy(out, &f, 4);
    } else {
        memcpy(out, &v, 8);
    }
}

/* N(centre, (range/8)^2) rounded and clamped to the integer dtype. */
static void store_normal_integer(double z, gp_dtype t, unsigned char *out)
{
    int bits = (int)gp_dtype_size(t) * 8;
    double span = ldexp(1.0, bits) - 1.0; /* max - min */
    double x = z * span / 8.0;
    if (cli_dtype_is_signed(t)) {
        double lo = -ldexp(1.0, bits - 1), hi = ldexp(1.0, bits - 1); /* hi is max + 1 */
        x = floor(x + 0.5);
        int64_t v = x <= lo ? (int64_t)lo : x >= hi ? (bits == 64 ? INT64_MAX : (int64_t)hi - 1) : (int64_t)x;
        store_bits((uint64_t)v, (size_t)bits / 8, out);
    } else {
        double hi = ldexp(1.0, bits); /* max + 1 */
        x = floor(x + span / 2.0 + 0.5);
        uint64_t v = x <= 0 ? 0 : x >= hi ? (bits == 64 ? UINT64_MAX : (uint64_t)hi - 1) : (uint64_t)x;
        store_bits(v, (size_t)bits / 8, out);
    }
}

void cli_fill(const cli_fill_spec *spec, cli_rng *r, int64_t first, size_t count, void *out)
{
    gp_dtype t = spec->dtype;
    size_t elem = gp_dtype_size(t);
    int is_float = cli_dtype_is_float(t);
    unsigned char *p = (unsigned char *)out;
    for (size_t k = 0; k < count; k++, p += elem) {
        uint64_t i = (uint64_t)first + k;
        switch (spec->dist) {
        case CLI_DIST_UNIFORM:
            if (t == GP_DTYPE_F32) {
                float f = unit_f32(r);
                memcpy(p, &f, 4);
            } else if (t == GP_DTYPE_F64) {
                store_float(unit_f64(r), t, p);
            } else {
                store_bits(cli_rng_next(r), elem, p);
            }
            break;
        case CLI_DIST_NORMAL:
            if (is_float)
                store_float(normal01(r), t, p);
            else
                store_normal_integer(normal01(r), t, p);
            break;
        case CLI_DIST_ASCENDING:
        case CLI_DIST_DESCENDING: {
            uint64_t v = spec->dist == CLI_DIST_ASCENDING ? i : (uint64_t)spec->n - 1 - i;
            if (is_float)
                store_float((double)v, t, p); /* exact below 2^53, so f32 rounds once */
            else
                store_bits(v, elem, p);
            break;
        }
        case CLI_DIST_CONSTANT:
            memcpy(p, spec->constant, elem);
            break;
        }
    }
}
