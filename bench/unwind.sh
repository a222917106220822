#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/unwind.sh - what whole user call chains cost a sample (issue 38):
# prf record -g by unwind tables (prfreccfi), prf record -g by frame
# records (prfrecfp) and perf record --call-graph dwarf (perfdwarf, then
# perf report), each the command that runs the bench's user workload, in
# one guest boot of bench.sh's (--smoke: one CPU, -icount shift=0,sleep=off,
# so that 1 guest instruction is 1 ns), between runs of nothing.
#
#   bench/unwind.sh [LOG]     run it (or read LOG, a guest log of it) and
#                             print the table (Markdown)
#
# Settings: BENCH_RATES (default "1000 3000 10000"), BENCH_REPS (2),
# BENCH_ITERS_user (380000).  Cost per sample = (the workload's guest time
# with the contender - with nothing) / the samples of work the contender
# counted; memory: perf's file grows by what a sample takes, prf's is the
# tables' rows and the stack copies' rings, fixed whatever the length.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
log=${1:-}
if [ -z "$log" ]; then
	(cd "$HERE" && env BENCH_CONTENDERS="none prfrecfp prfreccfi perfdwarf none" \
		BENCH_WORKLOADS=user BENCH_RATES="${BENCH_RATES:-1000 3000 10000}" \
		BENCH_REPS="${BENCH_REPS:-2}" BENCH_ITERS_user="${BENCH_ITERS_user:-380000}" \
		./bench.sh --smoke >&2) || true
	log=$HERE/out/smoke-main.log
fi
grep -q '^BENCH-DONE fail=0' "$log" || { echo "unwind.sh: $log: the guest failed" >&2; exit 1; }

awk '
function kv(line, key,   i, n, f, p) {
	n = split(line, f, " ")
	for (i = 1; i <= n; i++) { p = index(f[i], "="); if (substr(f[i], 1, p - 1) == key) return substr(f[i], p + 1) }
	return ""
}
function tag(line) { return kv(line, "contender") " " kv(line, "rate") }
/^RESULT / { t = tag($0); ns[t] += kv($0, "elapsed_ns"); runs[t]++
	if (kv($0, "contender") == "none") { none += kv($0, "elapsed_ns"); nnone++ } }
/^META chains / { t = tag($0); smp[t] += kv($0, "samples"); whole[t] += kv($0, "whole") }
/^META perfdata / { t = tag($0); bytes[t] += kv($0, "bytes") }
/^META perfdwarf / { t = tag($0); rep_ns[t] += kv($0, "cpu_ns") }
/^META unwind / { t = tag($0); for (i = 1; i <= NF; i++) if ($i == "rows,") rows[t] = $(i - 1) }
END {
	base = none / nnone
	printf "| contender | rate Hz | samples of work a run | whole chains | guest ms above nothing | ns a sample | perf report ns a sample | memory |\n"
	printf "|---|---|---|---|---|---|---|---|\n"
	n = split("prfrecfp prfreccfi perfdwarf", cs, " ")
	m = split(rates, rs, " ")
	for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) {
		t = cs[i] " " rs[j]
		if (!runs[t]) continue
		s = smp[t] / runs[t]; d = ns[t] / runs[t] - base
		mem = "fixed"
		if (cs[i] == "perfdwarf")
			mem = sprintf("%.0f KiB file (%.0f B a sample)", bytes[t] / runs[t] / 1024, bytes[t] / smp[t])
		if (cs[i] == "prfreccfi")
			mem = sprintf("%d rows (%.0f KiB) + the copies' ring a CPU, fixed", rows[t], rows[t] * 24 / 1024)
		printf "| %s | %s | %.0f | %.1f %% | %.2f | %.0f | %s | %s |\n", cs[i], rs[j], s,
			smp[t] ? 100 * whole[t] / smp[t] : 0, d / 1e6, s ? d / s : 0,
			rep_ns[t] ? sprintf("%.0f", rep_ns[t] / smp[t]) : "-", mem
	}
	printf "\nnothing: %.2f ms (%d runs)\n", base / 1e6, nnone
}' rates="${BENCH_RATES:-1000 3000 10000}" "$log"
