"""BatchGames scaling with threads (issue 33): game steps per second of wall time at each
thread count, the same games at every count (the results are equal, as the tests check).

    python host/python/bench/batch_threads.py [--games 1024] [--calls 200] [--threads 1,2]
        [--expansions a,b] [--observations]

Each call is ``bot_actions("random")`` then ``step`` (and ``observations()`` with
``--observations``), all in the batch's persistent thread pool with the GIL released.
Wall time is the figure that threads improve, so run it on an otherwise idle machine; the
load average at the start is printed, as other processes take cores away.
"""

import argparse
import os
import time

import carcassonne as c


def pool_cpu():
    """CPU seconds of each thread of the batches' pools (named ``batch-<i>``; Linux only)."""
    out = {}
    task = "/proc/self/task"
    if not os.path.isdir(task):
        return out
    tick = os.sysconf("SC_CLK_TCK")
    for tid in os.listdir(task):
        try:
            with open(f"{task}/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"{task}/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if name.startswith("batch-"):
            out[f"{name} ({tid})"] = (int(fields[11]) + int(fields[12])) / tick
    return out


def run(n, calls, threads, expansions, observations):
    b = c.BatchGames(n, expansions=expansions, seed=1, threads=threads)
    for _ in range(5):  # warm-up: pool started, plugin code paged in
        b.step(b.bot_actions("random", seed=0))
    t0, c0 = time.perf_counter(), time.process_time()
    for k in range(calls):
        ids = b.bot_actions("random", seed=k)
        if observations:
            b.observations()
        b.step(ids)
    rate, cpu = n * calls / (time.perf_counter() - t0), time.process_time() - c0
    return rate, cpu, pool_cpu()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=1024)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--expansions", default="")
    ap.add_argument("--observations", action="store_true")
    a = ap.parse_args()
    ex = [e for e in a.expansions.split(",") if e]
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores, module {c._native._BUILD_PROFILE}")
    base = None
    for t in [int(x) for x in a.threads.split(",")]:
        rate, cpu, per_thread = run(a.games, a.calls, t, ex, a.observations)
        base = base or rate
        print(f"threads {t}: {rate:,.0f} game steps/s (wall), {cpu:.2f} CPU s, {rate / base:.2f}x")
        if t > 1:
            # The work is split: each pool thread's CPU (one pool per batch; this run's
            # pool is the one with the most recent threads).
            shown = ", ".join(f"{k} {v:.2f} s" for k, v in sorted(per_thread.items())[-t:])
            print(f"           pool threads' CPU: {shown}")


if __name__ == "__main__":
    main()
