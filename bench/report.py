#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/report.py - turn the guest's console output into the results table.

    report.py OUTDIR CONSOLE.LOG [CONSOLE.LOG...]

Reads RESULT/META/BEGIN-DIST lines, writes OUTDIR/results.csv (one row per
contender x rate x workload), OUTDIR/results.md (the table, the accuracy
checks, the targets) and prints the Markdown.  Exits 1 if a contender
failed or the table is empty; never on performance numbers.
"""
import collections
import csv
import math
import statistics
import sys

from benchlib import fmt_spread, goal, kv, ratios, spread

NAMES = {
    'none': 'nothing', 'floor': 'floor (empty hrtimer)', 'prf3': 'prf, 3 addresses',
    'prffull': 'prf, full kallsyms', 'perf': 'perf record -a',
    'prfcg': 'prf, full, cgroup filter matching all work',
    'prfnomatch': 'prf, full, tgid filter matching nothing',
    'bpf': 'bpftrace @[kstack]', 'bpf1': 'bpftrace @[kstack(1)]',
    'procprofile': '/proc/profile (profile=2)',
    'prfstk16': 'prf, full, stacks D=16', 'prfstk64': 'prf, full, stacks D=64',
    'perfg': 'perf record -a -g',
    'prfalloc': 'prf alloc-calls mode', 'bpfalloc': 'bpftrace kmem:kmalloc @[call_site]',
    'prfcalls': 'prf calls mode', 'bpfcalls': 'bpftrace kprobes @[func]',
    'prfoffcpu': 'prf offcpu mode', 'prfoffstk': 'prf offcpu mode, stacks D=16',
    'bpfoffcpu': 'bpftrace sched_switch @[saved kstack] = sum(ns)',
    'perfsched': 'perf sched record',
    'prfuobj': 'prf, full, user objects table', 'perfrep': 'perf record -a (+ perf report: META)',
    'prfuchain': 'prf, full, user objects table + user call chains',
    'perfrepg': 'perf record -a -g (+ perf report: META)',
}
ORDER = ['none', 'floor', 'prf3', 'prffull', 'prfuobj', 'prfuchain', 'prfcg', 'prfnomatch', 'prfstk16',
         'prfstk64', 'perf', 'perfrep', 'perfg', 'perfrepg', 'bpf', 'bpf1', 'procprofile', 'prfalloc', 'bpfalloc', 'prfcalls',
         'bpfcalls', 'prfoffcpu', 'prfoffstk', 'bpfoffcpu', 'perfsched']
STACKS = ('prfstk16', 'prfstk64')
# event contenders: (prf's, the peer whose events prf's count stands for)
EVENTS = {'prfalloc': 'prfalloc', 'bpfalloc': 'prfalloc', 'prfcalls': 'prfcalls',
          'bpfcalls': 'prfcalls'}
FILTERED = ('prfcg', 'prfnomatch')
# the user objects contenders (the "User objects" section)
UOBJ = ('prfuobj', 'perfrep', 'prfuchain', 'perfrepg')
# time off a CPU, on the switch workload: cost per context switch
OFFCPU = ('prfoffcpu', 'prfoffstk', 'bpfoffcpu', 'perfsched')


def parse(paths):
    """RESULT and META lines, BENCH-FAIL lines, and the distributions: those
    of every round summed under their tag, and each round's alone under
    round k's alone under (tag, k) in the second dict (logs from before
    rounds give round 1)."""
    results, meta, dists, dists_rep, fails = [], [], {}, {}, []
    for path in paths:
        cur = None
        with open(path, errors='replace') as f:
            for line in f:
                line = line.rstrip('\r\n')
                if cur is not None:
                    if line == 'END-DIST':
                        cur = None
                        continue
                    p = line.split(None, 1)
                    if len(p) == 2 and p[0].isdigit():
                        for c in cur:
                            c[p[1]] += int(p[0])
                    continue
                if line.startswith('RESULT '):
                    results.append(kv(line.split()[1:]))
                elif line.startswith('META '):
                    meta.append(line[5:])
                elif line.startswith('BEGIN-DIST '):
                    w = line.split()
                    rep = kv(w[2:]).get('rep', '1')
                    cur = (dists.setdefault(w[1], collections.Counter()),
                           dists_rep.setdefault((w[1], rep), collections.Counter()))
                elif line.startswith('BENCH-FAIL'):
                    fails.append(line)
    return results, meta, dists, dists_rep, fails


DROP = ('[user]', '[idle]', '[perf-self]')


def tvd(a, b, drop=DROP):
    """Total variation distance between two kernel-function distributions."""
    a = {k: v for k, v in a.items() if k not in drop}
    b = {k: v for k, v in b.items() if k not in drop}
    sa, sb = sum(a.values()), sum(b.values())
    if not sa or not sb:
        return float('nan'), sa, sb
    keys = set(a) | set(b)
    return 0.5 * sum(abs(a.get(k, 0) / sa - b.get(k, 0) / sb) for k in keys), sa, sb


def fmt(x, nd=2):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return '-'
    return f'{x:.{nd}f}'


def metas(meta, what):
    """The META lines that start with what, as key=value dicts."""
    return [kv(m.split()) for m in meta if m.split()[0] == what]


def offcpu_table(rows, runs, meta, reps):
    """Off-CPU time: cost per context switch of the switch workload and memory."""
    idx = {r['contender']: r for r in rows if r['workload'] == 'switch'}
    if not any(c in idx for c in OFFCPU):
        return []
    sizes = collections.defaultdict(dict)
    for m in metas(meta, 'size'):
        sizes[m.get('what')][int(m.get('seconds', 0))] = int(m.get('bytes', 0))
    run_bytes = [int(m['bytes']) for m in metas(meta, 'perfsched') if 'bytes' in m]
    prf_mem = {}
    for c in ('prfoffcpu', 'prfoffstk'):
        rs = runs.get((c, 0, 'switch'), [])
        if rs:
            prf_mem[c] = int(rs[0].get('prf_mem', 0))
    slots = next((int(m['offcpu_slots']) for m in metas(meta, 'size')
                  if 'offcpu_slots' in m), 16384)

    def memory(c):
        if c in prf_mem:
            m = prf_mem[c] + 40 * slots
            if c == 'prfoffstk':
                # the stack table: S x (D + 2) x 8 bytes and at most 8 a stack of index
                m += 16384 * (16 + 2) * 8 + 16384 * 8
            return f'{m / 1e6:.2f} MB, fixed'
        if c == 'perfsched' and run_bytes:
            return f'{statistics.median(run_bytes) / 1e6:.1f} MB file'
        return '-'

    md = ['', '### Off-CPU time (workload switch)', '',
          '| contender | guest ms | overhead % | switches | ns per switch above nothing | memory |',
          '| --- | ---: | ---: | ---: | ---: | --- |']
    none = idx.get('none')
    if none:
        md.append(f'| nothing | {fmt(none["time_ms"], 1)} | - | '
                  f'{statistics.median(int(r.get("switches", 0)) for r in runs[("none", 0, "switch")]):.0f} | - | - |')
    for c in OFFCPU:
        r = idx.get(c)
        if r:
            md.append(f'| {NAMES[c]} | {fmt(r["time_ms"], 1)} | {fmt(r.get("overhead_pct"), 2)} | '
                      f'{fmt(r.get("samples"), 0)} | {fmt(r.get("ns_per_sample"), 0)} | {memory(c)} |')
    md.append('')
    md.append('ns per switch = (median guest time with the contender − with nothing) / the '
              'context switches of the workers in that run (voluntary + involuntary, getrusage, both '
              'CPUs). '
              'Guest time under -icount counts the instructions of both vCPUs, so this is the '
              'extra instructions per switch. prf\'s memory: mem_bytes (PRF_GETINFO) + its waits '
              f'table, {slots} slots × 40 bytes, and with stacks the stack table (16384 stacks of '
              'depth 16: (16 + 2) × 8 bytes each and up to 8 of index), all allocated before ON; '
              'perf sched: its perf.data of the run.')
    if sizes.get('prf-offcpu') or sizes.get('perf-sched'):
        parts = []
        for what in ('prf-offcpu', 'perf-sched'):
            for sec, b in sorted(sizes.get(what, {}).items()):
                parts.append(f'{what} after {sec} s: {b / 1e6:.2f} MB')
        md.append('')
        md.append('Memory in time (the switch workload running): ' + '; '.join(parts) + '.')
    b = idx.get('bpfoffcpu')
    for c in ('prfoffcpu', 'prfoffstk'):
        p = idx.get(c)
        if not p or not b or not b.get('ns_per_sample') or 'ns_per_sample' not in p:
            continue
        text, v = goal(ratios(reps(c, 0, 'switch', 'ns_per_sample'),
                              reps('bpfoffcpu', 0, 'switch', 'ns_per_sample')), 0.5, '<=')
        md.append('')
        md.append(f'- goal: {c} at most half of bpftrace\'s cost per switch: '
                  f'{fmt(p["ns_per_sample"], 0)} / {fmt(b["ns_per_sample"], 0)} ns = {text} '
                  f'(target ≤ 0.50): {v}')
    return md


def marginal(w, r0, r1, lo, hi):
    """Between two rates the fixed costs of a run cancel: the cost of one more sample."""
    nan = float('nan')
    parts = []
    du, dn = hi['users'] - lo['users'], hi['named'] - lo['named']
    if du and not math.isnan(du):
        parts.append(f'naming a user sample (prf uobjs − full) {fmt((hi["extra"] - lo["extra"]) / du, 0)} ns '
                     f'per user sample, {fmt((hi["extra"] - lo["extra"]) / dn if dn else nan, 0)} per '
                     f'named one; fixed part of a run {fmt((lo["extra"] - lo["users"] * (hi["extra"] - lo["extra"]) / du) / 1e6, 3)} ms')
    dfs = hi['fs'] - lo['fs']
    if dfs and not math.isnan(dfs):
        parts.append(f'perf report {fmt((hi["rep"] - lo["rep"]) / dfs, 0)} ns CPU per sample, fixed part '
                     f'{fmt((lo["rep"] - lo["fs"] * (hi["rep"] - lo["rep"]) / dfs) / 1e6, 1)} ms')
    return [f'- marginal, {w}, {r0} → {r1} Hz: ' + '; '.join(parts)] if parts else []


def uobj_table(rows, runs, meta):
    """User objects: what naming a user sample costs, prf against perf record + report."""
    idx = {(r['contender'], r['rate'], r['workload']): r for r in rows}
    if not any(c in UOBJ for c, _, _ in idx):
        return []
    uo = collections.defaultdict(list)
    for m in metas(meta, 'uobj'):
        # prfuobj's and prfuchain's, by the contender of their tag
        uo[(m.get('contender', 'prfuobj'), int(m.get('rate', 0)), m.get('workload'))].append(m)
    pr = collections.defaultdict(list)
    for m in metas(meta, 'perfrep'):
        pr[(int(m.get('rate', 0)), m.get('workload'))].append(m)
    nan = float('nan')

    def med(vals):
        vals = list(vals)
        return statistics.median(vals) if vals else nan

    def field(c, rate, w, k):
        return med(int(r[k]) for r in runs.get((c, rate, w), []) if k in r)

    def ns(c, rate, w):
        return (idx.get((c, rate, w)) or {}).get('ns_per_sample', nan)

    md = ['', '### User objects: the cost of naming user samples', '',
          '| rate Hz | workload | prf full | prf + uobjs | perf record | '
          'uobjs − full per user sample | user samples | named | lost | '
          'perf report CPU ms | its samples | report per sample | perf record + report per sample |',
          '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |']
    per = {}
    for (rate, w) in sorted({(r['rate'], r['workload']) for r in rows if r['rate']}):
        if not any(c in ('prfuobj', 'perfrep') for c, ra, wo in idx if (ra, wo) == (rate, w)):
            continue
        d = dict(users=field('prfuobj', rate, w, 'prf_user'),
                 named=med(int(m['named']) for m in uo[('prfuobj', rate, w)]),
                 lost=med(int(m['lost']) for m in uo[('prfuobj', rate, w)]),
                 extra=(field('prfuobj', rate, w, 'elapsed_ns') -
                        field('prffull', rate, w, 'elapsed_ns')),
                 rep=med(int(m['cpu_ns']) for m in pr[(rate, w)]),
                 fs=med(int(m['file_samples']) for m in pr[(rate, w)]))
        d['rec'] = ns('perfrep', rate, w)
        per[(rate, w)] = d
        md.append(f'| {rate} | {w} | {fmt(ns("prffull", rate, w), 0)} | '
                  f'{fmt(ns("prfuobj", rate, w), 0)} | {fmt(ns("perf", rate, w), 0)} | '
                  f'{fmt(d["extra"] / d["users"] if d["users"] else nan, 0)} | '
                  f'{fmt(d["users"], 0)} | {fmt(d["named"], 0)} | {fmt(d["lost"], 0)} | '
                  f'{fmt(d["rep"] / 1e6, 1)} | {fmt(d["fs"], 0)} | '
                  f'{fmt(d["rep"] / d["fs"] if d["fs"] else nan, 0)} | '
                  f'{fmt(d["rec"] + d["rep"] / d["fs"] if d["fs"] else nan, 0)} |')
    md.append('')
    md.append('Columns 3-5: ns per sample as in the main table (extra workload time / samples; '
              'perf\'s nominal). uobjs − full: (median workload time with the user objects table − '
              'with the full table alone) / the user samples (counter N) of the uobjs runs; named: '
              'the samples the table named (the others lost: their CPU\'s ring was full). perf '
              'report: its CPU time (user + system, wait4), over the samples of its file (the '
              '500 ms settle and the workload, all CPUs); record + report: perfrep\'s record run '
              'per nominal sample + report per sample of its file.')
    # the marginal cost: between two rates, the fixed costs of a run cancel
    for w in sorted({w for _, w in per}):
        rs = sorted(r for r, wo in per if wo == w)
        for i, j in [(i, j) for i in range(len(rs)) for j in range(i + 1, len(rs))]:
            md.extend(marginal(w, rs[i], rs[j], per[(rs[i], w)], per[(rs[j], w)]))
    for (rate, w), ms in sorted((k, v) for k, v in pr.items() if v):
        md.append(f'- perf report, {rate} Hz, {w}: {len(ms)} runs, median '
                  f'{med(int(m["cpu_ns"]) for m in ms) / 1e6:.1f} ms CPU '
                  f'({med(int(m["wall_ns"]) for m in ms) / 1e6:.1f} ms guest time), '
                  f'{med(int(m["work_user_samples"]) for m in ms):.0f} samples named in work\'s own code')
    md.extend(uchain_table(rows, runs, meta, idx, uo, med, field, ns))
    return md


def uchain_table(rows, runs, meta, idx, uo, med, field, ns):
    """User call chains: prfuchain above prfuobj, against perf record -g (+ perf report)."""
    if not any(c in ('prfuchain', 'perfrepg') for c, _, _ in idx):
        return []
    nan = float('nan')
    pg = collections.defaultdict(list)
    for m in metas(meta, 'perfrepg'):
        pg[(int(m.get('rate', 0)), m.get('workload'))].append(m)
    md = ['', '### User call chains: their cost above the user objects table', '',
          '| rate Hz | workload | prf + uobjs | prf + uobjs + chains | perf record -g | '
          'chains − uobjs per user sample | user samples | chained | chain dropped | '
          '≥ 2 frames | ≥ 2 frames in work | perf -g report CPU ms | its samples | '
          'report per sample | perf record -g + report per sample |',
          '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | '
          '---: | ---: | ---: |']
    per = {}
    for (rate, w) in sorted({(r['rate'], r['workload']) for r in rows if r['rate']}):
        if not any(c in ('prfuchain', 'perfrepg') for c, ra, wo in idx if (ra, wo) == (rate, w)):
            continue
        ms = uo[('prfuchain', rate, w)]
        d = dict(users=field('prfuchain', rate, w, 'prf_user'),
                 chained=med(int(m.get('chained', 0)) for m in ms),
                 cdrop=med(int(m.get('chain_dropped', 0)) for m in ms),
                 two=med(int(m.get('chained2', 0)) for m in ms),
                 bin2=med(int(m.get('bin2', 0)) for m in ms),
                 extra=(field('prfuchain', rate, w, 'elapsed_ns') -
                        field('prfuobj', rate, w, 'elapsed_ns')),
                 rep=med(int(m['cpu_ns']) for m in pg[(rate, w)]),
                 fs=med(int(m['file_samples']) for m in pg[(rate, w)]))
        d['rec'] = ns('perfrepg', rate, w)
        per[(rate, w)] = d

        def pct(x):
            return f'{fmt(100 * x / d["chained"], 1)} %' if d['chained'] else '-'
        md.append(f'| {rate} | {w} | {fmt(ns("prfuobj", rate, w), 0)} | '
                  f'{fmt(ns("prfuchain", rate, w), 0)} | {fmt(d["rec"], 0)} | '
                  f'{fmt(d["extra"] / d["users"] if d["users"] else nan, 0)} | '
                  f'{fmt(d["users"], 0)} | {fmt(d["chained"], 0)} | {fmt(d["cdrop"], 0)} | '
                  f'{pct(d["two"])} | {pct(d["bin2"])} | '
                  f'{fmt(d["rep"] / 1e6, 1)} | {fmt(d["fs"], 0)} | '
                  f'{fmt(d["rep"] / d["fs"] if d["fs"] else nan, 0)} | '
                  f'{fmt(d["rec"] + d["rep"] / d["fs"] if d["fs"] else nan, 0)} |')
    md.append('')
    md.append('Columns 3-5: ns per sample as in the main table (perf -g: perfrepg\'s record run, '
              'nominal samples). chains − uobjs: (median workload time with chains − with the user '
              'objects table alone) / the user samples (counter N) of the chains runs. chained: '
              'the samples the chain table counted (+ chain dropped = named, uapi); ≥ 2 frames: '
              'their share whose chain has a caller; in work: 2 frames or more in the work binary. '
              'perf -g report: perf report --stdio of perf record -g\'s file, its CPU time over the '
              'samples of its file; record + report: perfrepg\'s record run per nominal sample + '
              'its report per sample of its file.')
    for w in sorted({w for _, w in per}):
        rs = sorted(r for r, wo in per if wo == w)
        for i, j in [(i, j) for i in range(len(rs)) for j in range(i + 1, len(rs))]:
            lo, hi = per[(rs[i], w)], per[(rs[j], w)]
            parts = []
            du = hi['users'] - lo['users']
            if du and not math.isnan(du) and not math.isnan(hi['extra'] - lo['extra']):
                sl = (hi['extra'] - lo['extra']) / du
                parts.append(f'chains above uobjs {fmt(sl, 0)} ns per user sample, fixed part '
                             f'{fmt((lo["extra"] - lo["users"] * sl) / 1e6, 3)} ms')
            dfs = hi['fs'] - lo['fs']
            if dfs and not math.isnan(dfs):
                sl = (hi['rep'] - lo['rep']) / dfs
                parts.append(f'perf report of -g {fmt(sl, 0)} ns CPU per sample, fixed part '
                             f'{fmt((lo["rep"] - lo["fs"] * sl) / 1e6, 1)} ms')
            if parts:
                md.append(f'- marginal, {w}, {rs[i]} → {rs[j]} Hz: ' + '; '.join(parts))
    for (rate, w), ms in sorted((k, v) for k, v in pg.items() if v):
        md.append(f'- perf report (-g), {rate} Hz, {w}: {len(ms)} runs, median '
                  f'{med(int(m["cpu_ns"]) for m in ms) / 1e6:.1f} ms CPU '
                  f'({med(int(m["wall_ns"]) for m in ms) / 1e6:.1f} ms guest time), '
                  f'{med(int(m["work_user_samples"]) for m in ms):.0f} samples named in work\'s own code, '
                  f'{med(int(m.get("chain_lines", 0)) for m in ms):.0f} lines of call chains')
    return md


def table(runs, base):
    """The rows (one per contender x rate x workload) of runs, against base
    (the median time of nothing, per workload), and their index."""
    rows = []
    counted = {c: statistics.median(int(r['prf_total']) for r in rs)
               for (c, _, w), rs in runs.items() if c in ('prfalloc', 'prfcalls')}
    for (c, rate, w), rs in runs.items():
        t = statistics.median(int(r['elapsed_ns']) for r in rs)
        cpus = int(rs[0]['cpus'])
        row = dict(contender=c, rate=rate, workload=w, runs=len(rs), time_ms=t / 1e6)
        if w in base and c != 'none':
            extra = t - base[w]
            row['overhead_pct'] = extra / base[w] * 100
            # samples: measured where the sampler counts them, else nominal
            if c in OFFCPU:
                # the workers' voluntary switches, counted by the kernel
                s = statistics.median(int(r.get('switches', 0)) for r in rs)
                row['samples_src'] = 'counted'
            elif c in ('prf3', 'prffull', 'prfuobj', 'prfuchain') + STACKS:
                s = statistics.median(int(r['prf_total']) for r in rs)
                row['samples_src'] = 'counted'
            elif c in EVENTS:
                # events (allocations, calls): counted by prf's own run
                s = counted.get(EVENTS[c], 0)
                row['samples_src'] = 'counted' if c == EVENTS[c] else 'nominal'
            elif c in FILTERED:
                # every sample taken: counted, or filtered out
                s = statistics.median(int(r['prf_total']) +
                                      int(r.get('prf_filtered', 0)) for r in rs)
                row['samples_src'] = 'counted'
            elif c == 'floor':
                s = statistics.median(int(r['counter']) for r in rs)
                row['samples_src'] = 'counted'
            else:
                s = rate * cpus * t / 1e9
                row['samples_src'] = 'nominal'
            row['samples'] = s
            row['ns_per_sample'] = extra / s if s else float('nan')
            if rate:
                row['rate_ratio'] = s / (rate * cpus * t / 1e9)
        if c in ('prf3', 'prffull'):
            pu = sum(int(r['prf_user']) for r in rs)
            pi = sum(int(r['prf_idle']) for r in rs)
            pt = sum(int(r['prf_total']) for r in rs)
            su = sum(int(r['stat_user']) for r in rs)
            si = sum(int(r['stat_idle']) for r in rs)
            ss = sum(int(r['stat_sys']) for r in rs)
            st = su + si + ss
            if pt and st:
                row['d_user_pts'] = (pu / pt - su / st) * 100
                row['d_idle_pts'] = (pi / pt - si / st) * 100
                row['d_kern_pts'] = ((pt - pu - pi) / pt - ss / st) * 100
            row['lost'] = sum(int(r['prf_lost']) for r in rs)
        rows.append(row)
    key = {c: i for i, c in enumerate(ORDER)}
    rows.sort(key=lambda r: (r['rate'], r['workload'], key.get(r['contender'], 99)))
    idx = {(r['contender'], r['rate'], r['workload']): r for r in rows}
    for r in rows:
        f = idx.get(('floor', r['rate'], r['workload']))
        p = idx.get(('prffull', r['rate'], r['workload']))
        if f and 'overhead_pct' in r and f.get('overhead_pct', 0) > 0:
            r['x_floor'] = r['overhead_pct'] / f['overhead_pct']
        if p and 'overhead_pct' in r and p.get('overhead_pct', 0) > 0 and \
                r['contender'] in ('perf', 'bpf', 'bpf1', 'procprofile'):
            r['x_prf'] = r['overhead_pct'] / p['overhead_pct']
    return rows, idx


def main():
    outdir, paths = sys.argv[1], sys.argv[2:]
    results, meta, dists, dists_rep, fails = parse(paths)
    runs = collections.defaultdict(list)
    for r in results:
        runs[(r['contender'], int(r['rate']), r['workload'])].append(r)
    base = {w: statistics.median(int(r['elapsed_ns']) for r in rs)
            for (c, _, w), rs in runs.items() if c == 'none'}
    base_sd = {w: (statistics.pstdev([int(r['elapsed_ns']) for r in rs]) /
                   base[w] * 100 if len(rs) > 1 else float('nan'))
               for (c, _, w), rs in runs.items() if c == 'none'}
    rows, idx = table(runs, base)
    # the same rows for each repetition alone (round k of the interleaved
    # contenders, against round k's nothing): the spread of every ratio
    by_rep = collections.defaultdict(lambda: collections.defaultdict(list))
    for key, rs in runs.items():
        for r in rs:
            by_rep[r.get('rep', '1')][key].append(r)
    rep_idx = []
    rep_names = sorted(by_rep, key=lambda k: int(k) if k.isdigit() else 0)
    for k in rep_names:
        rk = by_rep[k]
        base_k = dict(base)
        base_k.update({w: statistics.median(int(r['elapsed_ns']) for r in rs)
                       for (c, _, w), rs in rk.items() if c == 'none'})
        rep_idx.append(table(rk, base_k)[1])

    def reps(c, rate, w, field):
        """Its per-repetition values (NaN for a repetition without it)."""
        return [(ix.get((c, rate, w)) or {}).get(field, float('nan')) for ix in rep_idx
                if (c, rate, w) in ix]

    def sp(c, rate, w, field, nd=2):
        """The median of the per-round values with their min-max, as the
        goals take them (the pooled value, of all runs against all of
        nothing's, can fall outside the rounds' range); the pooled value
        alone where a round has none."""
        mid, lo, hi = spread(reps(c, rate, w, field))
        if math.isnan(mid):
            mid = (idx.get((c, rate, w)) or {}).get(field)
        return fmt_spread(mid if mid is not None else float('nan'), lo, hi, nd)

    SPREAD = ('overhead_pct', 'ns_per_sample', 'x_floor', 'x_prf')
    for r in rows:
        for fld in SPREAD:
            _, r[fld + '_min'], r[fld + '_max'] = spread(
                reps(r['contender'], r['rate'], r['workload'], fld))
    cols = ['contender', 'rate', 'workload', 'runs', 'time_ms', 'overhead_pct',
            'samples', 'samples_src', 'rate_ratio', 'ns_per_sample', 'x_floor', 'x_prf',
            'd_user_pts', 'd_kern_pts', 'd_idle_pts', 'lost']
    cols += [f + m for f in SPREAD for m in ('_min', '_max')]
    with open(f'{outdir}/results.csv', 'w', newline='') as f:
        wr = csv.DictWriter(f, fieldnames=cols, extrasaction='ignore')
        wr.writeheader()
        for r in rows:
            wr.writerow(r)

    def k3(r):
        return r['contender'], r['rate'], r['workload']

    def target(what, c, rate, w, field, tgt, side, nd=2):
        text, v = goal(reps(c, rate, w, field), tgt, side, nd)
        return f'{what} {text} (target {side.replace("<=", "≤").replace(">=", "≥")} {tgt}): {v}'

    md = []
    md.append('| contender | rate Hz | workload | guest ms | overhead % | samples | '
              'ns/sample | × floor | × prf (full) |')
    md.append('| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |')
    for r in rows:
        md.append('| {} | {} | {} | {} | {} | {} | {} | {} | {} |'.format(
            NAMES.get(r['contender'], r['contender']), r['rate'] or '-', r['workload'],
            fmt(r['time_ms'], 1), sp(*k3(r), 'overhead_pct', 3),
            fmt(r.get('samples'), 0) + ('*' if r.get('samples_src') == 'nominal' else ''),
            sp(*k3(r), 'ns_per_sample', 0), sp(*k3(r), 'x_floor'), sp(*k3(r), 'x_prf')))
    md.append('')
    md.append(f'{len(rep_idx)} repetitions: every contender once a round, the rounds one after '
              'the other, each contender from the same known state (guest.sh). A value is the '
              'median of its per-repetition values (repetition k against the same round\'s '
              'nothing and floor), and in parentheses their min–max (guest ms: the median of '
              'all runs); a goal is met only '
              'when that whole interval is on its side of the target, NOT met when wholly on '
              'the other, unresolved otherwise (benchlib.py).')
    md.append('')
    md.append('Overhead = median time with the contender / median time with nothing − 1. '
              'Samples: counted by the sampler (prf, floor) or nominal = rate × CPUs × time (*). '
              '× floor: overhead / the floor\'s overhead at the same rate and workload; '
              '× prf: overhead / prf (full table)\'s.')
    if any(r['contender'] == 'procprofile' for r in rows):
        md.append('')
        md.append('/proc/profile rows come from a second boot (profile=2 cannot be turned off), so '
                  'their overhead includes the boot-to-boot offset; its samples ride the scheduler '
                  'tick, which runs in every boot, so its own cost per sample is only profile_hit().')
    md.append('')
    if base_sd:
        md.append('Baseline spread (population s.d. of repeated runs with nothing, % of the median): ' +
                  ', '.join(f'{w} {fmt(v, 3)}%' for w, v in sorted(base_sd.items())))
        md.append('')

    md.append('### Accuracy: prf shares vs /proc/stat (same interval), percentage points')
    md.append('')
    md.append('| contender | rate Hz | workload | Δuser | Δkernel | Δidle | timer rate (samples/nominal) | lost |')
    md.append('| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |')
    for r in rows:
        if 'd_user_pts' in r:
            md.append('| {} | {} | {} | {} | {} | {} | {} | {} |'.format(
                NAMES[r['contender']], r['rate'], r['workload'], fmt(r['d_user_pts']),
                fmt(r['d_kern_pts']), fmt(r['d_idle_pts']), fmt(r.get('rate_ratio'), 3),
                r.get('lost', 0)))
    md.append('')
    md.append('### Accuracy: kernel-function distributions (kernel workload), total variation distance')
    md.append('')
    # old logs name the 1000 Hz distributions plainly
    for k in ('prf', 'perf'):
        if k in dists and f'{k}@1000' not in dists:
            dists[f'{k}@1000'] = dists.pop(k)
            for (t, rep) in [x for x in dists_rep if x[0] == k]:
                dists_rep[(f'{k}@1000', rep)] = dists_rep.pop((t, rep))
    rates = sorted({int(k.split('@')[1]) for k in dists if '@' in k})
    pairs = [(f'prf@{r}', f'perf@{r}') for r in rates]
    pairs += [('prf@1000', 'prf@10000'), ('perf@1000', 'perf@10000'),
              ('prf@1000', 'procprofile'), ('perf@1000', 'procprofile'),
              ('prf@10000', 'procprofile'), ('perf@10000', 'procprofile')]
    tvds = {}
    for a, b in pairs:
        if a in dists and b in dists:
            d, sa, sb = tvd(dists[a], dists[b])
            # each round's distance (the pair from the same round); the
            # one-boot /proc/profile distribution is round 1's alone
            per = [tvd(dists_rep[(a, k)], dists_rep[(b, k)])[0]
                   for k in rep_names if (a, k) in dists_rep and (b, k) in dists_rep]
            tvds[(a, b)] = per
            _, lo, hi = spread(per)
            rounds = f'; one round: {fmt_spread(per[0], lo, hi, 3)}' if len(per) == 1 else (
                f'; {len(per)} rounds each alone: {fmt_spread(statistics.median(per), lo, hi, 3)}'
                if per else '')
            md.append(f'- {a} vs {b}: TVD = {fmt(d, 3)} ({sa} vs {sb} kernel samples, '
                      f'every round\'s summed{rounds})')
    for a, b in [(f'prf@{r}', f'perf@{r}') for r in rates]:
        if a in dists and b in dists:
            pa = {k: v for k, v in dists[a].items() if k not in DROP}
            pb = {k: v for k, v in dists[b].items() if k not in DROP}
            sa, sb = sum(pa.values()) or 1, sum(pb.values()) or 1
            diff = sorted(((pa.get(k, 0) / sa - pb.get(k, 0) / sb, k) for k in set(pa) | set(pb)),
                          key=lambda x: -abs(x[0]))[:6]
            md.append(f'- largest differences {a} − {b}: ' +
                      ', '.join(f'{k} {100 * pa.get(k, 0) / sa:.1f}% vs {100 * pb.get(k, 0) / sb:.1f}%'
                                for _, k in diff))
    md.append('')
    md.append('perf\'s samples of the idle task (pid 0) and of the perf tool itself are left out '
              '(prf counts the first as idle; the second exists only because perf runs).')
    md.append('')
    for a in sorted(dists):
        top = [(n, k) for k, n in dists[a].most_common() if k not in DROP][:8]
        tot = sum(v for k, v in dists[a].items() if k not in DROP)
        if tot:
            md.append(f'- top of {a}: ' + ', '.join(f'{k} {100 * n / tot:.1f}%' for n, k in top))
    md.append('')
    md.append('### Targets')
    md.append('')
    noise = {w: 3 * v for w, v in base_sd.items() if not math.isnan(v)}
    def resolved(w, r):
        f = idx.get(('floor', r, w))
        return f and w in noise and f.get('overhead_pct', 0) > noise[w]
    for r in sorted({r['rate'] for r in rows if r['rate']}):
        for w in sorted({r['workload'] for r in rows}):
            p, f = idx.get(('prffull', r, w)), idx.get(('floor', r, w))
            if not p or not f or 'overhead_pct' not in p:
                continue
            ok = resolved(w, r)
            parts = [target('prf full / floor overhead', 'prffull', r, w, 'x_floor', 1.10, '<=')]
            for c in FILTERED:
                q = idx.get((c, r, w))
                if q and q.get('x_floor') is not None:
                    parts.append(target(f'{c} / floor', c, r, w, 'x_floor', 1.10, '<='))
            for c in ('perf', 'bpf', 'bpf1'):
                q = idx.get((c, r, w))
                if q and q.get('x_prf') is not None:
                    parts.append(target(f'{c}/prf', c, r, w, 'x_prf', 5 if c == 'perf' else 3, '>='))
            md.append(f'- {r} Hz, {w}: ' + '; '.join(parts) +
                      ('' if ok else ' — BELOW NOISE: the floor\'s overhead is under 3 baseline s.d., '
                       'so these ratios mean nothing; use the per-sample costs at 10000 Hz'))
    for w in sorted({r['workload'] for r in rows}):
        p = idx.get(('prffull', 10000, w))
        if p and p.get('ns_per_sample'):
            cpus = 2
            text, v = goal([100 * cpus * x * 1e-7 for x in reps('prffull', 10000, w, 'ns_per_sample')],
                           0.1, '<', 4)
            md.append(f'- prf at 100 Hz, {w}: measured {sp("prffull", 100, w, "overhead_pct", 3)} %; '
                      f'from the 10 kHz per-sample cost: 100 × {cpus} CPUs × {sp("prffull", 10000, w, "ns_per_sample", 0)} ns = '
                      f'{text} % (target < 0.1 %): {v}')
    if tvds.get(('prf@1000', 'perf@1000')):
        text, v = goal(tvds[('prf@1000', 'perf@1000')], 0.10, '<=', 3)
        md.append(f'- TVD prf vs perf at 1000 Hz, each round\'s pair: {text} (target ≤ 0.10): {v}')

    def worst_share(ix, lo_rate=0):
        """A round's worst |Δ| of prf (full)'s shares against /proc/stat."""
        ds = [max(abs(r['d_user_pts']), abs(r['d_kern_pts']), abs(r['d_idle_pts']))
              for (c, rate, _), r in ix.items()
              if c == 'prffull' and 'd_user_pts' in r and rate >= lo_rate]
        return max(ds) if ds else float('nan')
    if any(r['contender'] == 'prffull' and 'd_user_pts' in r for r in rows):
        all_text, all_v = goal([worst_share(ix) for ix in rep_idx], 2, '<=')
        hi_text, hi_v = goal([worst_share(ix, 1000) for ix in rep_idx], 2, '<=')
        md.append(f'- prf (full) shares vs /proc/stat, each round\'s worst |Δ|: {all_text} points over '
                  f'all rates ({all_v}), {hi_text} at ≥ 1000 Hz ({hi_v}) (target ≤ 2; /proc/stat '
                  f'counts in 10 ms units, about 100 per run, so ±1 point is its own resolution)')
    for r in sorted({r['rate'] for r in rows if r['rate']}):
        for w in sorted({r['workload'] for r in rows}):
            f, b, g = (idx.get((c, r, w)) for c in ('floor', 'bpf', 'perfg'))
            for c in STACKS:
                q = idx.get((c, r, w))
                if not q or not f or 'overhead_pct' not in q:
                    continue
                above = q['overhead_pct'] - f['overhead_pct']
                parts = [f'{c} overhead {fmt(q["overhead_pct"], 3)} %, '
                         f'{fmt(above, 3)} points above the floor']
                fo = reps('floor', r, w, 'overhead_pct')
                qa = [x - y for x, y in zip(reps(c, r, w, 'overhead_pct'), fo)]
                if b and 'overhead_pct' in b:
                    bb = b['overhead_pct'] - f['overhead_pct']
                    ba = [x - y for x, y in zip(reps('bpf', r, w, 'overhead_pct'), fo)]
                    text, v = goal(ratios(qa, ba), 0.5, '<=')
                    parts.append(f'/ bpftrace kstack\'s {fmt(bb, 3)}: {text} (target ≤ 0.5): {v}')
                if g and 'overhead_pct' in g:
                    text, v = goal([x - y for x, y in zip(reps(c, r, w, 'overhead_pct'),
                                                          reps('perfg', r, w, 'overhead_pct'))],
                                   0, '<', 3)
                    parts.append(f'perf -g {fmt(g["overhead_pct"], 3)} %, prf − perf -g {text} points '
                                 f'(target: prf below it): {v}')
                md.append(f'- {r} Hz, {w}: ' + '; '.join(parts))
    for mine, peer in (('prfalloc', 'bpfalloc'), ('prfcalls', 'bpfcalls')):
        for w in sorted({r['workload'] for r in rows}):
            p, q = idx.get((mine, 0, w)), idx.get((peer, 0, w))
            if p and 'ns_per_sample' in p:
                line = (f'- {mine}, {w}: {fmt(p["ns_per_sample"], 0)} ns per event '
                        f'({fmt(p.get("samples"), 0)} events, overhead {fmt(p.get("overhead_pct"), 2)} %)')
                if q and 'ns_per_sample' in q:
                    text, v = goal(ratios(reps(mine, 0, w, 'ns_per_sample'),
                                          reps(peer, 0, w, 'ns_per_sample')), 1, '<')
                    line += (f'; {peer} {fmt(q["ns_per_sample"], 0)} ns per event: '
                             f'prf / bpftrace {text} (target < 1): {v}')
                md.append(line)
    md.extend(offcpu_table(rows, runs, meta, reps))
    md.extend(uobj_table(rows, runs, meta))
    md.append('')
    md.append('### Other measurements')
    md.append('')
    for m in meta:
        md.append(f'- {m}')
    if fails:
        md.append('')
        md.append('### FAILURES')
        md.append('')
        for f in fails:
            md.append(f'- {f}')
    text = '\n'.join(md) + '\n'
    with open(f'{outdir}/results.md', 'w') as f:
        f.write(text)
    print(text)
    if fails or not [r for r in rows if 'overhead_pct' in r]:
        print('report: FAILED: ' + ('; '.join(fails) if fails else 'empty table'), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
