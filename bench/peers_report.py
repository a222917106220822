#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/peers_report.py - the peers' table from bench/peers-guest.sh consoles.

    peers_report.py CONSOLE.LOG [CONSOLE.LOG...]

One table a guest and part (calls, alloc): each contender's median elapsed
time, its extra time over the workload alone, the events it counted, and
its cost an event; then the goals on the spread of the per-repetition ratios
(benchlib.py: met, NOT met or unresolved).  Prints Markdown.  Exits 1
when a log has a BENCH-FAIL line or no result; never on the numbers.

Cost an event = (median elapsed - median elapsed of "none") / events, where
the events are the workload's: for calls, the calls it makes of the
functions (calls_per_round x iterations x CPUs, which every contender is
checked to have counted); for alloc, the allocations prf's alloc-calls mode
counted in the same workload (kmalloc and kmem_cache_alloc), the same
denominator for /proc/allocinfo (which also counts page allocations).
"""
import collections
import statistics
import sys

from benchlib import goal as interval_goal, kv, ratios

NAMES = {
    ('calls', 'none'): 'nothing (the kernel workload alone)',
    ('calls', 'prf'): 'prf calls mode',
    ('calls', 'fentry'): 'bpftrace kfunc: (fentry) @[probe] = count()',
    ('calls', 'kprobe'): 'bpftrace kprobe: @[probe] = count()',
    ('calls', 'funcprof'): "ftrace's function profiler",
    ('alloc', 'none'): 'nothing (files workload, mem_profiling 0)',
    ('alloc', 'allocinfo'): '/proc/allocinfo (mem_profiling 1)',
    ('alloc', 'prfalloc'): 'prf alloc-calls mode (mem_profiling 0)',
}
ORDER = ['none', 'prf', 'prfalloc', 'fentry', 'kprobe', 'funcprof', 'allocinfo']


def parse(path):
    meta, runs, fails = {}, collections.defaultdict(list), []
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            if line.startswith('BENCH-FAIL'):
                fails.append(line)
            elif line.startswith('META '):
                meta.update(kv(line.split()[1:]))
            elif line.startswith('RESULT '):
                d = kv(line.split()[1:])
                runs[(d['part'], d['contender'])].append(d)
    return meta, runs, fails


def fmt(x, nd=0):
    return f'{x:,.{nd}f}'


def main(paths):
    bad = False
    goals = []
    for path in paths:
        meta, runs, fails = parse(path)
        if fails or not runs:
            print(f'**{path}: failed**: ' + '; '.join(fails or ['no results']))
            bad = True
            continue
        kern = meta.get('kernel', '?')
        cpus = int(meta.get('cpus', '0'))
        cost, per_rep = {}, {}
        for part in ('calls', 'alloc'):
            cs = [c for (p, c) in runs if p == part]
            if not cs or 'none' not in cs:
                continue
            cs.sort(key=lambda c: ORDER.index(c) if c in ORDER else 99)
            med = {c: statistics.median(int(r['elapsed_ns']) for r in runs[(part, c)])
                   for c in cs}
            cnt = {c: statistics.median(int(r['counted']) for r in runs[(part, c)])
                   for c in cs}
            base = med['none']
            nr = len(runs[(part, 'none')])
            noise = (max(int(r['elapsed_ns']) for r in runs[(part, 'none')]) -
                     min(int(r['elapsed_ns']) for r in runs[(part, 'none')]))
            spread = noise / base * 100
            if part == 'calls':
                events = int(runs[(part, 'none')][0]['expected'])
                unit = 'call'
                what = (f"kernel workload, {meta.get('iters_kernel')} iterations x {cpus} CPUs, "
                        f"{meta.get('calls_per_round')} calls a round of the 7 functions: "
                        f"{fmt(events)} calls")
            else:
                if 'prfalloc' not in cnt:
                    continue
                events = cnt['prfalloc']
                unit = 'allocation'
                what = (f"files workload, {meta.get('iters_files')} iterations x {cpus} CPUs: "
                        f"{fmt(events)} allocations (prf's count)")
            print(f'## {part} on {kern}')
            print()
            print(f'{what}; {nr} runs each, the workload alone varied {spread:.1f} % '
                  f'(max - min over its median).')
            print()
            print(f'| contender | median ms | extra ms | overhead % | counted | ns per {unit} |')
            print('| --- | ---: | ---: | ---: | ---: | ---: |')
            # (ns per event in italics: the extra time is within the spread of nothing)
            for c in cs:
                extra = med[c] - base
                ns = extra / events if c != 'none' else 0
                if c != 'none':
                    # an extra time within the workload's own spread says nothing
                    cost[(part, c)] = (ns, extra > noise)
                    # repetition k's cost, against repetition k of nothing
                    t0 = {r.get('rep'): int(r['elapsed_ns']) for r in runs[(part, 'none')]}
                    per_rep[(part, c)] = {
                        r.get('rep'): (int(r['elapsed_ns']) - t0[r.get('rep')]) / events
                        for r in runs[(part, c)] if r.get('rep') in t0}
                # allocinfo's counts are of live allocations: its check is apart
                counted = fmt(cnt[c]) if c not in ('none', 'allocinfo') else ''
                print(f'| {NAMES.get((part, c), c)} | {med[c] / 1e6:.2f} | '
                      f'{extra / 1e6:.2f} | {extra / base * 100:.1f} | {counted} | '
                      f"{'' if c == 'none' else fmt(ns) if extra > noise else '*' + fmt(ns) + '*'} |")
            print()
            print('A cost in italics: the extra time is within the spread of the workload '
                  'alone, so it is not resolved.')
            print()
            if part == 'alloc' and 'shmem_alloc_inode' in meta:
                print(f"allocinfo counted: {meta.get('files')} files kept in a tmpfs raised its "
                      f"live counts at shmem_alloc_inode by {meta.get('shmem_alloc_inode')} and "
                      f"at __d_alloc by {meta.get('__d_alloc')}.")
                print()
        def goal(what, mine, peer, factor):
            if mine not in cost or peer not in cost:
                return
            (p, pok), (q, qok) = cost[mine], cost[peer]
            nums = f'{p:.0f} ns vs {q:.0f} ns'
            # the ratio of repetition k's costs, on the min-max of them; a
            # peer's cost at or below zero (within the noise) gives none
            ks = sorted(set(per_rep[mine]) & set(per_rep[peer]))
            text, ok = interval_goal(ratios([per_rep[mine][k] for k in ks],
                                            [per_rep[peer][k] for k in ks]), factor, '<=')
            if not (pok and qok):
                nums += ': an extra time within the spread of the workload alone'
            goals.append((what, ok, f'{nums}, ratio {text}'))
        goal(f'calls ({kern}): prf at most bpftrace fentry a call',
             ('calls', 'prf'), ('calls', 'fentry'), 1)
        goal(f"calls ({kern}): prf at most ftrace's function profiler a call",
             ('calls', 'prf'), ('calls', 'funcprof'), 1)
        goal(f'alloc ({kern}): prf within 3x of /proc/allocinfo an allocation',
             ('alloc', 'prfalloc'), ('alloc', 'allocinfo'), 3)
    if goals:
        print('## Goals')
        print()
        print('Each ratio: its median over the repetitions and their min–max in parentheses '
              '(repetition k of a contender against repetition k of nothing); a goal is met only '
              'when the whole interval is on its side, NOT met when wholly on the other, '
              'unresolved otherwise.')
        print()
        print('| goal | met | numbers |')
        print('| --- | --- | --- |')
        for g, ok, nums in goals:
            print(f'| {g} | {ok} | {nums} |')
        print()
    return 1 if bad or not goals else 0


if __name__ == '__main__':
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
