"""Every formation's nearest enemies ranked in one sort of the whole table of
candidates give, for every formation and every limit, the enemies and gaps the row-by-row
ranking and the brute force over every enemy give (bit for bit).

The formations are the engine benchmark's battle on Minden (real ground,
``benchmarks/bench_engine.py``) after a few bounds of fighting.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from engine.geometry import distance

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


def _battle(built_minden: Any, bounds: int) -> Any:
    from bench_engine import last_stand, scenario

    from engine.battle import Battle
    from engine.dice import Dice
    from engine.orders import InstantDelivery

    bf = built_minden.battlefield
    b = Battle(bf, last_stand(scenario(bf, 30)), Dice(3), delivery=InstantDelivery())
    for _ in range(bounds):
        b.step()
    return b


def test_ranked_in_one_sort_equals_row_by_row_and_brute_force(built_minden: Any) -> None:
    # 9.1 / 10.2: plans and tests ask for the nearest enemies of every formation; the one
    # sort must give each row's own np.lexsort((idx, gaps)) order, cut at _NEAR_ALL
    from engine.rulesets.two_mm_earth.phases import (
        _NEAR_ALL,
        _near_candidates,
        _near_gaps,
        _near_ranked_rows,
    )

    for bounds in (1, 6):
        b = _battle(built_minden, bounds)
        t = b.state.table()
        table = _near_candidates(t, force=True)
        assert table is not None
        ranked = _near_ranked_rows(t, table)
        assert _near_ranked_rows(t, table) is ranked, "kept for the table's revision"
        for k, f in enumerate(t.forms):
            idx, gaps = table[k]
            order = np.lexsort((idx, gaps))[:_NEAR_ALL]
            want = [(t.forms[j], d) for j, d in zip(idx[order].tolist(), gaps[order].tolist())]
            assert ranked.row(k, _NEAR_ALL) == want
            assert ranked.row(k, 3) == want[:3]
            # against every enemy measured (no table, no culling)
            foe = np.flatnonzero(t.sides != f.side)
            all_gaps = distance(f.obb(), t.arr[foe])
            full = np.lexsort((foe, all_gaps))
            for limit in (1, 3, 8, _NEAR_ALL):
                got = _near_gaps(b.ctx, f, limit)
                brute = [(t.forms[j], float(all_gaps[i])) for i, j in zip(full, foe[full])]
                assert got == brute[:limit]


def test_gap_read_from_the_ranked_list_equals_the_gap_measured(built_minden: Any) -> None:
    # 9.1: an attacker's "in range" and "close to range" gaps (plan_for) are read from its
    # ranked nearest enemies, not from a dict copied for every formation: the same number
    # measured afresh (no ctx) for every enemy on a formation's list, and for one off it
    from engine.rulesets.two_mm_earth.phases import _gap, _near_candidates, _near_gaps

    for bounds in (1, 6):
        b = _battle(built_minden, bounds)
        t = b.state.table()
        assert _near_candidates(t, force=True) is not None
        read = 0
        for f in t.forms:
            near = _near_gaps(b.ctx, f, 12)
            assert ("gaps", f.id) not in t.memo, "no dict of gaps made for a ranked formation"
            for g, d in near:
                assert _gap(f, g, b.ctx) == d == _gap(f, g)
                read += 1
            off = [g for g in t.forms if g.side != f.side and all(g is not h for h, _ in near)]
            if off:
                assert _gap(f, off[-1], b.ctx) == _gap(f, off[-1])
        assert read >= 12 * len(t.forms)
