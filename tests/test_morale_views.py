"""The morale passes' short cuts (10.2 friends routing near by, 11.1 seen broken friends)
against the plain code they replace, on a real battle (Minden, the engine benchmark's 2 x 60
fought to the last): each gives the same friends in the same order, so Sight is asked the
same questions and the battle log stays the same (tests/known_answers pins that as well)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.geometry import distance
from engine.rulesets.two_mm_earth import morale
from engine.state import Formation, Morale

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


def _plain_watchers(
    f: Formation, side_forms: list[Formation], near: set[str], bound: int
) -> list[Formation]:
    """The prefetch list after a break as the passes made it before: a scan of the side."""
    return [
        g
        for g in side_forms
        if g is not f
        and (g.id in near or (g.morale is Morale.RETREATING and g.changed_bound != bound))
        and g.morale not in (Morale.ROUTING, Morale.DESTROYED)
    ]


@pytest.fixture(scope="module")
def checked(built_minden: Any) -> dict[str, int]:
    """Fight the 2 x 60 benchmark battle with every new side view made in the passes checked
    against one made from scratch, every post-break prefetch list against the side scan, and
    every gap Sight prefetched after a break against ``geometry.distance``; how many of each."""
    from bench_engine import BOUNDS, last_stand, scenario

    from engine.battle import Battle
    from engine.dice import Dice
    from engine.orders import InstantDelivery

    bf = built_minden.battlefield
    b = Battle(bf, last_stand(scenario(bf, 60)), Dice(1), delivery=InstantDelivery())
    counts = {"shrunk": 0, "same": 0, "rows": 0, "routs": 0, "watchers": 0, "gaps": 0}
    mp = pytest.MonkeyPatch()
    plain_view = morale._SideView

    class CheckedView(plain_view):  # type: ignore[misc,valid-type]
        def __init__(self, ctx: Any, side_forms: list[Formation], prev: Any = None) -> None:
            super().__init__(ctx, side_forms, prev)
            if prev is None or prev.side_forms is not side_forms:
                return
            fresh = plain_view(ctx, side_forms)
            assert self.ids == fresh.ids
            assert self.row == fresh.row
            assert np.array_equal(self.pts, fresh.pts)
            assert self.pts_list == fresh.pts_list
            counts["same" if self.steady is prev.steady else "shrunk"] += 1
            if self._knn is not None:  # k-d tree rows kept: the tree's own answer
                assert self._knn == fresh.knn()
            for g in self.steady:
                lazy, plain = self.nearest_steady(g), fresh.nearest_steady(g)
                assert lazy[0:8] == plain[0:8] and lazy[0:16] == plain[0:16]
                counts["rows"] += 1
            fresh_routs = [
                g for g in fresh.broken_now if g.morale is Morale.ROUTING and not g.skirmisher
            ]
            if self._routs is not None:  # kept from ``prev``
                assert self._routs == fresh_routs
                counts["routs"] += 1

    plain_of = morale._BreakWatchers.of

    def checked_of(self: Any, f: Formation, near: set[str]) -> list[Formation]:
        got = plain_of(self, f, near)
        side_forms = b.state.active(f.side)
        assert got == _plain_watchers(f, side_forms, near, b.state.bound)
        counts["watchers"] += 1
        return got

    sight = b.ctx.sight
    plain_gaps = type(sight).prefetch_gaps

    def checked_gaps(self: Any, pairs: list[tuple[str, str]]) -> None:
        plain_gaps(self, pairs)
        for a, c in pairs:
            i, j = self.index[a], self.index[c]
            assert self._gaps[i][j] == float(distance(self.obbs[i], self.arr[[j]])[0])
            counts["gaps"] += 1

    mp.setattr(morale, "_SideView", CheckedView)
    mp.setattr(morale._BreakWatchers, "of", checked_of)
    mp.setattr(type(sight), "prefetch_gaps", checked_gaps)
    try:
        for _ in range(BOUNDS):
            if b.finished:
                break
            b.step()
    finally:
        mp.undo()
    return counts


def test_side_views_read_on_equal_views_made_anew(checked: dict[str, int]) -> None:
    """10.2 / 11.1: a side view made after a break from the last one (the steady less those
    broken, their centres, the k-d tree rows carried) reads every steady formation's nearest
    friends as a view made from scratch, and keeps the same routers."""
    assert checked["shrunk"] > 10 and checked["same"] > 0
    assert checked["rows"] > 100 and checked["routs"] > 0


def test_break_watchers_equal_the_side_scan(checked: dict[str, int]) -> None:
    """11.1 / 10.2: the friends prefetched after a break are the ones a scan of the side
    picks, in the side's order."""
    assert checked["watchers"] > 10


def test_gaps_prefetched_after_a_rout_equal_the_distance(checked: dict[str, int]) -> None:
    """10.2 within 100 / 250 m: the gaps prefetched for the friends near a new router are
    ``geometry.distance``'s numbers bit for bit."""
    assert checked["gaps"] > 10
