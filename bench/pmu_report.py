#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/pmu_report.py LOG - the PMU bench's tables from its guest's console.

Cost: for each period, each contender's median elapsed time, its overhead
over the median of the runs with nothing, the samples it took (perf's:
nominal, its own count covering its whole run), the extra
guest time per sample, and that cost above the floor's (prf_floor_pmu: an
overflow handler that only counts).  The goal (issue 24): prf's PMU
source's cost above the floor at most a quarter of perf record's.

Accuracy: each source's share of CPU 1's samples in the irq-off spin,
against the truth (the spin's time over the elapsed time), with the
binomial standard error of that share.
"""
import math
import statistics
import sys

from benchlib import kv

NAMES = {
    "floor": "floor (prf_floor_pmu.ko)",
    "prfpmu": "prf, PMU source (cycles)",
    "perf": "perf record -e cycles -a",
    "prftimer": "prf, timer at the same rate",
}


def fields(line):
    return kv(line.split())


def main(path):
    runs = {}
    shares = []
    for line in open(path, errors="replace"):
        line = line.strip()
        if line.startswith("RESULT "):
            f = fields(line)
            runs.setdefault((f["period"], f["contender"]), []).append(f)
        elif line.startswith("SHARE "):
            shares.append(fields(line))
    periods = sorted({p for p, _ in runs}, key=lambda p: -int(p))
    if not periods:
        print("no RESULT lines in", path, file=sys.stderr)
        return 1
    print("## Cost per sample\n")
    print("Extra = guest time beyond the median of the runs with nothing, per")
    print("sample; above floor = that less the floor's.  Guest time is")
    print("instructions (`-icount shift=0`): the same work costs the same time.")
    print("perf's samples are nominal (elapsed x CPUs / period): its own count")
    print("covers its whole run, the workload's settling time included.\n")
    print("| period (cycles) | contender | median ms | overhead | samples | extra ns/sample | above floor |")
    print("|---|---|---|---|---|---|---|")
    verdicts = []
    noise = []
    for p in periods:
        base = statistics.median(int(r["elapsed_ns"]) for r in runs.get((p, "none"), []))
        cost = {}
        for c in ("floor", "prfpmu", "perf", "prftimer"):
            rs = runs.get((p, c), [])
            if not rs:
                continue
            t = statistics.median(int(r["elapsed_ns"]) for r in rs)
            if c == "floor":
                n = statistics.median(int(r.get("counter", 0)) for r in rs)
            elif c == "perf":
                # nominal: perf's own count spans its whole run (the
                # workload's settling time too); cycles run at 1 GHz of
                # guest time on each busy CPU
                n = statistics.median(int(r["elapsed_ns"]) * int(r["cpus"]) / int(p) for r in rs)
            else:
                n = statistics.median(int(r.get("prf_total", 0)) for r in rs)
            cost[c] = (t - base) / n if n else float("nan")
            above = cost[c] - cost["floor"] if "floor" in cost else float("nan")
            print(f"| {int(p):,} | {NAMES[c]} | {t / 1e6:.1f} | {100 * (t / base - 1):+.1f}% |"
                  f" {n:,.0f} | {cost[c]:,.0f} | {above:,.0f} |")
        print(f"| {int(p):,} | nothing | {base / 1e6:.1f} | | | | |")
        nothing = [int(r["elapsed_ns"]) for r in runs.get((p, "none"), [])]
        if len(nothing) > 1 and "floor" in cost:
            n_floor = statistics.median(int(r.get("counter", 0)) for r in runs[(p, "floor")])
            spread = max(nothing) - min(nothing)
            noise.append(f"- period {int(p):,}: the {len(nothing)} runs with nothing differ by"
                         f" {spread / 1e6:.2f} ms, {spread / n_floor:,.0f} ns a sample at this"
                         f" period: differences below that are noise")
        if all(c in cost for c in ("floor", "prfpmu", "perf")):
            prf_above = cost["prfpmu"] - cost["floor"]
            perf_above = cost["perf"] - cost["floor"]
            ratio = prf_above / perf_above if perf_above > 0 else float("nan")
            verdicts.append(f"- period {int(p):,}: prf's PMU source costs {prf_above:,.0f} ns a sample"
                            f" above the floor, perf record {perf_above:,.0f}: prf/perf = {ratio:.2f}"
                            f" (goal: at most 0.25: {'met' if ratio <= 0.25 else 'NOT met'})")
    print()
    print("\n".join(noise + verdicts))
    if shares:
        print("\n## Accuracy: a function that spins with interrupts off\n")
        print("CPU 1 runs rounds of a 20 ms spin with interrupts off")
        print("(`prf_test_irqoff_spin`, /proc/prf_test_irqoff) and a 4 MiB read of")
        print("/dev/zero; the truth is the spin's time over the elapsed time.  Each")
        print("source samples CPU 1 alone, one after the other; ± is one standard")
        print("error of a share of that many samples.\n")
        print("| source | samples | in the spin | share | truth | share − truth |")
        print("|---|---|---|---|---|---|")
        for s in shares:
            n, k, truth = int(s["total"]), int(s["spin"]), float(s["truth"])
            share = k / n if n else 0.0
            se = math.sqrt(share * (1 - share) / n) if n else 0.0
            print(f"| {s['source']} | {n:,} | {k:,} | {100 * share:.1f}% ± {100 * se:.1f} |"
                  f" {100 * truth:.1f}% | {100 * (share - truth):+.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
