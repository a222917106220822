# SPDX-License-Identifier: GPL-2.0
"""What the bench's reports share: reading the guests' key=value lines, and
the spread of a ratio over interleaved repetitions with the verdict of a
goal on it.

A ratio measured in R repetitions (each contender run once a round, every
round from the same known state, so that repetition k of one contender is
paired with repetition k of the others) is reported as its median with the
min-max of its R per-repetition values: spread().  A goal on it is "met"
only when that whole interval is on the goal's side of the target, "NOT
met" when the whole interval is on the other side, and "unresolved" when
the interval straddles the target or a repetition could not give a ratio
(a denominator at or below zero: a cost within the noise): verdict().
"""
import math
import statistics


def kv(words):
    """The key=value words of a RESULT/META line as a dict (others left out)."""
    return dict(w.split('=', 1) for w in words if '=' in w)


def _bad(x):
    return x is None or (isinstance(x, float) and math.isnan(x))


def spread(values):
    """(median, min, max) of the per-repetition values; NaNs if any is missing
    or not a number (a repetition without a ratio leaves it unresolved)."""
    values = list(values)
    if not values or any(_bad(v) for v in values):
        nan = float('nan')
        return nan, nan, nan
    return statistics.median(values), min(values), max(values)


def ratios(nums, dens):
    """The per-repetition ratios nums[k] / dens[k]; NaN where dens[k] <= 0."""
    return [n / d if not _bad(n) and not _bad(d) and d > 0 else float('nan')
            for n, d in zip(nums, dens)]


# goal sides: the value must be at most, below, at least, above the target
SIDES = ('<=', '<', '>=', '>')


def verdict(lo, hi, target, side):
    """'met', 'NOT met' or 'unresolved' for the interval [lo, hi] against
    `value side target`."""
    if side not in SIDES:
        raise ValueError(f'side {side!r}')
    if _bad(lo) or _bad(hi) or lo > hi:
        return 'unresolved'

    def ok(x):
        return {'<=': x <= target, '<': x < target,
                '>=': x >= target, '>': x > target}[side]
    if ok(lo) and ok(hi):
        return 'met'
    if not ok(lo) and not ok(hi):
        return 'NOT met'
    return 'unresolved'


def fmt_spread(mid, lo, hi, nd=2):
    """'mid (lo–hi)', or 'mid' when the interval is one value, '-' when none."""
    if _bad(mid):
        return '-'
    if _bad(lo) or _bad(hi) or (round(lo, nd) == round(hi, nd)):
        return f'{mid:.{nd}f}'
    return f'{mid:.{nd}f} ({lo:.{nd}f}–{hi:.{nd}f})'


def goal(values, target, side, nd=2):
    """A goal's text and verdict from its per-repetition values:
    ('1.07 (1.02–1.12)', 'met')."""
    mid, lo, hi = spread(values)
    return fmt_spread(mid, lo, hi, nd), verdict(lo, hi, target, side)
