/*
 * The count kernel (included by cuda_histogram.cu, after its input layout):
 * the comparisons, whole words at a time for 1- and 2-byte integers, and the
 * persistent grid that counts and combines on the ticket.
 */
#ifndef GP_CUDA_COUNT_KERNEL_CUH
#define GP_CUDA_COUNT_KERNEL_CUH

namespace gp_cuda {
namespace {

/* ------------------------------------------------------------------ count */

template <int Cmp>
struct cmp_fn;
template <>
struct cmp_fn<GP_CMP_LT> {
    template <class T> __device__ static bool f(T x, T v) { return x < v; }
};
template <>
struct cmp_fn<GP_CMP_LE> {
    template <class T> __device__ static bool f(T x, T v) { return x <= v; }
};
template <>
struct cmp_fn<GP_CMP_GT> {
    template <class T> __device__ static bool f(T x, T v) { return x > v; }
};
template <>
struct cmp_fn<GP_CMP_GE> {
    template <class T> __device__ static bool f(T x, T v) { return x >= v; }
};
template <>
struct cmp_fn<GP_CMP_EQ> {
    template <class T> __device__ static bool f(T x, T v) { return x == v; }
};
template <>
struct cmp_fn<GP_CMP_NE> {
    template <class T> __device__ static bool f(T x, T v) { return x != v; }
};

/*
 * 1- and 2-byte integers compare a whole 32-bit word at once with the SIMD
 * intrinsics: each lane that passes comes back with all its bits set, so a
 * word adds popc(mask) = 8 x sizeof(T) per passing lane. Per 16 bytes that
 * is 4 compares and 4 popcounts instead of 16 (8) extracts, compares and adds:
 * per-element work is what kept the byte count at 89-92% of the read ceiling
 * while 4-byte inputs reached 98% (docs/perf/histogram.md).
 */
template <class T>
constexpr bool kSimdCount = std::is_integral_v<T> && sizeof(T) <= 2;

template <class T, int Cmp>
__device__ __forceinline__ unsigned simd_mask(unsigned w, unsigned v)
{
    constexpr bool s = std::is_signed_v<T>;
    if constexpr (sizeof(T) == 1) {
        if constexpr (Cmp == GP_CMP_LT) return s ? __vcmplts4(w, v) : __vcmpltu4(w, v);
        else if constexpr (Cmp == GP_CMP_LE) return s ? __vcmples4(w, v) : __vcmpleu4(w, v);
        else if constexpr (Cmp == GP_CMP_GT) return s ? __vcmpgts4(w, v) : __vcmpgtu4(w, v);
        else if constexpr (Cmp == GP_CMP_GE) return s ? __vcmpges4(w, v) : __vcmpgeu4(w, v);
        else if constexpr (Cmp == GP_CMP_EQ) return __vcmpeq4(w, v);
        else return __vcmpne4(w, v);
    } else {
        if constexpr (Cmp == GP_CMP_LT) return s ? __vcmplts2(w, v) : __vcmpltu2(w, v);
        else if constexpr (Cmp == GP_CMP_LE) return s ? __vcmples2(w, v) : __vcmpleu2(w, v);
        else if constexpr (Cmp == GP_CMP_GT) return s ? __vcmpgts2(w, v) : __vcmpgtu2(w, v);
        else if constexpr (Cmp == GP_CMP_GE) return s ? __vcmpges2(w, v) : __vcmpgeu2(w, v);
        else if constexpr (Cmp == GP_CMP_EQ) return __vcmpeq2(w, v);
        else return __vcmpne2(w, v);
    }
}

/* The value in every lane of a word. */
template <class T>
__device__ __forceinline__ unsigned simd_splat(T value)
{
    using U = std::make_unsigned_t<T>;
    return (unsigned)(U)value * (sizeof(T) == 1 ? 0x01010101u : 0x00010001u);
}

/* Set bits of the four words' masks: 8 x sizeof(T) per passing element. */
template <class T, int Cmp>
__device__ __forceinline__ unsigned simd_count_bits(const uint4 &w, unsigned splat)
{
    return __popc(simd_mask<T, Cmp>(w.x, splat)) + __popc(simd_mask<T, Cmp>(w.y, splat)) +
           __popc(simd_mask<T, Cmp>(w.z, splat)) + __popc(simd_mask<T, Cmp>(w.w, splat));
}

/* Counts (x cmp value) into *out, the blocks' counts combined in the
 * same launch (finish_block_count). */
template <class T, int Cmp>
__global__ void __launch_bounds__(kCountThreads)
    count_kernel(const T *in, layout L, T value, unsigned long long *partials, unsigned *ticket, long long *out,
                 bool packed)
{
    /* A partition counted first may start its grid now (cuda_select.cu);
     * a launch after this one in stream order ignores it. */
    if (GP_COUNT_FIRST_OVERLAP) grid_dependency::let_dependents_start();
    constexpr int kPer = 16 / sizeof(T);
    constexpr long long kTile = (long long)kCountThreads * kCountUnroll;
    const uint4 *body = reinterpret_cast<const uint4 *>(in + L.head);
    unsigned long long c = 0;
    for (long long base = blockIdx.x * kTile; base < L.nvec; base += (long long)gridDim.x * kTile) {
        const bool full = base + kTile <= L.nvec;
        vec16<T> v[kCountUnroll];
#pragma unroll
        for (int u = 0; u < kCountUnroll; u++) {
            long long i = base + u * kCountThreads + threadIdx.x;
            if (full || i < L.nvec) v[u].raw = load_stream<0>(body + i);
        }
        unsigned tc = 0; /* at most kCountUnroll * 128 (bits, SIMD) or kCountUnroll * 16 */
#pragma unroll
        for (int u = 0; u < kCountUnroll; u++) {
            long long i = base + u * kCountThreads + threadIdx.x;
            if (full || i < L.nvec) {
                if constexpr (kSimdCount<T>) {
                    tc += simd_count_bits<T, Cmp>(v[u].raw, simd_splat(value));
                } else {
#pragma unroll
                    for (int k = 0; k < kPer; k++) tc += cmp_fn<Cmp>::f(v[u].e[k], value);
                }
            }
        }
        c += kSimdCount<T> ? tc / (8 * sizeof(T)) : tc;
    }
    if (blockIdx.x == 0 && threadIdx.x < L.head + L.tail)
        c += cmp_fn<Cmp>::f(in[edge_index<T>(L, threadIdx.x)], value);

    finish_block_count<kCountThreads>(c, partials, ticket, out, packed);
}

} // namespace
} // namespace gp_cuda

#endif // GP_CUDA_COUNT_KERNEL_CUH
