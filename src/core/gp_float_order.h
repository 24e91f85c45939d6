/*
 * Float MIN and MAX as every backend combines them, in one place: a NaN
 * wins, and between equal operands the sign decides, -0 < +0 (IEEE 754-2019's
 * minimum and maximum order the zeros so), so neither the order of
 * combination nor where the zeros stand can change the answer.
 *
 * GP_FMIN_TAKES(x, y) is true when x is the minimum of x and y: x is below
 * y, or x is NaN, or they are equal and x is negative. When both are NaN it
 * takes x. GP_FMAX_TAKES likewise. Plain C (CPU kernels) and CUDA C (device
 * code) both expand them; the caller includes <math.h> for signbit. The
 * tests' reference (cpu_reference_ops.h) keeps its own comparison on
 * purpose: a reference that shared this macro could not catch a slip in it.
 */
#ifndef GP_FLOAT_ORDER_H
#define GP_FLOAT_ORDER_H

#define GP_FMIN_TAKES(x, y) ((x) < (y) || (x) != (x) || ((x) == (y) && signbit(x)))
#define GP_FMAX_TAKES(x, y) ((x) > (y) || (x) != (x) || ((x) == (y) && !signbit(x)))

#endif
