#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/truth_report.py - each profiler's shares against the known truth.

    truth_report.py CONSOLE.LOG [OUT.md]

Reads the BEGIN-TRUTH blocks bench/truth-guest.sh printed (the worker's own
measure of where its CPU time went, and what the contender counted for it),
prints the Markdown tables (per variant: each contender's share of every
function against the truth, the error in points, the largest error, the
total variation distance) and the goal lines, and writes them to OUT.md
when given.  Exits 1 when the guest reported a failure, a block is
missing, or a contender counted less than half its nominal samples; never
on the accuracy itself.
"""
import collections
import math
import sys

from benchlib import kv

FUNCS = ['prf_test_kmod_spin', 'prf_test_c', 'truth_user_a', 'truth_user_b']
BUCKETS = FUNCS + ['other']
NAMES = {
    'prf': 'prf (default: stratified)',
    'prffixed': 'prf PRF_FLAG_FIXED',
    'perf': 'perf record -e cpu-clock -a',
    'bpf': 'bpftrace profile:hz',
    'tick': 'tick (utime:stime)',
}
VARIANTS = {
    'mixed': 'kernel and user, segments of 2, 0.37, 1 and 1.63 ms, '
             'one after the other (a round of about 5.2 ms, no multiple of the period)',
    'phase': 'user only, locked to the millisecond: truth_user_a for the first '
             '0.3 ms of every CLOCK_MONOTONIC millisecond, truth_user_b for the rest',
}


def parse(path):
    runs, meta, fails, done = [], [], [], False
    cur = None
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            if line.startswith('BEGIN-TRUTH '):
                cur = dict(kv(line.split()[1:]), truth=None,
                           counts=collections.Counter())
                continue
            if cur is not None:
                if line == 'END-TRUTH':
                    runs.append(cur)
                    cur = None
                elif line.startswith('TRUTH '):
                    cur['truth'] = kv(line.split()[1:])
                else:
                    p = line.split(None, 1)
                    if len(p) == 2 and p[0].isdigit():
                        cur['counts'][p[1].strip()] += int(p[0])
                continue
            if line.startswith('META '):
                meta.append(line[5:])
            elif line.startswith('TRUTH-FAIL'):
                fails.append(line)
            elif line.startswith('TRUTH-DONE'):
                done = True
    return runs, meta, fails, done


def truth_shares(t):
    cpu = float(t['cpu_ns'])
    s = {f: float(t[f]) / cpu for f in FUNCS}
    s['other'] = 1 - sum(s.values())
    return s


def measured(counts):
    b = collections.Counter()
    for name, n in counts.items():
        b[name if name in FUNCS else 'other'] += n
    total = sum(b.values())
    return {k: b[k] / total for k in BUCKETS} if total else None, total


def main():
    log = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else None
    runs, meta, fails, done = parse(log)
    hz = 1000
    for m in meta:
        d = kv(m.split())
        if 'hz' in d:
            hz = int(d['hz'])
    rc = 0
    lines = []
    say = lines.append
    errs = collections.defaultdict(dict)	# (variant, contender) -> {func: pts}
    for f in fails:
        say(f'- FAILED: {f}')
        rc = 1
    if not done:
        say('- FAILED: the guest did not finish (no TRUTH-DONE)')
        rc = 1
    for v in [v for v in VARIANTS if any(r['variant'] == v for r in runs)]:
        vr = [r for r in runs if r['variant'] == v and r['truth']]
        say(f'### Variant `{v}`: {VARIANTS[v]}')
        say('')
        say('Share of the worker\'s CPU time, % (truth: the worker\'s own clock, '
            'in the same run as the contender); error in points = measured − truth.')
        say('')
        say('| contender | samples | ' + ' | '.join(f'`{f}`' for f in FUNCS) +
            ' | other | max \\|error\\| (functions) | TVD |')
        say('| --- | ---: |' + ' ---: |' * (len(FUNCS) + 3))
        for r in vr:
            c = r['contender']
            t = truth_shares(r['truth'])
            m, n = measured(r['counts'])
            nominal = hz * float(r['truth']['cpu_ns']) / 1e9
            if not m or n < nominal / 2:
                say(f'| {NAMES.get(c, c)} | {n} | counted {n} of about {nominal:.0f}: FAILED |')
                rc = 1
                continue
            cells = []
            for k in BUCKETS:
                e = (m[k] - t[k]) * 100
                errs[(v, c)][k] = e
                cells.append(f'{m[k] * 100:.2f} ({e:+.2f})')
            mx = max(abs(errs[(v, c)][k]) for k in FUNCS)
            tv = 0.5 * sum(abs(m[k] - t[k]) for k in BUCKETS)
            errs[(v, c)]['max'] = mx
            errs[(v, c)]['tvd'] = tv
            errs[(v, c)]['n'] = n
            say(f'| {NAMES.get(c, c)} | {n} | ' + ' | '.join(cells) +
                f' | {mx:.2f} | {tv:.3f} |')
        # the truth of each run, and a random sampler's one standard error
        say('')
        say('Truth per run (%): ' + '; '.join(
            f'{r["contender"]}: ' + ', '.join(
                f'{truth_shares(r["truth"])[k] * 100:.2f}' for k in BUCKETS)
            for r in vr) + ' (in the order of the table\'s columns).')
        if vr:
            t = truth_shares(vr[0]['truth'])
            n = hz * float(vr[0]['truth']['cpu_ns']) / 1e9
            say(f'One standard error of a sampler taking {n:.0f} independent '
                'samples at random: ' + ', '.join(
                    f'{math.sqrt(t[k] * (1 - t[k]) / n) * 100:.2f}' for k in FUNCS) +
                ' points (a stratified sampler\'s is smaller: one sample a period, '
                'only the periods a boundary cuts are random).')
        # the scheduler tick's user/kernel split of the same worker
        say('')
        say('The scheduler tick\'s split of the same worker (`/proc/PID/stat` utime:stime, '
            'tick-sampled at HZ=250) against the truth\'s user share (the two user functions; '
            'the clock reads are system calls, the guest\'s clocksource being HPET):')
        say('')
        for r in vr:
            tr = r['truth']
            u, s = int(tr['tick_utime']), int(tr['tick_stime'])
            tu = (float(tr['truth_user_a']) + float(tr['truth_user_b'])) / float(tr['cpu_ns'])
            if u + s:
                say(f'- during {NAMES.get(r["contender"], r["contender"])}: tick user '
                    f'{u / (u + s) * 100:.1f} % ({u}:{s} ticks of 10 ms), truth '
                    f'{tu * 100:.2f} %: {(u / (u + s) - tu) * 100:+.1f} points')
        say('')

    say('### Goals (at %d Hz)' % hz)
    say('')
    pe = [(v, e) for (v, c), e in errs.items() if c == 'prf']
    if pe:
        worst = max(e['max'] for _, e in pe)
        say(f'- prf within 1 point of the truth on every function: '
            f'{"MET" if worst <= 1 else "NOT MET"} (largest |error| {worst:.2f} points: ' +
            ', '.join(f'{v} {e["max"]:.2f}' for v, e in pe) + ')')
    for mine in ('prf', 'prffixed'):
        worse, beyond = [], []
        for (v, c), e in errs.items():
            if c != mine or (v, 'perf') not in errs:
                continue
            p = errs[(v, 'perf')]
            for k in FUNCS:
                if abs(e[k]) > abs(p[k]):
                    worse.append(f'{v} `{k}` {abs(e[k]):.2f} vs perf {abs(p[k]):.2f}')
                    # one standard error of a random sampler with prf's samples
                    q = next(r for r in runs if r['variant'] == v and r['contender'] == c)
                    tk = truth_shares(q['truth'])[k]
                    se = 100 * math.sqrt(tk * (1 - tk) / e['n'])
                    if abs(e[k]) > abs(p[k]) + se:
                        beyond.append(worse[-1])
        if any(c == mine for (_, c) in errs):
            say(f'- {NAMES[mine]} no worse than perf anywhere: '
                f'{"MET" if not worse else "NOT MET"}' +
                (f' (worse on: {"; ".join(worse)})' if worse else '') +
                f'; by more than one standard error of its own sampling: '
                f'{"; ".join(beyond) if beyond else "nowhere"}' +
                '; TVD against the truth: ' + ', '.join(
                    f'{v} {errs[(v, mine)]["tvd"]:.3f} vs perf {errs[(v, "perf")]["tvd"]:.3f}'
                    for v in VARIANTS if (v, mine) in errs and (v, 'perf') in errs))
    text = '\n'.join(lines) + '\n'
    print(text, end='')
    if out:
        with open(out, 'w') as f:
            f.write(text)
    return rc


if __name__ == '__main__':
    sys.exit(main())
