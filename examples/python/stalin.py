#!/usr/bin/env python3
"""Seed 002's filter and a prefix sum from Python, through ctypes alone.

gpuprim's C ABI needs no compiler and no C++ templates on the caller's side:
this script loads libgpuprim, runs an inclusive scan and the running-max filter
("Stalin sort") on the backend asked for, and checks both against plain Python.

    python3 stalin.py [--lib PATH] [--backend auto|cpu|cuda] [--seed S] [N]

PATH is the shared library (default: found on the system's library path).
Exits 0 when both results match, 1 when one differs or a call fails.
"""
import argparse
import ctypes
import ctypes.util
import random
import sys

# Numbers from gpuprim.h, which keeps them stable.
GP_STATUS_OK = 0
GP_BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2}
GP_DTYPE_I32, GP_DTYPE_I64 = 5, 7
GP_OP_SUM = 1


class Gpuprim:
    """The few calls this script uses, with their C signatures."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        p, i64, u = ctypes.c_void_p, ctypes.c_int64, ctypes.c_uint
        sig = {
            "gp_ctx_create": ([ctypes.POINTER(p), ctypes.c_int, ctypes.c_int], ctypes.c_int),
            "gp_ctx_free": ([p], None),
            "gp_ctx_backend": ([p], ctypes.c_int),
            "gp_ctx_last_error": ([p], ctypes.c_char_p),
            "gp_backend_name": ([ctypes.c_int], ctypes.c_char_p),
            "gp_status_string": ([ctypes.c_int], ctypes.c_char_p),
            "gp_malloc": ([p, ctypes.POINTER(p), ctypes.c_size_t], ctypes.c_int),
            "gp_free": ([p, p], ctypes.c_int),
            "gp_copy_from_host": ([p, p, p, ctypes.c_size_t], ctypes.c_int),
            "gp_copy_to_host": ([p, p, p, ctypes.c_size_t], ctypes.c_int),
            "gp_scan_inclusive": ([p, p, ctypes.c_int, i64, ctypes.c_int, p, ctypes.c_int], ctypes.c_int),
            "gp_filter_running_max": ([p, p, ctypes.c_int, i64, u, p, p, ctypes.POINTER(i64)], ctypes.c_int),
        }
        for name, (args, result) in sig.items():
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = args, result
            setattr(self, name[3:], fn)


class Failed(Exception):
    pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, default=100000)
    ap.add_argument("--lib", default=ctypes.util.find_library("gpuprim"))
    ap.add_argument("--backend", choices=GP_BACKENDS, default="auto")
    ap.add_argument("--seed", type=int, default=random.randrange(1 << 32))
    a = ap.parse_args()
    if not a.lib:
        ap.error("libgpuprim not found on the library path; give --lib")
    if not 1 <= a.n <= 1 << 24:
        ap.error("N must be from 1 to 2^24")
    print(f"n = {a.n}, seed = {a.seed}")
    rng = random.Random(a.seed)
    x = [0] * a.n
    for i in range(1, a.n):  # a climbing random walk, as examples/stalin.c
        x[i] = x[i - 1] + rng.randrange(8) - 3

    try:
        gp = Gpuprim(a.lib)
    except (OSError, AttributeError) as e:
        print(f"stalin.py: cannot use {a.lib} as libgpuprim: {e}", file=sys.stderr)
        return 1
    ctx = ctypes.c_void_p()
    bufs = []

    def check(status):
        if status != GP_STATUS_OK:
            detail = gp.ctx_last_error(ctx).decode() if ctx.value else "no context"
            raise Failed(f"{gp.status_string(status).decode()} ({detail})")

    def device_array(nbytes):
        ptr = ctypes.c_void_p()
        check(gp.malloc(ctx, ctypes.byref(ptr), nbytes))
        bufs.append(ptr)
        return ptr

    try:
        check(gp.ctx_create(ctypes.byref(ctx), GP_BACKENDS[a.backend], 0))
        host_in = (ctypes.c_int32 * a.n)(*x)
        d_in = device_array(ctypes.sizeof(host_in))
        d_out = device_array(a.n * 8)
        check(gp.copy_from_host(ctx, d_in, host_in, ctypes.sizeof(host_in)))

        # Inclusive sum of int32 into int64, so it cannot wrap.
        check(gp.scan_inclusive(ctx, d_in, GP_DTYPE_I32, a.n, GP_OP_SUM, d_out, GP_DTYPE_I64))
        sums = (ctypes.c_int64 * a.n)()
        check(gp.copy_to_host(ctx, sums, d_out, ctypes.sizeof(sums)))
        want, run = [], 0
        for v in x:
            run += v
            want.append(run)
        scan_ok = list(sums) == want

        count = ctypes.c_int64(-1)
        check(gp.filter_running_max(ctx, d_in, GP_DTYPE_I32, a.n, 0, d_out, None, ctypes.byref(count)))
        if not 1 <= count.value <= a.n:  # copying that many would overrun the host array
            raise Failed(f"the filter returned a count of {count.value} for {a.n} elements")
        kept = (ctypes.c_int32 * count.value)()
        check(gp.copy_to_host(ctx, kept, d_out, ctypes.sizeof(kept)))
        filter_ok = list(kept) == serial(x)
        backend = gp.backend_name(gp.ctx_backend(ctx)).decode()
    except Failed as e:
        print(f"gpuprim: {e}", file=sys.stderr)
        return 1
    finally:
        for ptr in bufs:
            gp.free(ctx, ptr)
        gp.ctx_free(ctx)

    print(f"scan on the {backend} backend: {'matches' if scan_ok else 'DIFFERS from'} Python's running sum")
    print(f"filter: {count.value} of {a.n} survive, {'as' if filter_ok else 'NOT as'} in Python's loop")
    return 0 if scan_ok and filter_ok else 1


def serial(x):
    """The article's loop: keep what is not below the maximum so far."""
    kept = []
    for v in x:
        if not kept or v >= kept[-1]:
            kept.append(v)
    return kept


if __name__ == "__main__":
    sys.exit(main())
