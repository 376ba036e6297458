"""6.2 sight's shortcuts at scale give what the plain computation gives.

Each test runs the engine benchmark's armies on Minden (real ground) a few bounds in and pins a
shortcut against the computation it replaced, element by element: the shadow guess of the
bound's record (``Sight._shadowed``) against every (observer, blocker) pair, the tree's box
pairs against the whole box-gap matrix.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.orders import InstantDelivery
from engine.sight import _SHADOW_M, Sight
from engine.spatial import RectIndex, box_gaps
from scenario_builder.build import build_site

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_engine import last_stand, scenario  # the engine benchmark's armies


@pytest.fixture(scope="module")
def battles() -> list[Battle]:
    """2 x 30 and 2 x 120 formations fought 3 and 6 bounds in (lines meeting, then mixed)."""
    bf = build_site("minden").battlefield
    out = []
    for per_side, bounds in ((30, 3), (120, 6)):
        battle = Battle(bf, last_stand(scenario(bf, per_side)), Dice(1), delivery=InstantDelivery())
        for _ in range(bounds):
            battle.step()
        out.append(battle)
    return out


def shadowed_every_pair(
    look: Sight, own: np.ndarray, tgt: np.ndarray, dist: np.ndarray
) -> np.ndarray:
    """``Sight._shadowed`` as it was before the bearing ranges (sight7): every observer against
    every blocker next to each target, from the whole box-gap matrix."""
    out = np.zeros((own.size, tgt.size), dtype=bool)
    arr, sides = look.arr, look._side_codes()
    pos, ks = np.nonzero(box_gaps(look.spatial.box, tgt) <= _SHADOW_M)
    ti = tgt[pos]
    lv = look.levels
    keep = (ks != ti) & (sides[ks] == sides[ti]) & (lv[ks] >= lv[ti])
    pos, ti, ks = pos[keep], ti[keep], ks[keep]
    if not ti.size:
        return out
    fx, fy, rx, ry = (v[ks] for v in look.axes)
    hw, hd = arr[ks, 2], arr[ks, 3]
    ox, oy = arr[ks, 0] - arr[ti, 0], arr[ks, 1] - arr[ti, 1]
    reach = np.hypot(ox, oy)
    ux, uy = ox / np.where(reach > 0, reach, 1.0), oy / np.where(reach > 0, reach, 1.0)
    wide = np.ones(ks.size)
    for sa, sb in ((-1, 1), (1, 1), (1, -1), (-1, -1)):
        px = ox + sa * hw * rx + sb * hd * fx
        py = oy + sa * hw * ry + sb * hd * fy
        wide = np.minimum(wide, (px * ux + py * uy) / np.maximum(np.hypot(px, py), 1e-9))
    inside = (np.abs(ox * rx + oy * ry) <= hw) & (np.abs(ox * fx + oy * fy) <= hd)
    wide[inside] = -1.0
    near = np.maximum(reach - np.hypot(hw, hd), 0.0)
    xy = arr[:, :2]
    vx = (xy[own, 0][:, None] - xy[tgt, 0])[:, pos]
    vy = (xy[own, 1][:, None] - xy[tgt, 1])[:, pos]
    d = dist[:, pos]
    hit = vx * ux + vy * uy >= wide * d
    hit &= d > near
    hit &= lv[own][:, None] <= lv[ks]
    at, first = np.unique(pos, return_index=True)
    out[:, at] = np.logical_or.reduceat(hit, first, axis=1)
    return out


def test_6_2_shadow_guess_from_bearing_ranges_as_from_every_pair(battles: list[Battle]) -> None:
    # seen_by's guess of which lines the troops next to an enemy block (the order of its look):
    # the observers within each blocker's angle seen from the target, then the same test, give
    # the guess of every observer against every blocker
    rng = np.random.default_rng(15)
    checked = 0
    for battle in battles:
        look = battle.sight.fresh_copy()
        sides = look._side_codes()
        for code in np.unique(sides).tolist():
            own, tgt = np.flatnonzero(sides == code), np.flatnonzero(sides != code)
            xy = look.arr[:, :2]
            dist = np.hypot(
                xy[own, None, 0] - xy[None, tgt, 0], xy[own, None, 1] - xy[None, tgt, 1]
            )
            dist[rng.random(dist.shape) < 0.1] = np.inf  # pairs seen_by never asks
            finite = np.isfinite(dist)
            want = shadowed_every_pair(look, own, tgt, dist) & finite
            got = look._shadowed(own, tgt, dist)
            assert 0 < want.sum() < finite.sum()
            assert np.array_equal(got, want)
            # a subset of targets and observers (a later round of the look), in any order
            o, t = own[::3], tgt[1::2]
            sub = dist[::3][:, 1::2]
            assert np.array_equal(
                look._shadowed(o, t, sub), shadowed_every_pair(look, o, t, sub) & np.isfinite(sub)
            )
            checked += int(want.sum())
    assert checked > 1000


def test_box_gap_pairs_from_the_tree_as_from_the_whole_matrix(battles: list[Battle]) -> None:
    for battle in battles:
        arr = battle.state.table().arr
        index = RectIndex(arr)
        for rows in (np.arange(index.n), np.arange(0, index.n, 7)):
            for gap in (0.0, 75.0, _SHADOW_M, 5000.0):
                want = np.nonzero(box_gaps(index.box, rows) <= gap)
                got = index.box_gap_pairs(rows, gap)
                assert [g.tolist() for g in got] == [w.tolist() for w in want]
    assert RectIndex(np.zeros((0, 5))).box_gap_pairs(np.arange(0), 10.0)[0].size == 0


def test_held_answers_kept_by_the_formations_the_clock_logged_as_by_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Sight keeps its answers through a change of the table that does not touch what it read
    # (a morale state, 10.x): it checks the formations the clock logged since it last looked
    # (engine.state's revision clock), not every formation on the table. Each check of a
    # whole battle is made again over every formation: the same verdict, the same revisions
    bf = build_site("minden").battlefield
    battle = Battle(bf, last_stand(scenario(bf, 30)), Dice(1), delivery=InstantDelivery())
    logged = Sight._same_view
    verdicts: list[bool] = []

    def every_formation(self: Sight, table) -> bool:  # the check before the clock's log
        revs, cols = list(self._revs), {k: v.copy() for k, v in self._cols.items()}
        want = True
        if (
            self._table is not table
            or table.forms is not self._tforms
            or not np.array_equal(table.arr, self.arr)
        ):
            want = False
        else:
            for k, f in enumerate(self.forms):
                if f._rev != revs[k]:
                    for name, col in cols.items():
                        v = col[k]
                        if v == v and float(self._column_value(name, k)) != v:
                            want = False
                    revs[k] = f._rev
        got = logged(self, table)
        assert got == want
        if got:
            assert self._revs == revs
        verdicts.append(got)
        return got

    monkeypatch.setattr(Sight, "_same_view", every_formation)
    # the whole battle: since the record asks the battle's own Sight (no copy a bound) and
    # the morale passes ask fewer pairs, a changed view (False) first comes after bound 12
    for _ in range(30):
        battle.step()
    assert verdicts.count(True) > 20 and False in verdicts, (verdicts.count(True), len(verdicts))


def test_6_2_sides_looked_at_in_step_as_one_at_a_time(battles: list[Battle]) -> None:
    # the bound's record asks each round's pairs of both sides in one batch: each side's
    # record, and the hints it leaves for the next look (who saw each enemy), as one side at a
    # time, and as the brute force over every pair
    for battle in battles:
        sight, sides = battle.sight, list(battle.state.sides)
        hints = {s: dict(w) for s, w in sight._witness.items()}
        one = sight.fresh_copy()
        alone = {side: one.seen_by(side) for side in sides}
        left = {s: dict(w) for s, w in sight._witness.items()}
        sight._witness.clear()
        sight._witness.update({s: dict(w) for s, w in hints.items()})
        both = sight.fresh_copy().seen_by_sides(sides)
        assert both == alone and list(both) == sides
        assert sight._witness == left
        assert all(both.values())
        if battle is battles[0]:  # the brute force, on the smaller battle
            look, table = sight.fresh_copy(), battle.state.table()
            for side in sides:
                own = [f.id for f in table.forms if f.side == side]
                enemy = [g.id for g in table.forms if g.side != side]
                want = sorted(g for g in enemy if any(look.sees(f, g) for f in own))
                assert both[side] == want
