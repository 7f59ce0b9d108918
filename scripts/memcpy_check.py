#!/usr/bin/env python3
"""Whether this machine's C library copies large blocks slowly at some alignments.

glibc copies a block of 2,112 bytes or more with `rep movsb` on processors that announce
fast short `rep movsb`. Some of them (AMD Zen 3, and virtual machines on it) then run the
copy 20 to 30 times slower when the destination sits 8 to 24 bytes past the source
modulo 4,096 (the same place in a page, a few bytes on). The engine copies its lists in
pieces under that size (`core/src/copy.rs`), so it does not depend on this; the check says
whether timings of other code on this machine (or of an older build) can flip with the
allocator's layout (docs/benchmarks.md, Lessons).

    python3 scripts/memcpy_check.py [--size 4096] [--copies 20000]

For each offset of the destination past the source (modulo 4,096) it prints the time of one
`memmove` call through ctypes (the call itself costs a few hundred nanoseconds, the same at
every offset), and the slowest against the fastest.
"""

import argparse
import ctypes
import time


def time_copy(dst: int, src: int, size: int, copies: int) -> float:
    """Nanoseconds per `memmove(dst, src, size)`, the fastest of three runs."""
    move = ctypes.memmove
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter_ns()
        for _ in range(copies):
            move(dst, src, size)
        best = min(best, (time.perf_counter_ns() - start) / copies)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=4096, help="bytes a copy (default 4096)")
    ap.add_argument("--copies", type=int, default=20000, help="copies a run")
    args = ap.parse_args()
    # Two buffers, each started at a page boundary, so that only `offset` differs.
    room = args.size + 64
    a = ctypes.create_string_buffer(room + 4096)
    b = ctypes.create_string_buffer(room + 4096)
    src = (ctypes.addressof(a) + 4095) // 4096 * 4096
    base = (ctypes.addressof(b) + 4095) // 4096 * 4096
    times = {}
    for offset in range(0, 64, 8):
        times[offset] = time_copy(base + offset, src, args.size, args.copies)
        print(f"destination +{offset:2} bytes: {times[offset]:8.0f} ns a copy")
    slow, fast = max(times.values()), min(times.values())
    print(f"slowest / fastest: {slow / fast:.1f}x "
          f"({'this machine has the slow case' if slow > 2 * fast else 'no slow case seen'})")


if __name__ == "__main__":
    main()
