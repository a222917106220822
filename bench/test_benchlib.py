#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/test_benchlib.py - the interval and verdict logic of the bench's
reports (benchlib.py) on synthetic numbers; run by make -C bench smoke."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
from benchlib import goal, ratios, spread, verdict  # noqa: E402


class Verdict(unittest.TestCase):
    def test_at_most(self):
        self.assertEqual(verdict(1.00, 1.10, 1.10, '<='), 'met')      # the edge is in
        self.assertEqual(verdict(1.00, 1.1000001, 1.10, '<='), 'unresolved')
        self.assertEqual(verdict(1.10, 1.20, 1.10, '<='), 'unresolved')
        self.assertEqual(verdict(1.1000001, 1.20, 1.10, '<='), 'NOT met')
        self.assertEqual(verdict(0.5, 0.5, 1.10, '<='), 'met')

    def test_below(self):
        self.assertEqual(verdict(0.2, 0.99, 1, '<'), 'met')
        self.assertEqual(verdict(0.2, 1.0, 1, '<'), 'unresolved')
        self.assertEqual(verdict(1.0, 1.5, 1, '<'), 'NOT met')

    def test_at_least(self):
        self.assertEqual(verdict(5.0, 7.0, 5, '>='), 'met')
        self.assertEqual(verdict(4.99, 7.0, 5, '>='), 'unresolved')
        self.assertEqual(verdict(1.9, 4.99, 5, '>='), 'NOT met')
        self.assertEqual(verdict(5.0, 5.0, 5, '>'), 'NOT met')
        self.assertEqual(verdict(5.0, 5.1, 5, '>'), 'unresolved')

    def test_no_interval(self):
        nan = float('nan')
        self.assertEqual(verdict(nan, 1.0, 1.1, '<='), 'unresolved')
        self.assertEqual(verdict(1.0, nan, 1.1, '<='), 'unresolved')
        self.assertEqual(verdict(1.2, 1.0, 1.1, '<='), 'unresolved')
        with self.assertRaises(ValueError):
            verdict(1, 1, 1, '==')


class Spread(unittest.TestCase):
    def test_min_max_median(self):
        self.assertEqual(spread([1.22, 1.07, 1.10]), (1.10, 1.07, 1.22))
        self.assertEqual(spread([2.0]), (2.0, 2.0, 2.0))

    def test_missing(self):
        for vals in ([], [1.0, float('nan')], [1.0, None]):
            self.assertTrue(all(math.isnan(x) for x in spread(vals)), vals)

    def test_ratios(self):
        r = ratios([2.0, 3.0, 1.0], [1.0, 0.0, -1.0])
        self.assertEqual(r[0], 2.0)
        self.assertTrue(math.isnan(r[1]) and math.isnan(r[2]))

    def test_goal(self):
        # the case: one run said 1.07, another 1.22: neither met nor not
        self.assertEqual(goal([1.07, 1.22], 1.10, '<='), ('1.15 (1.07–1.22)', 'unresolved'))
        self.assertEqual(goal([1.02, 1.07, 1.09], 1.10, '<='), ('1.07 (1.02–1.09)', 'met'))
        self.assertEqual(goal([1.12, 1.22], 1.10, '<='), ('1.17 (1.12–1.22)', 'NOT met'))
        # a repetition without a ratio (the denominator within the noise)
        self.assertEqual(goal(ratios([0.3, 0.3], [1.0, 0.0]), 0.5, '<='), ('-', 'unresolved'))
        self.assertEqual(goal([0.5], 0.5, '<='), ('0.50', 'met'))
        self.assertEqual(benchlib.fmt_spread(1.0, 1.0, 1.0), '1.00')


class Distributions(unittest.TestCase):
    """report.py keeps each round's distribution apart, and their sum."""

    def test_rounds_apart_and_summed(self):
        import os
        import tempfile
        import report
        log = ('BEGIN-DIST prf@1000 rep=1\n3 vfs_read\n1 [idle]\nEND-DIST\n'
               'BEGIN-DIST perf@1000 rep=1\n2 vfs_read\n2 pipe_read\nEND-DIST\n'
               'BEGIN-DIST prf@1000 rep=2\n1 vfs_read\n1 pipe_read\nEND-DIST\n'
               'BEGIN-DIST procprofile\n5 vfs_read\nEND-DIST\n')
        with tempfile.NamedTemporaryFile('w', suffix='.log', delete=False) as f:
            f.write(log)
        try:
            _, _, dists, per, _ = report.parse([f.name])
        finally:
            os.unlink(f.name)
        self.assertEqual(dists['prf@1000'], {'vfs_read': 4, '[idle]': 1, 'pipe_read': 1})
        self.assertEqual(per[('prf@1000', '1')], {'vfs_read': 3, '[idle]': 1})
        self.assertEqual(per[('prf@1000', '2')], {'vfs_read': 1, 'pipe_read': 1})
        self.assertEqual(per[('procprofile', '1')], {'vfs_read': 5})
        # round 1's pair: prf all vfs_read (idle left out), perf half of it
        self.assertAlmostEqual(report.tvd(per[('prf@1000', '1')], per[('perf@1000', '1')])[0], 0.5)
        self.assertAlmostEqual(report.tvd(per[('prf@1000', '2')], per[('perf@1000', '1')])[0], 0.0)


if __name__ == '__main__':
    unittest.main(verbosity=1)
