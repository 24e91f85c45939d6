/*
 * A seeded mutation run of the fuzz targets, for every build (ctest
 * fuzz_inputs): well-formed inputs of each kind are made here, then
 * mutated (bits flipped, bytes set to values that matter to the parsers,
 * ranges inserted, deleted, copied, the end cut) and handed to their
 * target. Deterministic from the seed it prints, so a failure is rerun
 * with --seed S --target T --trace, which names each input before it runs.
 *
 *   fuzz_replay [--seed S] [--iterations N] [--target npy|text|flags|png|args|api] [--trace]
 *               [--backend cpu|cuda]   (the api target's; cuda exits 77 where no GPU is usable)
 *   fuzz_replay --target T FILE...      run T on each file (a libFuzzer find)
 *   fuzz_replay --target T --write-seeds DIR   T's seeds as files (libFuzzer's corpus)
 */
#define _GNU_SOURCE /* open_memstream */
#include "fuzz_targets.h"

#include "cli_input.h"
#include "cli_png.h"
#include "harness.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef GPUPRIM_HAVE_PNG
#include <png.h>
#endif

enum { GPF_MAX_INPUT = 1 << 14, GPF_MAX_SEEDS = 256 };

typedef struct blob {
    unsigned char *p;
    size_t n;
} blob;

typedef struct corpus {
    blob seeds[GPF_MAX_SEEDS];
    int count;
} corpus;

static void add_seed(corpus *c, const void *p, size_t n)
{
    if (c->count == GPF_MAX_SEEDS || n > GPF_MAX_INPUT) return;
    c->seeds[c->count].p = malloc(n ? n : 1);
    if (!c->seeds[c->count].p) gpf_violation("out of memory for the seeds");
    memcpy(c->seeds[c->count].p, p, n);
    c->seeds[c->count++].n = n;
}

/* ----------------------------------------------------------------- seeds */

/* A .npy file of version `major` with a dict as given and `data_bytes`
 * random bytes; the header padded to 64 bytes as numpy pads it, or by
 * `pad` spaces when pad >= 0 (data then misaligned). */
static void npy_seed(corpus *c, gpt_rng *r, int major, const char *dict, size_t data_bytes, int pad)
{
    unsigned char f[1024];
    const size_t prefix = major == 1 ? 10 : 12, k = strlen(dict);
    size_t header = pad >= 0 ? k + (size_t)pad + 1 : ((prefix + k + 1 + 63) / 64 * 64) - prefix;
    if (prefix + header + data_bytes > sizeof f) return;
    memcpy(f, "\x93NUMPY", 6);
    f[6] = (unsigned char)major;
    f[7] = 0;
    for (size_t b = 0; b < prefix - 8; b++) f[8 + b] = (unsigned char)(header >> (8 * b));
    memcpy(f + prefix, dict, k);
    memset(f + prefix + k, ' ', header - k - 1);
    f[prefix + header - 1] = '\n';
    for (size_t i = 0; i < data_bytes; i++) f[prefix + header + i] = (unsigned char)gpt_next(r);
    add_seed(c, f, prefix + header + data_bytes);
}

static void npy_seeds(corpus *c, gpt_rng *r)
{
    static const char *descrs[] = {"|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f4", "<f8"};
    static const int sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
    char dict[256];
    for (int d = 0; d < 10; d++)
        for (int n = 0; n <= 9; n += 3) {
            snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }", descrs[d], n);
            npy_seed(c, r, 1 + (d + n) % 3, dict, (size_t)n * (size_t)sizes[d], -1);
        }
    npy_seed(c, r, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }", 20, 1); /* misaligned data */
    npy_seed(c, r, 1, "{\"shape\": (3L,), \"fortran_order\": False, \"descr\": \"<f8\"}", 24, -1);
    npy_seed(c, r, 1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", 24, -1);
    npy_seed(c, r, 1, "{'descr': '>i4', 'fortran_order': False, 'shape': (), }", 4, -1);
    npy_seed(c, r, 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (12,), }", 12, -1); /* flags */
    npy_seed(c, r, 2, "{'descr': '|b1', 'fortran_order': False, 'shape': (0,), }", 0, -1);
}

static void text_seeds(corpus *c)
{
    /* The first byte picks the dtype (fuzz_targets.c: 0 inferred, 1-10). */
#define TEXT(s) {s, sizeof s - 1}
    static const struct {
        const char *p;
        size_t n;
    } texts[] = {
        TEXT("\0001\n2\n3\n"), TEXT("\000-3.5e10\nnan\n-inf\ninf\n1e-320\n"), TEXT("\000  4  \n\n\t5\r\n"),
        TEXT("\00018446744073709551615\n"), TEXT("\0009223372036854775807\n-9223372036854775808\n"),
        TEXT("\001-128\n127\n"), TEXT("\002255\n0\n"), TEXT("\003-32768\n"), TEXT("\00465535\n"),
        TEXT("\005-2147483648\n"), TEXT("\0064294967295\n"), TEXT("\0071\n"), TEXT("\0102\n"),
        TEXT("\0113.4028235e38\n-0\n1.17549435e-38\n"), TEXT("\0121.7976931348623157e308\n4.9e-324\n-0.0\n"),
        TEXT("\0000x10\n"), TEXT("\0001 2\n"), TEXT("\000+7\n"),
    };
#undef TEXT
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) add_seed(c, texts[i].p, texts[i].n);
}

/* Command lines, "verb|arg|arg...": the verb becomes the target's first
 * byte, each '|' a NUL (list: the bench's and ladder's comma lists; bench
 * and ladder: their own command lines). */
static void args_seeds(corpus *c)
{
    static const char *const lines[] = {
        "info|--no-bandwidth|--json",
        "gen|--dtype|f32|--n|2^20|--dist|constant|--value|-1.5e-3|--seed|0x2a|-o|x.npy",
        "gen|--dtype=u64|--n=18446744073709551615|--seed=-1|-ox.txt",
        "reduce|--op|max|--out-dtype|i64|--dtype|i16|--backend|cpu|in.txt",
        "scan|--op|xor|--exclusive|--init|-128|--dtype|i8|in.npy|-o|out.npy|--json",
        "scan|--op=prod|--init=nan|--out-dtype=f64|--|-in.npy|-o|-",
        "select|--flags|f.npy|in.npy|-o|out.npy",
        "select|--if|ge:-0.0|--dtype|f32|in.txt|-o|out.txt|--backend=cuda",
        "partition|--if|ne:9223372036854775807|in.npy|-o|out.npy",
        "stalin|--descending|--json|in.npy|-o|out.npy",
        "count|--if|lt:2^8|--dtype|u8|in.txt",
        "histogram|--bins|2^20|--range|0:1|--plot|h.png|-o|h.npy|in.npy",
        "histogram|--range|0:1.5e308|--bins|3|in.txt",
        "histogram|--range|0:2e-320|--bins|7|--range=4.9e-324:1.7976931348623157e308|in.txt",
        "transpose|--rotate|270|--flip|v|in.png|-o|out.png",
        "demo|--n|2^10|--runs|3|--seed|2026",
        "list|1,2^40,1000000|2^62,,9223372036854775807|0,-1,2^63|2^5x,+3, 4",
        "list|--sizes=2^10,3|--runs|7|--hold|--backend=cpu|--seed|-5|--dtype",
        "bench|scan,select|--dtype|i32,u8,c16|--op|max,sum|--sizes|1000,2^20,2^5,32|--min-log2|3|--max-log2|9",
        "bench|all|--max-log2|-1|--sizes=7|--hold=off|--runs|1|--warmup|0|--seed|9223372036854775807",
        "bench|transpose|--shapes|1920x1080,7x30000|--backend|cpu|--csv|a.csv|--json|a.json|--plot|p.png",
        "bench|filter-vs-cpu,reduce,histogram|--min-log2|0|--max-log2=40|--backend=cuda|--device|3",
        "ladder|stalin|--check|--sizes|10,2^40,100000|--runs=5|--warmup|0|--seed|7|--csv|l.csv|--json=l.json",
        "ladder|atomics|--device=1|--sizes|1920x1080|transpose",
        "bench|reduce|--runs|0", /* the run's numbers one past their bounds, each refused */
        "bench|scan|--warmup=100001",
        "ladder|reduce|--device|1025",
        "ladder|stalin|--seed=-1",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        unsigned char buf[256];
        const char *bar = strchr(lines[i], '|');
        char verb[16];
        snprintf(verb, sizeof verb, "%.*s", (int)(bar - lines[i]), lines[i]);
        buf[0] = (unsigned char)gpf_args_choice(verb);
        size_t n = 1;
        for (const char *p = bar + 1; *p; p++) buf[n++] = *p == '|' ? 0 : (unsigned char)*p;
        add_seed(c, buf, n);
    }
}

/* Library calls (fuzz_api.c's byte layout): each call on valid arguments
 * of a few dtypes and sizes, one tile and several, and transposes of a few
 * shapes, so that mutants start from calls that run and reach the refusals
 * one byte away. */
static void api_seeds(corpus *c)
{
    for (int kind = 0; kind < 15; kind++) /* 13 and 14: the partition_copy calls */
        for (int k = 0; k < 4; k++) {
            const unsigned t = (unsigned)(kind * 3 + k * 4) % 10, big = k % 2;
            const unsigned char s[] = {
                (unsigned char)kind,
                (unsigned char)t,                     /* dtype 1 + t */
                0,                                    /* out dtype: the same */
                (unsigned char)(1 + (kind + k) % 4),  /* sum, prod, min, max */
                (unsigned char)(1 + (kind + k) % 6),  /* lt .. ne */
                (unsigned char)(big ? 0x35 : 37),     /* n: 37, or 6387 */
                (unsigned char)(big ? 0xb5 : 0),
                0,                                    /* every pointer its own, aligned */
                0,
                (unsigned char)(k * 0x15),            /* offsets */
                (unsigned char)(k + kind),            /* the data's kind */
                (unsigned char)(64 * k + 10),         /* flags set */
                (unsigned char)(7 + 40 * k), 0,       /* bins */
                (unsigned char)(k * 37),              /* range */
                (unsigned char)(0x10 | (k << 5) | (k << 6)), /* host_count; init; value from the data */
                (unsigned char)(k % 2),               /* flags word */
                (unsigned char)(k == 3 ? 5 : k),      /* a caller's workspace: none, exact, short, more */
                /* The transpose's: elem_size 1, 2, 4, 8; rows, cols; strides, batches, flags (a
                 * partition_copy's out_rejected: its own, k elements in; k 3: just past out_selected) */
                (unsigned char)(kind < 13 ? k : k < 3 ? k << 2 : 0x93),
                (unsigned char)(5 + 11 * k), (unsigned char)(33 - 7 * k), (unsigned char)(6 * k),
                (unsigned char)(k * 0x15 + 2), (unsigned char)k, 0, (unsigned char)(k % 2 ? 5 : 0), /* k odd: in place */
            };
            add_seed(c, s, sizeof s);
        }
}

#ifdef GPUPRIM_HAVE_PNG
typedef struct png_out {
    unsigned char buf[GPF_MAX_INPUT];
    size_t n;
} png_out;

static void png_put(png_structp png, png_bytep p, png_size_t n)
{
    png_out *o = (png_out *)png_get_io_ptr(png);
    if (n > sizeof o->buf - o->n) png_error(png, "seed too large");
    memcpy(o->buf + o->n, p, n);
    o->n += n;
}
static void png_flush(png_structp png) { (void)png; }

/* A w x h image of libpng's color type and depth, random samples, with a
 * palette, tRNS or interlacing where asked: the kinds the reader expands. */
static void png_seed(corpus *c, gpt_rng *r, uint32_t w, uint32_t h, int color, int depth, int trns, int interlace)
{
    static png_out o;
    o.n = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        gpf_violation("png seed %ux%u color %d depth %d could not be written", w, h, color, depth);
    }
    png_set_write_fn(png, &o, png_put, png_flush);
    png_set_IHDR(png, info, w, h, depth, color, interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_color palette[16];
    png_byte alpha[16];
    png_color_16 key = {0, 1, 1, 1, 1};
    for (int i = 0; i < 16; i++) {
        palette[i].red = (png_byte)(i * 16);
        palette[i].green = (png_byte)(255 - i);
        palette[i].blue = (png_byte)(i * 7);
        alpha[i] = (png_byte)(i * 17);
    }
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_PLTE(png, info, palette, 1 << (depth < 4 ? depth : 4));
    if (trns) png_set_tRNS(png, info, alpha, color == PNG_COLOR_TYPE_PALETTE ? 2 : 0, &key);
    png_write_info(png, info);
    const size_t row = png_get_rowbytes(png, info);
    unsigned char rows[8][64];
    png_bytep ptrs[8];
    for (uint32_t y = 0; y < h; y++) {
        for (size_t i = 0; i < row; i++) rows[y][i] = (unsigned char)gpt_next(r);
        if (color == PNG_COLOR_TYPE_PALETTE && depth == 8)
            for (size_t i = 0; i < row; i++) rows[y][i] &= 15; /* inside the palette */
        ptrs[y] = rows[y];
    }
    png_write_image(png, ptrs);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    add_seed(c, o.buf, o.n);
}

static void png_seeds(corpus *c, gpt_rng *r)
{
    png_seed(c, r, 3, 2, PNG_COLOR_TYPE_GRAY, 8, 0, 0);
    png_seed(c, r, 5, 3, PNG_COLOR_TYPE_GRAY, 1, 0, 0);
    png_seed(c, r, 4, 4, PNG_COLOR_TYPE_GRAY, 16, 1, 0);
    png_seed(c, r, 2, 2, PNG_COLOR_TYPE_GRAY_ALPHA, 16, 0, 0);
    png_seed(c, r, 4, 1, PNG_COLOR_TYPE_RGB, 8, 1, 0);
    png_seed(c, r, 1, 3, PNG_COLOR_TYPE_RGB_ALPHA, 16, 0, 0);
    png_seed(c, r, 7, 5, PNG_COLOR_TYPE_PALETTE, 2, 1, 0);
    png_seed(c, r, 6, 6, PNG_COLOR_TYPE_PALETTE, 8, 0, 1);
    png_seed(c, r, 8, 8, PNG_COLOR_TYPE_RGB, 8, 0, 1);
}
#endif

/* ------------------------------------------------------------- mutations */

static const unsigned char interesting[] = {0,   1,   0x7f, 0x80, 0xff, '0', '9', '(', ')', ',', '\'', '"', ' ',
                                            '\n', '{', '}',  ':',  '-',  '.', 'e', 'L', 'i', 'n', 'f',  'T', '<',
                                            '^',  '=', 'x'};

static size_t mutate(unsigned char *p, size_t n, gpt_rng *r)
{
    const int steps = 1 + (int)gpt_below(r, 4);
    for (int s = 0; s < steps; s++) {
        const size_t at = n ? (size_t)gpt_below(r, n) : 0;
        switch (gpt_below(r, 9)) {
        case 0: if (n) p[at] ^= (unsigned char)(1u << gpt_below(r, 8)); break;
        case 1: if (n) p[at] = (unsigned char)gpt_next(r); break;
        case 2: if (n) p[at] = interesting[gpt_below(r, sizeof interesting)]; break;
        case 3: { /* insert up to 16 bytes */
            const size_t k = 1 + (size_t)gpt_below(r, 16);
            if (n + k > GPF_MAX_INPUT) break;
            memmove(p + at + k, p + at, n - at);
            for (size_t i = 0; i < k; i++) p[at + i] = interesting[gpt_below(r, sizeof interesting)];
            n += k;
            break;
        }
        case 4: { /* delete up to 16 bytes */
            const size_t k = n - at < 16 ? n - at : 1 + (size_t)gpt_below(r, 16);
            memmove(p + at, p + at + k, n - at - k);
            n -= k;
            break;
        }
        case 5: { /* copy a range over another */
            if (!n) break;
            const size_t from = (size_t)gpt_below(r, n), k = 1 + (size_t)gpt_below(r, 32);
            for (size_t i = 0; i < k && from + i < n && at + i < n; i++) p[at + i] = p[from + i];
            break;
        }
        case 6: n = at; break; /* cut the end */
        case 7: { /* a 2- or 4-byte little-endian length: the .npy header's, a PNG chunk's */
            static const uint32_t words[] = {0, 1, 0xff, 0x100, 0xffff, 0x10000, 0x7fffffff, 0xffffffff};
            const uint32_t w = words[gpt_below(r, 8)];
            const size_t k = gpt_below(r, 2) ? 2 : 4;
            for (size_t i = 0; i < k && at + i < n; i++) p[at + i] = (unsigned char)(w >> (8 * i));
            break;
        }
        default: if (n) p[at] = (unsigned char)('0' + gpt_below(r, 10)); break; /* a digit: shapes, numbers */
        }
    }
    return n;
}

/* ------------------------------------------------------------------- run */

static const char *running_target = "";
static long running_input = -1;

static void on_crash(int sig)
{
    char msg[160];
    const int k = snprintf(msg, sizeof msg, "\nfuzz: signal %d in target %s, input %ld\n", sig, running_target,
                           running_input);
    if (k > 0 && write(STDOUT_FILENO, msg, (size_t)k) < 0) _exit(2);
    signal(sig, SIG_DFL);
    raise(sig);
}

static const struct {
    const char *name;
    gpf_target fn;
} targets[] = {{"npy", gpf_npy},   {"text", gpf_text}, {"flags", gpf_flags},
               {"png", gpf_png},   {"args", gpf_args}, {"api", gpf_api}};
enum { TARGET_COUNT = sizeof targets / sizeof targets[0] };

/* Runs the seeds, then `iterations` mutants; returns how many inputs the
 * reader took (a run that takes none tests only the refusals). */
static long run_target(int t, corpus *c, uint64_t seed, long iterations, int trace)
{
    static unsigned char buf[GPF_MAX_INPUT];
    gpt_rng r = {gpt_derive(seed, (uint64_t)t, 0, 0, 0)};
    running_target = targets[t].name;
    long took = 0;
    for (long i = -c->count; i < iterations; i++) {
        size_t n;
        if (i < 0) { /* each seed as made, first */
            n = c->seeds[i + c->count].n;
            memcpy(buf, c->seeds[i + c->count].p, n);
        } else {
            const blob *b = &c->seeds[gpt_below(&r, (uint64_t)c->count)];
            memcpy(buf, b->p, b->n);
            n = mutate(buf, b->n, &r);
        }
        running_input = i;
        if (trace) {
            printf("fuzz: %s input %ld (%zu bytes)\n", running_target, i, n);
            fflush(stdout);
        }
        took += targets[t].fn(buf, n);
    }
    return took;
}

/* Each file whole, read as the tool reads its inputs (cli_read_file). */
static int run_files(int t, int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++) {
        unsigned char *buf;
        size_t n;
        const char *name;
        if (cli_read_file(argv[i], &buf, &n, &name) != 0) {
            printf("fuzz: cannot read %s\n", argv[i]);
            return 2;
        }
        printf("fuzz: %s on %s (%zu bytes): ", targets[t].name, argv[i], n);
        fflush(stdout);
        printf("%s\n", targets[t].fn(buf, n) ? "read and checked" : "refused");
        free(buf);
    }
    printf("fuzz: %d files passed\n", argc - first);
    return 0;
}

static int write_seeds(const corpus *c, const char *dir)
{
    for (int i = 0; i < c->count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/seed-%03d", dir, i);
        FILE *fp = fopen(path, "wb");
        if (!fp || fwrite(c->seeds[i].p, 1, c->seeds[i].n, fp) != c->seeds[i].n || fclose(fp) != 0) {
            printf("fuzz: cannot write %s\n", path);
            return 2;
        }
    }
    printf("fuzz: %d seeds written to %s\n", c->count, dir);
    return 0;
}

/* The api target's backend: 0, or the exit status when it cannot be had (2
 * for an unknown name; 77 or 1 as the tests' harness says, gpt_backend_unusable). */
static int select_backend(const char *name)
{
    gp_backend b;
    if (gp_backend_from_name(name, &b) != GP_STATUS_OK) {
        printf("fuzz: no backend '%s' (cpu, cuda)\n", name);
        return 2;
    }
    const int unusable = gpt_backend_unusable(b);
    if (!unusable) gpf_api_backend(b);
    return unusable;
}

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    long iterations = 20000;
    int only = -1, trace = 0, files = 0;
    const char *seed_dir = NULL, *backend = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--iterations") && i + 1 < argc) iterations = strtol(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--trace")) trace = 1;
        else if (!strcmp(argv[i], "--write-seeds") && i + 1 < argc) seed_dir = argv[++i];
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) backend = argv[++i];
        else if (!strcmp(argv[i], "--target") && i + 1 < argc) {
            ++i;
            for (int t = 0; t < TARGET_COUNT; t++)
                if (!strcmp(argv[i], targets[t].name)) only = t;
            if (only < 0) {
                printf("fuzz: no target '%s' (npy, text, flags, png, args, api)\n", argv[i]);
                return 2;
            }
        } else if (argv[i][0] != '-') {
            files = i;
            break;
        } else {
            printf("usage: fuzz_replay [--seed S] [--iterations N] [--target T] [--trace] [--backend B] "
                   "[--write-seeds DIR] [FILE...]\n");
            return 2;
        }
    }
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGABRT, on_crash);
    signal(SIGFPE, on_crash);
    printf("fuzz: seed %" PRIu64 " (rerun: --seed %" PRIu64 "), %ld mutated inputs a target\n", seed, seed,
           iterations);
    fflush(stdout);
    if (backend) {
        const int rc = select_backend(backend);
        if (rc) return rc;
    }
    gpf_setup(1);
    if (files) {
        if (only < 0) {
            printf("fuzz: FILE... needs --target\n");
            return 2;
        }
        return run_files(only, argc, argv, files);
    }

    static corpus npy, text, flags, png, args, api;
    gpt_rng r = {gpt_derive(seed, 99, 0, 0, 0)};
    npy_seeds(&npy, &r);
    text_seeds(&text);
    args_seeds(&args);
    api_seeds(&api);
#ifdef GPUPRIM_HAVE_PNG
    png_seeds(&png, &r);
#endif
    /* Flags files are .npy or text (without the text target's dtype byte). */
    for (int i = 0; i < npy.count; i++) add_seed(&flags, npy.seeds[i].p, npy.seeds[i].n);
    for (int i = 0; i < text.count; i++) add_seed(&flags, text.seeds[i].p + 1, text.seeds[i].n - 1);
    corpus *for_target[TARGET_COUNT] = {&npy, &text, &flags, &png, &args, &api};
    if (seed_dir) {
        if (only < 0) {
            printf("fuzz: --write-seeds needs --target\n");
            return 2;
        }
        return write_seeds(for_target[only], seed_dir);
    }
    for (int t = 0; t < TARGET_COUNT; t++) {
        if (only >= 0 && t != only) continue;
        if (for_target[t]->count == 0) {
            printf("fuzz: %s: no seeds (%s)\n", targets[t].name, t == 3 ? "built without libpng" : "none made");
            continue;
        }
        const long took = run_target(t, for_target[t], seed, iterations, trace);
        printf("fuzz: %s: %d seeds and %ld mutants, %ld read and checked, the rest refused; no property broken\n",
               targets[t].name, for_target[t]->count, iterations, took);
        fflush(stdout);
    }
    return 0;
}
