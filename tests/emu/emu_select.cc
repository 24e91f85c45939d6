/* cuda_select.cu compiled for the CPU emulation (cuda_emu.h). */
#include "cuda_emu.h"

#include "cuda_select.cu"

#include "cpu_reference.h"

#include <atomic>
#include <limits>
#include <vector>

/* Selections and splits on wider tiles on a cut grid (choose_persistent):
 * selections, splits. */
std::atomic<long> emu_wider_cut_calls[2];
void gp_emu::note_wider_cut(bool split) { emu_wider_cut_calls[split]++; }

/* The blocks of one-pass partitions on wide tiles (choose_persistent), so
 * that the suite can tell they ran. */
std::atomic<long> emu_wide_one_pass_blocks{0};

static bool wide_partition_kernel(const void *fn)
{
    for (gp_dtype t : {GP_DTYPE_I8, GP_DTYPE_U8, GP_DTYPE_I16, GP_DTYPE_U16, GP_DTYPE_I32, GP_DTYPE_U32, GP_DTYPE_I64,
                       GP_DTYPE_U64, GP_DTYPE_F32, GP_DTYPE_F64})
        for (bool by_flags : {false, true})
            if (gp_cuda::select_pipelined_for(t, by_flags, true, gp_cuda::kWide, false).fn == fn) return true;
    return false;
}

/* The blocks of partitions on wider tiles (counted first): by comparison,
 * by flags. */
std::atomic<long> emu_wider_partition_blocks[2];

/* 0 or 1 (by flags) for a wider partition kernel, else -1. */
static int wider_partition_kernel(const void *fn)
{
    for (gp_dtype t : {GP_DTYPE_I8, GP_DTYPE_U8})
        for (bool by_flags : {false, true})
            if (gp_cuda::select_pipelined_for(t, by_flags, true, gp_cuda::kWider, true).fn == fn) return by_flags;
    return -1;
}

/* The blocks of partitions into two buffers (partition_copy): a tile
 * each (select_kernel), persistent (select_kernel_pipelined), and of those
 * on wider tiles (GP_PARTITION_COPY_WIDER) by comparison and by flags
 * (make_ctx sets GPUPRIM_PARTITION_COPY_WIDER's 1). */
std::atomic<long> emu_copy_blocks[4];

/* 0 or 1 (by flags) for a wider kernel of a split, else -1. */
static int wider_copy_kernel(const void *fn)
{
    for (gp_dtype t : {GP_DTYPE_I8, GP_DTYPE_U8})
        for (bool by_flags : {false, true})
            if (gp_cuda::select_pipelined_for(t, by_flags, true, gp_cuda::kWider, false, true).fn == fn)
                return by_flags;
    return -1;
}

static void select_thunk(const void *fn, const void *params)
{
    const auto &p = *static_cast<const gp_cuda::select_params *>(params);
    if (gp_emu::thread_x() == 0 && p.rejected) {
        emu_copy_blocks[p.grid != 0]++;
        const int wider = wider_copy_kernel(fn);
        if (wider >= 0) emu_copy_blocks[2 + wider]++;
    }
    if (gp_emu::thread_x() == 0 && p.groups == 0 && !p.counted_first && wide_partition_kernel(fn))
        emu_wide_one_pass_blocks++;
    const int wider = gp_emu::thread_x() == 0 ? wider_partition_kernel(fn) : -1;
    if (wider >= 0) emu_wider_partition_blocks[wider]++;
    gp_emu::call_kernel<gp_cuda::select_params>(fn, params);
}

/* partition_prefixed_kernel: for 1-byte items a wider partition with
 * bits, as the Bits kernel it stands in for (GP_PARTITION_PREFIXED); for
 * 4- and 8-byte ones counted apart (GP_PARTITION_PREFIXED_WIDE). */
std::atomic<long> emu_prefixed_wide_blocks{0};

static void prefixed_thunk(const void *fn, const void *params)
{
    if (gp_emu::thread_x() == 0) {
        if (fn == (const void *)gp_cuda::partition_prefixed_kernel<uint8_t>) emu_wider_partition_blocks[1]++;
        else emu_prefixed_wide_blocks++;
    }
    gp_emu::call_kernel<gp_cuda::select_params>(fn, params);
}

/* The partitions by comparison counted with bits (compare_bits_kernel),
 * and of them those of 4- and 8-byte items (GP_PARTITION_IF_PREFIXED_WIDE). */
std::atomic<long> emu_compare_bits_calls{0}, emu_compare_bits_wide_calls{0};

static bool wide_compare_bits(const void *fn)
{
    for (gp_dtype t : {GP_DTYPE_I32, GP_DTYPE_U32, GP_DTYPE_F32, GP_DTYPE_I64, GP_DTYPE_U64, GP_DTYPE_F64})
        if (fn == gp_cuda::compare_bits_fn(t, true)) return true;
    return false;
}

static void compare_bits_thunk(const void *fn, const void *params)
{
    if (gp_emu::thread_x() == 0) {
        emu_compare_bits_calls++;
        if (wide_compare_bits(fn)) emu_compare_bits_wide_calls++;
    }
    gp_emu::call_kernel<gp_cuda::compare_bits_params>(fn, params);
}

static const int registered = (gp_emu::register_thunk("select_kernel", select_thunk),
                               gp_emu::register_thunk("filter_kernel", gp_emu::call_kernel<gp_cuda::filter_params>),
                               gp_emu::register_thunk("flag_bits_kernel", gp_emu::call_kernel<gp_cuda::flag_bits_params>),
                               gp_emu::register_thunk("compare_bits_kernel", compare_bits_thunk),
                               gp_emu::register_thunk("partition_prefixed_kernel", prefixed_thunk), 0);

/*
 * The comparisons of select-if against C's own operators: set_range's
 * ranges through compare_mask (every dtype) and, for 1- and 2-byte items,
 * swar_row_mask (every end tested, and the fewest: with_swar_sides).
 * 1-byte items: every element against every value; 2-byte:
 * every element against values at the ends, around zero and at random;
 * floats: the infinities, the largest and smallest values, +-0 and NaN,
 * each against each. Returns the number of mismatches (the first few
 * printed).
 */
extern "C" void gpt_format(gp_dtype t, const void *v, char *s, size_t size); /* tests/reduce_data.h */

namespace {

uint64_t next_random(uint64_t &s) /* splitmix64 */
{
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

template <class T>
bool c_compare(gp_cmp cmp, T x, T v)
{
    switch (cmp) {
    case GP_CMP_LT: return x < v;
    case GP_CMP_LE: return x <= v;
    case GP_CMP_GT: return x > v;
    case GP_CMP_GE: return x >= v;
    case GP_CMP_EQ: return x == v;
    default: return x != v;
    }
}

template <class T>
long check_values(gp_dtype t, const std::vector<T> &xs, const std::vector<T> &vs)
{
    using namespace gp_cuda;
    constexpr int V = 16 / (int)sizeof(T);
    long bad = 0;
    for (int c = GP_CMP_LT; c <= GP_CMP_NE; c++)
        for (T v : vs) {
            select_params p;
            memset(&p, 0, sizeof p);
            set_range(p, t, (gp_cmp)c, &v);
            const T lo = tile::bits_as<T>((tile::ubits_t<T>)p.lo_bits), hi = tile::bits_as<T>((tile::ubits_t<T>)p.hi_bits);
            for (size_t at = 0; at < xs.size(); at += V) {
                T row[V];
                for (int e = 0; e < V; e++) row[e] = xs[(at + e) % xs.size()];
                const unsigned plain = compare_mask<T, V>(row, lo, hi, p.negate != 0, V);
                unsigned swar = plain, sided = plain; /* every end tested, and the fewest (with_swar_sides) */
                if constexpr (sizeof(T) <= 2) {
                    uint4 u;
                    memcpy(&u, row, 16);
                    const swar_range range = swar_range_of<T>(p);
                    swar = swar_row_mask<T>(u, range);
                    with_swar_sides(range, [&](auto s) { sided = swar_row_mask<T, decltype(s)::value>(u, range); });
                }
                for (int e = 0; e < V; e++) {
                    const bool want = c_compare((gp_cmp)c, row[e], v);
                    if ((bool)(plain >> e & 1u) == want && (bool)(swar >> e & 1u) == want &&
                        (bool)(sided >> e & 1u) == want)
                        continue;
                    if (bad++ < 5) {
                        char xs_[64], vs_[64];
                        gpt_format(t, &row[e], xs_, sizeof xs_);
                        gpt_format(t, &v, vs_, sizeof vs_);
                        printf("  compare %s: %s %s %s gave %d (swar %d, one end %d), want %d\n", gp_dtype_name(t), xs_,
                               gp_cmp_name((gp_cmp)c), vs_, (int)(plain >> e & 1u), (int)(swar >> e & 1u),
                               (int)(sided >> e & 1u), (int)want);
                    }
                }
            }
        }
    return bad;
}

template <class T>
long check_all_bytes(gp_dtype t)
{
    std::vector<T> all;
    for (int i = 0; i < 256; i++) all.push_back((T)(uint8_t)i);
    return check_values<T>(t, all, all);
}

template <class T>
long check_halves(gp_dtype t, uint64_t seed)
{
    std::vector<T> all, vs;
    for (int i = 0; i < 65536; i++) all.push_back((T)(uint16_t)i);
    for (int i : {0, 1, 2, 0x7ffe, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff, 0x00ff, 0x0100, 0x80ff, 0x7f00})
        vs.push_back((T)(uint16_t)i);
    for (int i = 0; i < 24; i++) vs.push_back((T)(uint16_t)next_random(seed));
    return check_values<T>(t, all, vs);
}

template <class T>
long check_floats(gp_dtype t)
{
    using lim = std::numeric_limits<T>;
    const std::vector<T> s = {-lim::infinity(), -lim::max(), (T)-1, -lim::min(), -lim::denorm_min(), (T)-0.0, (T)0,
                              lim::denorm_min(), lim::min(), (T)1, lim::max(), lim::infinity(), lim::quiet_NaN()};
    return check_values<T>(t, s, s);
}

template <class T>
long check_integers(gp_dtype t, uint64_t seed)
{
    using lim = std::numeric_limits<T>;
    std::vector<T> s = {lim::min(), (T)(lim::min() + 1), (T)-1, (T)0, (T)1, (T)(lim::max() - 1), lim::max()};
    for (int i = 0; i < 9; i++) s.push_back((T)next_random(seed));
    return check_values<T>(t, s, s);
}

} // namespace

/*
 * gp_count_if's kernels live in cuda_histogram.cu, which the emulator does
 * not build (tests/emu_hist checks them): a partition by comparison counted
 * first gets its total from this serial stand-in (the serial reference's
 * comparison), which also scribbles over the partials it claims, so that
 * they must not overlap the arena.
 */
long emu_counted_first_by_comparison = 0;

namespace gp_cuda {
constexpr size_t kStandInPartials = 64;
size_t count_workspace(const gp_ctx *, const gp_count_args *) { return kStandInPartials; }
gp_status count(gp_ctx *, const gp_count_args *a, void *ws)
{
    memset(ws, 0x77, kStandInPartials);
    emu_counted_first_by_comparison++;
    int64_t c = 0;
    for (int64_t i = 0; i < a->n; i++) c += gp_ref_selected(a->in, a->t, i, NULL, a->cmp, a->value);
    *a->count = c;
    return GP_STATUS_OK;
}
} // namespace gp_cuda

long emu_check_compares(uint64_t seed)
{
    return check_all_bytes<uint8_t>(GP_DTYPE_U8) + check_all_bytes<int8_t>(GP_DTYPE_I8) +
           check_halves<uint16_t>(GP_DTYPE_U16, seed) + check_halves<int16_t>(GP_DTYPE_I16, seed) +
           check_integers<int32_t>(GP_DTYPE_I32, seed) + check_integers<uint32_t>(GP_DTYPE_U32, seed) +
           check_integers<int64_t>(GP_DTYPE_I64, seed) + check_integers<uint64_t>(GP_DTYPE_U64, seed) +
           check_floats<float>(GP_DTYPE_F32) + check_floats<double>(GP_DTYPE_F64);
}
