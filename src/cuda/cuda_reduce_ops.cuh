/*
 * The reduction's operations and its type rules: which load and
 * accumulator types each (op, input dtype, output width) runs with. Only
 * cuda_reduce.cu includes it.
 */
#ifndef GP_CUDA_REDUCE_OPS_CUH
#define GP_CUDA_REDUCE_OPS_CUH

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <type_traits>

#include "cuda_common.cuh"
#include "gp_float_order.h"
#include "gp_internal.h"

namespace gp_cuda {
namespace reduce_ops {

/* ------------------------------------------------------------ type tools */

template <class T>
__host__ __device__ constexpr T max_of()
{
    if constexpr (std::is_signed_v<T>) return T(~(uint64_t(1) << (8 * sizeof(T) - 1)));
    else return T(~T(0));
}

template <class T>
__host__ __device__ constexpr T min_of()
{
    if constexpr (std::is_signed_v<T>) return T(uint64_t(1) << (8 * sizeof(T) - 1));
    else return T(0);
}

/* The unsigned type of the same width for integers; floats unchanged. */
template <class T, bool = std::is_integral_v<T>>
struct raw_bits {
    using type = T;
};
template <class T>
struct raw_bits<T, true> {
    using type = std::make_unsigned_t<T>;
};
template <class T>
using raw_bits_t = typename raw_bits<T>::type;

template <class To, class From>
__device__ __forceinline__ To bit_cast(From x)
{
    static_assert(sizeof(To) == sizeof(From), "bit_cast needs equal sizes");
    To r;
    memcpy(&r, &x, sizeof r);
    return r;
}

/* Accumulator for sum and prod: out_t's width (Out64: out_t has 8 bytes),
 * unsigned for integers so that overflow wraps instead of being UB. */
template <class In, bool Out64>
using arith_acc_t = std::conditional_t<std::is_floating_point_v<In>, std::conditional_t<Out64, double, float>,
                                       std::conditional_t<Out64, uint64_t, uint32_t>>; /* Sum/prod load: when the element fills the accumulator its signedness
 * cannot matter, so i32/u32 (and i64/u64) share one kernel. */
template <class In, bool Out64>
using arith_load_t = std::conditional_t<sizeof(In) == sizeof(arith_acc_t<In, Out64>), raw_bits_t<In>, In>; /* Min/max: the input's own value, widened to a 32-bit register type. */
template <class In>
using order_acc_t = std::conditional_t<std::is_floating_point_v<In> || sizeof(In) == 8, In,
                                       std::conditional_t<std::is_signed_v<In>, int32_t, uint32_t>>; /* And/or/xor: raw bits in a 32- or 64-bit register. */
template <class In>
using bits_acc_t = std::conditional_t<sizeof(In) == 8, uint64_t, uint32_t>; /* ------------------------------------------------------------- operations */

/*
 * Each op: its gp_op, whether floats are allowed, whether its result is
 * always one of the input values or their bitwise combination (then the
 * store re-extends it from in_t), the load and accumulator types for an
 * input type, its identity and its combine.
 */
struct op_sum {
    static constexpr gp_op id = GP_OP_SUM;
    static constexpr int kRedux = kReduxAdd; /* warp_reduce in one redux.sync on 32-bit integers */
    static constexpr bool kIntegerOnly = false, kResultIsInputValue = false;
    template <class In, bool Out64> using load_t = arith_load_t<In, Out64>;
    template <class In, bool Out64> using acc_t = arith_acc_t<In, Out64>;
    template <class A> __host__ __device__ static A identity() { return A(0); }
    template <class A> __host__ __device__ static A combine(A a, A b) { return a + b; }
};

struct op_prod {
    static constexpr gp_op id = GP_OP_PROD;
    static constexpr bool kIntegerOnly = false, kResultIsInputValue = false;
    template <class In, bool Out64> using load_t = arith_load_t<In, Out64>;
    template <class In, bool Out64> using acc_t = arith_acc_t<In, Out64>;
    template <class A> __host__ __device__ static A identity() { return A(1); }
    template <class A> __host__ __device__ static A combine(A a, A b) { return a * b; }
};

/* Float min/max propagate NaN (fminf/fmaxf would drop it) and order the
 * zeros, -0 < +0: gp_float_order.h's rule; of two NaNs, a wins. */
struct op_min {
    static constexpr gp_op id = GP_OP_MIN;
    static constexpr int kRedux = kReduxMin;
    static constexpr bool kIntegerOnly = false, kResultIsInputValue = true;
    template <class In, bool Out64> using load_t = In;
    template <class In, bool Out64> using acc_t = order_acc_t<In>;
    template <class A> __host__ __device__ static A identity()
    {
        if constexpr (std::is_floating_point_v<A>) return A(INFINITY);
        else return max_of<A>();
    }
    template <class A> __host__ __device__ static A combine(A a, A b)
    {
        if constexpr (std::is_floating_point_v<A>) return GP_FMIN_TAKES(a, b) ? a : b;
        else return a < b ? a : b;
    }
};

struct op_max {
    static constexpr gp_op id = GP_OP_MAX;
    static constexpr int kRedux = kReduxMax;
    static constexpr bool kIntegerOnly = false, kResultIsInputValue = true;
    template <class In, bool Out64> using load_t = In;
    template <class In, bool Out64> using acc_t = order_acc_t<In>;
    template <class A> __host__ __device__ static A identity()
    {
        if constexpr (std::is_floating_point_v<A>) return A(-INFINITY);
        else return min_of<A>();
    }
    template <class A> __host__ __device__ static A combine(A a, A b)
    {
        if constexpr (std::is_floating_point_v<A>) return GP_FMAX_TAKES(a, b) ? a : b;
        else return a > b ? a : b;
    }
};

struct op_and {
    static constexpr gp_op id = GP_OP_AND;
    static constexpr int kRedux = kReduxAnd;
    static constexpr bool kIntegerOnly = true, kResultIsInputValue = true;
    template <class In, bool Out64> using load_t = raw_bits_t<In>;
    template <class In, bool Out64> using acc_t = bits_acc_t<In>;
    template <class A> __host__ __device__ static A identity() { return A(~A(0)); }
    template <class A> __host__ __device__ static A combine(A a, A b) { return a & b; }
};

struct op_or {
    static constexpr gp_op id = GP_OP_OR;
    static constexpr int kRedux = kReduxOr;
    static constexpr bool kIntegerOnly = true, kResultIsInputValue = true;
    template <class In, bool Out64> using load_t = raw_bits_t<In>;
    template <class In, bool Out64> using acc_t = bits_acc_t<In>;
    template <class A> __host__ __device__ static A identity() { return A(0); }
    template <class A> __host__ __device__ static A combine(A a, A b) { return a | b; }
};

struct op_xor {
    static constexpr gp_op id = GP_OP_XOR;
    static constexpr int kRedux = kReduxXor;
    static constexpr bool kIntegerOnly = true, kResultIsInputValue = true;
    template <class In, bool Out64> using load_t = raw_bits_t<In>;
    template <class In, bool Out64> using acc_t = bits_acc_t<In>;
    template <class A> __host__ __device__ static A identity() { return A(0); }
    template <class A> __host__ __device__ static A combine(A a, A b) { return a ^ b; }
}; /* X(GP_OP suffix, op type): every op the kernels are built for. */
#define GP_CUDA_REDUCE_OPS(X) X(SUM, op_sum) X(PROD, op_prod) X(MIN, op_min) X(MAX, op_max) \
    X(AND, op_and) X(OR, op_or) X(XOR, op_xor)

/* X(GP_DTYPE suffix, C type): every input dtype. */
#define GP_CUDA_DTYPES(X) X(I8, int8_t) X(U8, uint8_t) X(I16, int16_t) X(U16, uint16_t) X(I32, int32_t) \
    X(U32, uint32_t) X(I64, int64_t) X(U64, uint64_t) X(F32, float) X(F64, double)

/* ---------------------------------------------------------- the result */

/* The reduced value as out_t's bits (the low out_bytes bytes). Integer
 * accumulators hold either the wrapped result at least out_t's width
 * (sum, prod) or an input value / bitwise combination of input values,
 * re-extended here from in_t's width by in_t's sign. */
template <class Op, class Acc>
__host__ __device__ inline uint64_t result_bits(Acc acc, int out_bytes, int in_bits, int in_signed)
{
    if constexpr (std::is_floating_point_v<Acc>) {
        /* Acc is f32 (out f32, or f32 min/max into f64) or f64. */
        if (out_bytes == 4) {
            const float f = static_cast<float>(acc);
            uint32_t u;
            memcpy(&u, &f, sizeof u);
            return u;
        }
        const double d = static_cast<double>(acc);
        uint64_t u;
        memcpy(&u, &d, sizeof u);
        return u;
    } else {
        uint64_t bits = (uint64_t)acc; /* extends by Acc's own signedness */
        if (Op::kResultIsInputValue && in_bits < 64) {
            const uint64_t mask = (uint64_t(1) << in_bits) - 1;
            bits &= mask;
            if (in_signed && (bits >> (in_bits - 1) & 1)) bits |= ~mask;
        }
        return bits;
    }
}

/* The op's identity in out_t, as out_t's bits (little-endian, low bytes). */
inline uint64_t identity_bits(gp_op op, gp_dtype out_t)
{
    const int bits = (int)gp_dtype_size(out_t) * 8;
    const uint64_t ones = bits == 64 ? ~0ULL : (1ULL << bits) - 1;
    const bool is_signed = gp_dtype_kind(out_t) == GP_KIND_SIGNED;
    if (gp_dtype_kind(out_t) == GP_KIND_FLOAT) {
        const bool f32 = out_t == GP_DTYPE_F32;
        switch (op) {
        case GP_OP_PROD: return f32 ? 0x3f800000ULL : 0x3ff0000000000000ULL; /* 1.0 */
        case GP_OP_MIN: return f32 ? 0x7f800000ULL : 0x7ff0000000000000ULL; /* +inf */
        case GP_OP_MAX: return f32 ? 0xff800000ULL : 0xfff0000000000000ULL; /* -inf */
        default: return 0; /* +0.0 */
        }
    }
    switch (op) {
    case GP_OP_PROD: return 1;
    case GP_OP_AND: return ones;
    case GP_OP_MIN: return is_signed ? ones >> 1 : ones; /* largest value */
    case GP_OP_MAX: return is_signed ? (1ULL << (bits - 1)) : 0; /* smallest value */
    default: return 0;
    }
}

/* The sharing the rules above are for (each line one kernel fewer). */
static_assert(std::is_same_v<op_sum::load_t<int32_t, false>, op_sum::load_t<uint32_t, false>>,
              "i32 and u32 sums into 32 bits share a kernel");
static_assert(std::is_same_v<op_sum::load_t<int64_t, true>, op_sum::load_t<uint64_t, true>>,
              "i64 and u64 sums share a kernel");
static_assert(std::is_same_v<op_sum::acc_t<int8_t, false>, uint32_t> &&
                  std::is_same_v<op_sum::acc_t<int8_t, true>, uint64_t>,
              "narrow sums accumulate in 32 bits unless out_t has 64");
static_assert(std::is_same_v<op_and::load_t<int8_t, false>, op_and::load_t<uint8_t, true>>,
              "bitwise ops work on raw bits whatever the sign and out_t");
static_assert(std::is_same_v<op_min::acc_t<int16_t, false>, op_min::acc_t<int16_t, true>>,
              "min/max do not depend on out_t");

} // namespace reduce_ops
} // namespace gp_cuda

#endif
