/*
 * `gpuprim ladder transpose`: seed 003's experiment on the present GPU.
 *
 * The article transposes a full-HD grayscale image (1920 wide, 1080 tall,
 * each 1-byte pixel widened to a 4-byte unsigned) with one thread per
 * element: first naively (reads coalesced along a row, writes a column
 * apart), then through a shared tile read by rows and written by rows, the
 * tile padded by one column against bank conflicts. The rungs, on the same
 * rotated inputs in one run, each checked against a host transpose:
 *   seed: naive           the article's first kernel, 16x16 threads as it launched
 *   seed: tile 32x32      the tiled kernel without the padding
 *   seed: tile 32x33 pad  the tiled kernel as published (+1 column)
 *   gp_transpose          on the article's u32 and, for the image, on the u8 pixels
 *   cublasSgeam           C = A^T (beta = 0) on the same pixels as float
 *   copy (d2d)            cudaMemcpyAsync of the same bytes: the ceiling
 *
 * One deviation from the article: its tiled kernel returns before
 * __syncthreads for threads past the edge and stores without a bound, so on
 * a side that is not a multiple of the block (its own image: 1080 = 67.5 x
 * 16) it stores tile slots no thread loaded, into the first elements of the
 * next output row and past the end of the last one. Here the load and the
 * store are guarded instead, around a barrier every thread reaches; the
 * indexing is the article's.
 */
#include "ladder_cuda.cuh"

#include "bench_cublas.cuh"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <type_traits>

/* Everything but the ladder's entry has internal linkage: the ladders and
 * bench cases are linked together and reuse type names (point, rung_call). */
namespace {

/* ---------------------------------------------------------------- kernels */

/* The article's first kernel: thread (sx, sy) moves src[sy][sx] to
 * dst[sx][sy]. A warp reads 32 neighbours and writes 32 elements h apart. */
template <class T>
__global__ void seed_naive(T *dst, const T *src, int w, int h)
{
    const int sx = blockDim.x * blockIdx.x + threadIdx.x;
    const int sy = blockDim.y * blockIdx.y + threadIdx.y;
    if (w <= sx || h <= sy) return;
    dst[sx * h + sy] = src[sy * w + sx];
}

/*
 * The article's tiled kernel, blockDim = (TILE, TILE): the block loads its
 * tile by rows into buf transposed (buf[x][y]), then stores the mirrored
 * tile by rows, so both global accesses are coalesced. A warp's loads into
 * buf[threadIdx.x][threadIdx.y] are TILE + PAD words apart: with PAD = 0 all
 * 32 land in one bank of 4-byte words (32-way conflicts); the article's
 * PAD = 1 spreads them over every bank.
 */
template <class T, int TILE, int PAD>
__global__ void seed_tiled(T *dst, const T *src, int w, int h)
{
    __shared__ T buf[TILE][TILE + PAD];
    const int sx = blockDim.x * blockIdx.x + threadIdx.x;
    const int sy = blockDim.y * blockIdx.y + threadIdx.y;
    if (sx < w && sy < h) buf[threadIdx.x][threadIdx.y] = src[sy * w + sx];
    __syncthreads();
    /* dst[dy][dx] is src[dx][dy], which thread (threadIdx.y, threadIdx.x)
     * loaded into buf[threadIdx.y][threadIdx.x] if it lies inside. */
    const int dy = blockIdx.x * blockDim.x + threadIdx.y;
    const int dx = blockIdx.y * blockDim.y + threadIdx.x;
    if (dy < w && dx < h) dst[dy * h + dx] = buf[threadIdx.y][threadIdx.x];
}

enum { NAIVE_BLOCK = 16, TILE = 32 };

/* ----------------------------------------------------------------- inputs */

/* Word i of the input: a pixel 0..255 (the article's widened grayscale) or
 * 32 random bits. */
struct word_gen {
    uint64_t seed;
    int pixels;
    __host__ __device__ uint32_t operator()(int64_t i) const
    {
        uint32_t w = (uint32_t)gpb_hash64(seed, (uint64_t)i);
        return pixels ? (w & 0xFFu) : w;
    }
};

/* The element of type T that stands for word w: its low byte (the pixel
 * itself), the word, or for float the low 24 bits as a float, exact and
 * finite, so that geam's 1 x a + 0 x b gives it back bit for bit. */
template <class T>
__host__ __device__ T elem_of(uint32_t w)
{
    if constexpr (std::is_same_v<T, float>) return (float)(w & 0xFFFFFFu);
    else return (T)w;
}

template <class T>
struct elem_gen {
    word_gen word;
    __host__ __device__ T operator()(int64_t i) const { return elem_of<T>(word(i)); }
};

/* ------------------------------------------------------------------ rungs */

enum rung_id { R_NAIVE, R_TILE, R_TILE_PAD, R_GP32, R_CUBLAS, R_COPY32, R_GP8, R_COPY8, NRUNGS };

static const struct {
    const char *name, *config;
} rung_info[NRUNGS] = {
    {"seed: naive", "16x16 u32"},   {"seed: tile 32x32", "32x32 u32"}, {"seed: tile 32x33 pad", "32x32 u32"},
    {"gp_transpose", "u32"},        {"cublasSgeam", "f32"},            {"copy (d2d)", "u32 bytes"},
    {"gp_transpose", "u8"},         {"copy (d2d)", "u8 bytes"},
};

static size_t elem_size(int id) { return id == R_GP8 || id == R_COPY8 ? 1 : 4; }
static bool is_ceiling(int id) { return id == R_COPY32 || id == R_COPY8; }

/* cuBLAS for the whole run: loaded once, or the reason it is absent. */
struct blas {
    const gpb_cublas_api *api = nullptr;
    cublasHandle_t handle = nullptr;
    char why[160] = "";
};

/* One shape: its inputs (the same words as u32, f32 and u8, each in its own
 * arena), the outputs and the host reference. */
struct shape {
    gpb_env *env = nullptr;
    const blas *bl = nullptr;
    int64_t rows = 0, cols = 0;
    word_gen gen = {0, 0};
    bool with_u8 = false;                    /* gp_transpose on u8 too */
    gpb_arena a32 = {}, af32 = {}, a8 = {}; /* a8 only with_u8 */
    void *out = nullptr;                     /* 4 x rows x cols bytes: every rung but cuBLAS */
    void *out_f32 = nullptr;                 /* cuBLAS's: always finite floats, so beta = 0 is safe */
    std::vector<uint32_t> want;              /* the words transposed, cols x rows */
    std::vector<unsigned char> got;
};

static bool runs_here(const shape &s, int id)
{
    if (id == R_GP8 || id == R_COPY8) return s.with_u8;
    if (id == R_CUBLAS) return s.bl->api != nullptr;
    return true;
}

static gpb_arena *arena_of(shape &s, int id)
{
    return id == R_CUBLAS ? &s.af32 : elem_size(id) == 1 ? &s.a8 : &s.a32;
}

static int cublas_fail(const char *call, cublasStatus_t st)
{
    fprintf(stderr, "gpuprim ladder: %s failed: cuBLAS status %d\n", call, (int)st);
    return GPB_ERROR;
}

static unsigned blocks(int64_t extent, int per) { return (unsigned)((extent + per - 1) / per); }

/* Launches rung id once on `in` (a slice of its arena), on the run's stream. */
static int launch(const shape &s, int id, const void *in)
{
    cudaStream_t st = gpb_cuda(s.env)->stream;
    const int w = (int)s.cols, h = (int)s.rows;
    const size_t bytes = (size_t)(s.rows * s.cols) * elem_size(id);
    uint32_t *dst = (uint32_t *)s.out;
    const uint32_t *src = (const uint32_t *)in;
    const dim3 naive_grid(blocks(w, NAIVE_BLOCK), blocks(h, NAIVE_BLOCK)), tile_grid(blocks(w, TILE), blocks(h, TILE));
    switch (id) {
    case R_NAIVE: seed_naive<uint32_t><<<naive_grid, dim3(NAIVE_BLOCK, NAIVE_BLOCK), 0, st>>>(dst, src, w, h); break;
    case R_TILE: seed_tiled<uint32_t, TILE, 0><<<tile_grid, dim3(TILE, TILE), 0, st>>>(dst, src, w, h); break;
    case R_TILE_PAD: seed_tiled<uint32_t, TILE, 1><<<tile_grid, dim3(TILE, TILE), 0, st>>>(dst, src, w, h); break;
    case R_GP32:
    case R_GP8: {
        gp_status g = gp_transpose(s.env->ctx, in, s.out, elem_size(id), s.rows, s.cols);
        if (g == GP_STATUS_OK) return GPB_OK;
        fprintf(stderr, "gpuprim ladder: gp_transpose(%zu-byte, %lld x %lld) failed: %s\n", elem_size(id),
                (long long)s.rows, (long long)s.cols, gpb_status_why(s.env->ctx, g));
        return GPB_ERROR;
    }
    case R_CUBLAS: {
        /* Column-major: our rows x cols input is cuBLAS's cols x rows A
         * (lda = cols); C = A^T is rows x cols column-major (ldc = rows),
         * our cols x rows output. B = C, beta = 0: geam's in-place form. */
        const float one = 1, zero = 0;
        float *c = (float *)s.out_f32;
        cublasStatus_t b = s.bl->api->sgeam(s.bl->handle, CUBLAS_OP_T, CUBLAS_OP_N, h, w, &one, (const float *)in,
                                            w, &zero, c, h, c, h);
        return b == CUBLAS_STATUS_SUCCESS ? GPB_OK : cublas_fail("cublasSgeam", b);
    }
    case R_COPY32:
    case R_COPY8: GPB_CU(cudaMemcpyAsync(s.out, in, bytes, cudaMemcpyDeviceToDevice, st)); return GPB_OK;
    }
    GPB_CU(cudaGetLastError());
    return GPB_OK;
}

/* ------------------------------------------------------------------ check */

/* Index of the first element of got that is not the reference's, or -1. */
template <class T>
static int64_t first_bad(const unsigned char *got, const std::vector<uint32_t> &want)
{
    for (size_t k = 0; k < want.size(); k++) {
        T w = elem_of<T>(want[k]), g;
        memcpy(&g, got + k * sizeof(T), sizeof(T));
        if (memcmp(&g, &w, sizeof(T)) != 0) return (int64_t)k;
    }
    return -1;
}

template <class T>
static void fmt_elem(const unsigned char *p, char *buf, size_t size)
{
    T v;
    memcpy(&v, p, sizeof v);
    if constexpr (std::is_same_v<T, float>) snprintf(buf, size, "%.9g", v);
    else snprintf(buf, size, "%llu", (unsigned long long)v);
}

/* Runs rung id once on slice 0 over a poisoned output and compares every
 * element with the host transpose. On a mismatch: the row is WRONG, its note
 * and stderr say where; returns GPB_CHECK_FAILED. */
static int check_rung(shape &s, int id, const char *when, gpl_row *row)
{
    cudaStream_t st = gpb_cuda(s.env)->stream;
    const int64_t n = s.rows * s.cols;
    const size_t e = elem_size(id);
    void *out = id == R_CUBLAS ? s.out_f32 : s.out;
    GPB_CU(cudaMemsetAsync(out, 0xA5, (size_t)n * e, st)); /* as float: -2.9e-16, finite */
    if (launch(s, id, arena_of(s, id)->base) != GPB_OK) return GPB_ERROR;
    s.got.resize((size_t)n * e);
    if (n > 0) GPB_CU(cudaMemcpyAsync(s.got.data(), out, (size_t)n * e, cudaMemcpyDeviceToHost, st));
    GPB_CU(cudaStreamSynchronize(st));
    int64_t k = id == R_CUBLAS ? first_bad<float>(s.got.data(), s.want)
                : e == 1       ? first_bad<uint8_t>(s.got.data(), s.want)
                               : first_bad<uint32_t>(s.got.data(), s.want);
    if (k < 0) {
        if (row->check == GPL_CHECK_NONE) row->check = GPL_CHECK_OK;
        return GPB_OK;
    }
    char g[32], w[32];
    const unsigned char *gp = s.got.data() + (size_t)k * e;
    unsigned char wb[4];
    if (id == R_CUBLAS) {
        float v = elem_of<float>(s.want[(size_t)k]);
        memcpy(wb, &v, 4), fmt_elem<float>(gp, g, sizeof g), fmt_elem<float>(wb, w, sizeof w);
    } else if (e == 1) {
        wb[0] = elem_of<uint8_t>(s.want[(size_t)k]);
        fmt_elem<uint8_t>(gp, g, sizeof g), fmt_elem<uint8_t>(wb, w, sizeof w);
    } else {
        memcpy(wb, &s.want[(size_t)k], 4), fmt_elem<uint32_t>(gp, g, sizeof g), fmt_elem<uint32_t>(wb, w, sizeof w);
    }
    /* The output is cols x rows: element k is at (k / rows, k % rows). */
    row->check = GPL_CHECK_WRONG;
    snprintf(row->note, sizeof row->note, "%s: output (%lld, %lld) is %s, want %s", when,
             (long long)(k / s.rows), (long long)(k % s.rows), g, w);
    fprintf(stderr, "CHECK FAILED: ladder transpose, %s (%s), %lld x %lld, %s\n", rung_info[id].name,
            rung_info[id].config, (long long)s.rows, (long long)s.cols, row->note);
    return GPB_CHECK_FAILED;
}

/* ------------------------------------------------------------------ shape */

/* The host reference: the words, transposed by the plainest loop. */
static void build_want(shape &s)
{
    std::vector<uint32_t> in((size_t)(s.rows * s.cols));
    for (size_t k = 0; k < in.size(); k++) in[k] = s.gen((int64_t)k);
    s.want.resize(in.size());
    for (int64_t i = 0; i < s.rows; i++)
        for (int64_t j = 0; j < s.cols; j++) s.want[(size_t)(j * s.rows + i)] = in[(size_t)(i * s.cols + j)];
}

static int release(shape &s)
{
    int rc = GPB_OK;
    gpb_arena *arenas[] = {&s.a32, &s.af32, &s.a8};
    for (gpb_arena *a : arenas)
        if (gpb_cuda_arena_free(a) != GPB_OK) rc = GPB_ERROR;
    void *ptrs[] = {s.out, s.out_f32};
    for (void *p : ptrs) {
        cudaError_t e = p ? cudaFree(p) : cudaSuccess;
        if (e != cudaSuccess) rc = gpb_cuda_fail("cudaFree", e, __FILE__, __LINE__);
    }
    s.out = s.out_f32 = nullptr;
    return rc;
}

/* Allocates and fills the inputs: rotated arenas for timing, one slice for
 * --check. Returns GPB_OK with s.a32.base == NULL (and `note` set) when the
 * shape does not fit in device memory. */
static int prepare(shape &s, bool rotate, char *note, size_t note_size)
{
    const size_t n = (size_t)(s.rows * s.cols);
    if (rotate) {
        gpb_arena probe;
        size_t extra = 8 * n + gpb_arena_layout(&probe, 4 * n, s.env->meta.cache_bytes) +
                       (s.with_u8 ? gpb_arena_layout(&probe, n, s.env->meta.cache_bytes) : 0);
        if (gpb_cuda_arena_alloc(s.env, &s.a32, 4 * n, extra, note, note_size) != GPB_OK) return GPB_ERROR;
        if (!s.a32.base) return GPB_OK;
        /* The same layout as a32, so each arena rotates over as many slices;
         * a8's slices are smaller, so it gets at least as many. */
        if (gpb_cuda_arena_alloc(s.env, &s.af32, 4 * n, 0, note, note_size) != GPB_OK) return GPB_ERROR;
        if (s.with_u8 && gpb_cuda_arena_alloc(s.env, &s.a8, n, 0, note, note_size) != GPB_OK) return GPB_ERROR;
        if (!s.af32.base || (s.with_u8 && !s.a8.base)) return release(s) != GPB_OK ? GPB_ERROR : GPB_OK;
    } else {
        if (gpl_cuda_arena_one(&s.a32, 4 * n) != GPB_OK || gpl_cuda_arena_one(&s.af32, 4 * n) != GPB_OK ||
            (s.with_u8 && gpl_cuda_arena_one(&s.a8, n) != GPB_OK))
            return GPB_ERROR;
    }
    GPB_CU(cudaMalloc(&s.out, 4 * n + 4));
    GPB_CU(cudaMalloc(&s.out_f32, 4 * n + 4));
    /* Everything on the run's stream: it does not wait for the legacy one. */
    GPB_CU(cudaMemsetAsync(s.out_f32, 0, 4 * n + 4, gpb_cuda(s.env)->stream));
    const int64_t nn = (int64_t)n;
    if (gpl_cuda_fill_same<uint32_t>(s.env, &s.a32, nn, elem_gen<uint32_t>{s.gen}) != GPB_OK ||
        gpl_cuda_fill_same<float>(s.env, &s.af32, nn, elem_gen<float>{s.gen}) != GPB_OK ||
        (s.with_u8 && gpl_cuda_fill_same<uint8_t>(s.env, &s.a8, nn, elem_gen<uint8_t>{s.gen}) != GPB_OK))
        return GPB_ERROR;
    build_want(s);
    return GPB_OK;
}

static void row_init(const shape &s, int id, const char *section, gpl_row *r)
{
    gpl_row_init(r, section, rung_info[id].name, rung_info[id].config, s.rows * s.cols);
    r->rows = s.rows, r->cols = s.cols;
}

/* Calls a rung through gpb_impl. */
struct rung_call {
    const shape *s;
    int id;
    int operator()(const void *in) const { return launch(*s, id, in); }
};

/* Checks, times and checks again every rung on one shape; prints its table. */
static int time_shape(shape &s, const char *section, const char *title, gpl_report *rep)
{
    gpl_row rows[NRUNGS];
    for (int id = 0; id < NRUNGS; id++) row_init(s, id, section, &rows[id]);
    char note[160] = "";
    int rc = prepare(s, true, note, sizeof note);
    if (rc != GPB_OK) return rc;
    if (!s.a32.base) {
        printf("\n%s\n  skipped: %s\n", title, note);
        snprintf(rows[0].note, sizeof rows[0].note, "%s", note);
        return gpl_report_add(rep, &rows[0]);
    }
    int failed = 0;
    for (int id = 0; id < NRUNGS; id++) {
        if (!runs_here(s, id) || is_ceiling(id)) continue;
        if ((rc = check_rung(s, id, "before timing", &rows[id])) == GPB_ERROR) return rc;
        failed |= rc == GPB_CHECK_FAILED;
    }
    rung_call calls[NRUNGS];
    gpl_timed timed[NRUNGS];
    for (int id = 0; id < NRUNGS; id++) {
        calls[id] = rung_call{&s, id};
        timed[id] = gpl_timed{runs_here(s, id) ? gpb_impl_of(calls[id]) : gpb_impl{nullptr, nullptr}, arena_of(s, id)};
    }
    gpb_time t[NRUNGS];
    if ((rc = gpl_cuda_time(s.env, timed, NRUNGS, t)) != GPB_OK) return rc;
    for (int id = 0; id < NRUNGS; id++) {
        if (!runs_here(s, id) || is_ceiling(id) || rows[id].check == GPL_CHECK_WRONG) continue;
        if ((rc = check_rung(s, id, "after timing", &rows[id])) == GPB_ERROR) return rc; /* a moving result is a race */
        failed |= rc == GPB_CHECK_FAILED;
    }
    const double peak = gpl_peak_gbs(s.env);
    gpl_row shown[NRUNGS];
    int nshown = 0;
    for (int id = 0; id < NRUNGS; id++) {
        gpl_row *r = &rows[id];
        if (id == R_CUBLAS && !s.bl->api) snprintf(r->note, sizeof r->note, "%s", s.bl->why);
        else if (!runs_here(s, id)) continue;
        r->t = t[id];
        r->bytes = 2.0 * (double)(s.rows * s.cols) * (double)elem_size(id);
        gpl_set_ratios(r, peak, &t[elem_size(id) == 1 ? R_COPY8 : R_COPY32], &t[R_NAIVE]);
        if (gpl_report_add(rep, r) != GPB_OK) return GPB_ERROR;
        shown[nshown++] = *r;
    }
    gpl_print_rows(title, shown, nshown);
    return failed ? GPB_CHECK_FAILED : GPB_OK;
}

/* --check: every rung once on each shape, compared with the host transpose. */
static int check_shape(shape &s, gpl_row *rows, int *nrows)
{
    int rc = prepare(s, false, nullptr, 0), failed = 0;
    if (rc != GPB_OK) return rc;
    for (int id = 0; id < NRUNGS; id++) {
        if (is_ceiling(id)) continue;
        gpl_row *r = &rows[(*nrows)++];
        row_init(s, id, "check", r);
        if (!runs_here(s, id)) {
            snprintf(r->note, sizeof r->note, "not run: %.140s", s.bl->why);
            continue;
        }
        if ((rc = check_rung(s, id, "check", r)) == GPB_ERROR) return rc;
        failed |= rc == GPB_CHECK_FAILED;
    }
    return failed ? GPB_CHECK_FAILED : GPB_OK;
}

/* ------------------------------------------------------------------- run */

/* The article's indexing is int: sides up to 46340 keep rows x cols below 2^31. */
enum { MAX_SIDE = 46340 };

/* Runs body(shape) on a fresh shape and frees its buffers whatever happens. */
template <class F>
static int with_shape(gpb_env *env, const blas *bl, int64_t rows, int64_t cols, int pixels, bool with_u8, F body)
{
    shape s;
    s.env = env, s.bl = bl, s.rows = rows, s.cols = cols;
    s.gen = word_gen{env->opts.seed, pixels};
    s.with_u8 = with_u8;
    int rc = body(s);
    int rc_free = release(s);
    return rc == GPB_OK && rc_free != GPB_OK ? rc_free : rc;
}

static int run_checks(gpb_env *env, const blas *bl, gpl_report *rep)
{
    static const int64_t shapes[][2] = {{1, 1},   {1, 33},   {33, 1},    {31, 33},   {32, 32},
                                        {33, 65}, {100, 37}, {1080, 1920}, {1920, 1080}};
    enum { NSHAPES = sizeof shapes / sizeof shapes[0] };
    gpl_row rows[NSHAPES * NRUNGS];
    int nrows = 0, failed = 0;
    for (int i = 0; i < NSHAPES; i++) {
        /* Random words, not pixels: every bit of every element is checked. */
        int rc = with_shape(env, bl, shapes[i][0], shapes[i][1], 0, true,
                            [&](shape &s) { return check_shape(s, rows, &nrows); });
        if (rc == GPB_ERROR) return rc;
        failed |= rc == GPB_CHECK_FAILED;
    }
    for (int i = 0; i < nrows; i++)
        if (gpl_report_add(rep, &rows[i]) != GPB_OK) return GPB_ERROR;
    gpl_print_rows("transpose --check: every rung once per shape (rows x cols), every element against the "
                   "host transpose",
                   rows, nrows);
    return failed ? GPB_CHECK_FAILED : GPB_OK;
}

static int run_timed(gpb_env *env, const gpl_opts *o, const blas *bl, gpl_report *rep)
{
    int failed = 0, rc;
    char section[48], title[256];
    if (o->nsizes == 0) {
        const char *img = "transpose, seed 003's full-HD image, 1920 wide x 1080 tall (1080 rows x 1920 cols), "
                          "pixels widened to u32 as the article did; GB/s read + write, ratio: speedup over "
                          "seed: naive";
        rc = with_shape(env, bl, 1080, 1920, 1, true,
                        [&](shape &s) { return time_shape(s, "1920x1080 image", img, rep); });
        if (rc == GPB_ERROR) return rc;
        failed |= rc == GPB_CHECK_FAILED;
    }
    const int nsq = o->nsizes ? o->nsizes : 1;
    for (int i = 0; i < nsq; i++) {
        const int64_t side = o->nsizes ? o->sizes[i] : 8192;
        snprintf(section, sizeof section, "%lldx%lld", (long long)side, (long long)side);
        snprintf(title, sizeof title,
                 "transpose %lld x %lld, random u32 (cuBLAS: f32); GB/s read + write, ratio: speedup over seed: "
                 "naive",
                 (long long)side, (long long)side);
        rc = with_shape(env, bl, side, side, 0, false, [&](shape &s) { return time_shape(s, section, title, rep); });
        if (rc == GPB_ERROR) return rc;
        failed |= rc == GPB_CHECK_FAILED;
    }
    return failed ? GPB_CHECK_FAILED : GPB_OK;
}

static int run(gpb_env *env, const gpl_opts *o, gpl_report *rep)
{
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > MAX_SIDE) {
            fprintf(stderr, "gpuprim ladder transpose: --sizes gives square sides; %lld is past %d, where the "
                            "article's int indexing overflows\n",
                    (long long)o->sizes[i], (int)MAX_SIDE);
            return GPB_ERROR;
        }
    blas bl;
    if ((bl.api = gpb_cublas(bl.why, sizeof bl.why))) {
        cublasStatus_t st = bl.api->create(&bl.handle);
        if (st != CUBLAS_STATUS_SUCCESS) return cublas_fail("cublasCreate", st);
        if ((st = bl.api->set_stream(bl.handle, gpb_cuda(env)->stream)) != CUBLAS_STATUS_SUCCESS) {
            bl.api->destroy(bl.handle);
            return cublas_fail("cublasSetStream", st);
        }
    }
    int rc = o->check_only ? run_checks(env, &bl, rep) : run_timed(env, o, &bl, rep);
    if (bl.handle) {
        cublasStatus_t st = bl.api->destroy(bl.handle);
        if (st != CUBLAS_STATUS_SUCCESS && cublas_fail("cublasDestroy", st) == GPB_ERROR) rc = GPB_ERROR;
    }
    return rc;
}

} // namespace

extern "C" const gpl_ladder gpl_ladder_transpose = {
    "transpose",
    "seed 003: naive and tiled (32x32, 32x33) kernels vs gp_transpose, cublasSgeam and the copy, on the "
    "1920x1080 image and 8192^2; --sizes S runs S x S instead of 8192^2 (the image is then left out)",
    run};
