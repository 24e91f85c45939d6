/* The fuzz targets: see fuzz_targets.h. */
#define _GNU_SOURCE /* open_memstream */
#include "fuzz_targets.h"

#include "cli_arrays.h"
#include "cli_input.h"
#include "cli_output.h"
#include "cli_png.h"
#include "cli_values.h"

#ifdef GPUPRIM_HAVE_PNG
#include <zlib.h>
#endif

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void gpf_violation(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: property broken: ", stdout);
    vfprintf(stdout, fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    fflush(stdout);
    abort();
}

static char flags_path[64];

static void remove_flags_file(void) { unlink(flags_path); }

void gpf_setup(int quiet)
{
    if (quiet && !freopen("/dev/null", "w", stderr)) gpf_violation("cannot send stderr to /dev/null");
    const char *dir = getenv("TMPDIR");
    snprintf(flags_path, sizeof flags_path, "%s/gpf-flags-XXXXXX", dir && strlen(dir) < 40 ? dir : "/tmp");
    int fd = mkstemp(flags_path);
    if (fd < 0) gpf_violation("cannot make a scratch file from %s", flags_path);
    close(fd);
    atexit(remove_flags_file);
}

/* A copy of the input with the spare byte the parsers may write (text). */
static unsigned char *copy_input(const uint8_t *data, size_t size)
{
    unsigned char *buf = malloc(size + 1);
    if (!buf) gpf_violation("out of memory for a %zu-byte input", size);
    if (size) memcpy(buf, data, size);
    buf[size] = 0;
    return buf;
}

/* Every byte of a result, so that a read past it shows under a sanitizer
 * (and the compiler cannot drop the loop). */
static volatile unsigned char sink;
static void touch(const void *p, size_t bytes)
{
    unsigned char acc = 0;
    for (size_t i = 0; i < bytes; i++) acc ^= ((const unsigned char *)p)[i];
    sink ^= acc;
}

int gpf_same_value(const void *a, const void *b, gp_dtype t)
{
    if (t == GP_DTYPE_F32) {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
    } else if (t == GP_DTYPE_F64) {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
    }
    return memcmp(a, b, gp_dtype_size(t)) == 0;
}

/* ------------------------------------------------------------------ .npy */

int gpf_npy(const uint8_t *data, size_t size)
{
    unsigned char *buf = copy_input(data, size);
    cli_array a;
    memset(&a, 0, sizeof a);
    const int took = cli_parse_npy(buf, size, "fuzz.npy", &a) == 0;
    if (took) {
        const size_t elem = gp_dtype_size(a.dtype);
        const unsigned char *at = a.data;
        if (elem == 0 || a.n < 0) gpf_violation("npy: dtype %d, n %lld", (int)a.dtype, (long long)a.n);
        if (at < buf + 10 || at > buf + size || (size_t)a.n > (size_t)(buf + size - at) / elem)
            gpf_violation("npy: %lld items of %zu bytes at offset %td of a %zu-byte file", (long long)a.n, elem,
                          at - buf, size);
        touch(at, (size_t)a.n * elem);

        /* Written back by the tool's writer and read again: the same array. */
        char *out = NULL;
        size_t out_len = 0;
        FILE *fp = open_memstream(&out, &out_len);
        if (!fp) gpf_violation("npy: open_memstream failed");
        const int bad = cli_npy_write_header(fp, a.dtype, a.n) != 0 ||
                        cli_npy_write_values(fp, a.data, a.dtype, (size_t)a.n) != 0;
        fclose(fp);
        if (bad) gpf_violation("npy: writing back %lld items failed", (long long)a.n);
        unsigned char *again_buf = copy_input((const uint8_t *)out, out_len);
        cli_array b;
        memset(&b, 0, sizeof b);
        if (cli_parse_npy(again_buf, out_len, "again.npy", &b) != 0)
            gpf_violation("npy: the file written back does not read");
        if (b.dtype != a.dtype || b.n != a.n || memcmp(a.data, b.data, (size_t)a.n * elem) != 0)
            gpf_violation("npy: the file written back reads differently");
        if (((uintptr_t)b.data - (uintptr_t)again_buf) % 64 != 0)
            gpf_violation("npy: the data written back does not start on a 64-byte boundary");
        free(again_buf);
        free(out);
    }
    free(buf);
    return took;
}

/* ------------------------------------------------------------------ text */

/* The first byte picks the dtype (0: inferred, else one of the ten). */
int gpf_text(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const gp_dtype t = (gp_dtype)(data[0] % 11);
    unsigned char *buf = copy_input(data + 1, size - 1);
    cli_array a;
    memset(&a, 0, sizeof a);
    const int took = cli_parse_text((char *)buf, size - 1, "fuzz.txt", t, &a) == 0;
    if (took) {
        size_t lines = 1;
        for (size_t i = 1; i < size; i++) lines += data[i] == '\n';
        const size_t elem = gp_dtype_size(a.dtype);
        if (elem == 0 || a.n < 0 || (size_t)a.n > lines || (t && a.dtype != t))
            gpf_violation("text: dtype %d (asked %d), n %lld for %zu lines", (int)a.dtype, (int)t, (long long)a.n,
                          lines);
        /* Each value printed as the tool prints it reads back the same. */
        for (int64_t i = 0; i < a.n; i++) {
            const unsigned char *v = (const unsigned char *)a.data + (size_t)i * elem;
            char text[64], err[300];
            unsigned char back[8];
            cli_format_value(v, a.dtype, text, sizeof text);
            if (cli_parse_value(text, a.dtype, back, err, sizeof err) != 0)
                gpf_violation("text: value %lld printed as '%s' does not read back: %s", (long long)i, text, err);
            if (!gpf_same_value(v, back, a.dtype))
                gpf_violation("text: value %lld printed as '%s' reads back differently", (long long)i, text);
        }
        cli_array_free(&a);
    }
    free(buf);
    return took;
}

/* ----------------------------------------------------------------- flags */

int gpf_flags(const uint8_t *data, size_t size)
{
    FILE *fp = fopen(flags_path, "wb");
    if (!fp || (size && fwrite(data, 1, size, fp) != size) || fclose(fp) != 0)
        gpf_violation("flags: cannot write the scratch file %s", flags_path);
    uint8_t *flags = NULL;
    int64_t n = -1;
    const int took = cli_load_flags(flags_path, &flags, &n) == 0;
    if (took) {
        if (!flags || n < 0 || (size_t)n > size) gpf_violation("flags: n %lld from a %zu-byte file", (long long)n, size);
        for (int64_t i = 0; i < n; i++)
            if (flags[i] > 1) gpf_violation("flags: flag %lld is %d, not 0 or 1", (long long)i, flags[i]);
    } else if (flags) {
        gpf_violation("flags: a failed load left flags allocated");
    }
    free(flags);
    return took;
}

/* ------------------------------------------------------------------- PNG */

/* PNG chunks end in a CRC that libpng checks: a mutant with a wrong one is
 * refused before its content is looked at. So every whole chunk's CRC is
 * recomputed first, and the mutations reach the chunks' fields (a zlib
 * stream's own checksum still guards the pixels). */
static void fix_png_crcs(unsigned char *p, size_t n)
{
#ifdef GPUPRIM_HAVE_PNG
    size_t at = 8;
    while (at + 12 <= n) {
        const size_t len = (size_t)p[at] << 24 | (size_t)p[at + 1] << 16 | (size_t)p[at + 2] << 8 | p[at + 3];
        if (len > n - at - 12) break;
        const uLong crc = crc32(0L, p + at + 4, (uInt)(len + 4));
        for (int b = 0; b < 4; b++) p[at + 8 + len + (size_t)b] = (unsigned char)(crc >> (24 - 8 * b));
        at += 12 + len;
    }
#else
    (void)p;
    (void)n;
#endif
}


int gpf_png(const uint8_t *data, size_t size)
{
    unsigned char *buf = copy_input(data, size);
    fix_png_crcs(buf, size);
    cli_image img;
    const int took = cli_png_read(buf, size, "fuzz.png", &img) == 0;
    free(buf);
    if (!took) {
        if (img.pixels) gpf_violation("png: a failed read left pixels allocated");
        return 0;
    }
    if (img.channels < 1 || img.channels > 4 || (img.bit_depth != 8 && img.bit_depth != 16) ||
        img.pixel_bytes != (size_t)img.channels * (size_t)img.bit_depth / 8)
        gpf_violation("png: %d channels of %d bits in %zu-byte pixels", img.channels, img.bit_depth, img.pixel_bytes);
    const size_t bytes = (size_t)img.width * img.height * img.pixel_bytes;
    touch(img.pixels, bytes);

    /* Written back and read again: the same pixels. */
    char *out = NULL;
    size_t out_len = 0;
    FILE *fp = open_memstream(&out, &out_len);
    if (!fp) gpf_violation("png: open_memstream failed");
    const int rc = cli_png_write(&img, fp, "again.png");
    fclose(fp);
    if (rc != 0) gpf_violation("png: writing back a %ux%u image failed", img.width, img.height);
    cli_image again;
    if (cli_png_read((const unsigned char *)out, out_len, "again.png", &again) != 0)
        gpf_violation("png: the image written back does not read");
    if (again.width != img.width || again.height != img.height || again.channels != img.channels ||
        again.bit_depth != img.bit_depth || memcmp(again.pixels, img.pixels, bytes) != 0)
        gpf_violation("png: the image written back reads differently");
    cli_image_free(&again);
    cli_image_free(&img);
    free(out);
    return 1;
}
