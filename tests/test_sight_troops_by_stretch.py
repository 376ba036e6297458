"""6.2 troops in the way at scale: what the shortcuts give is what the plain
computation gives.

``Sight._clear_of_troops`` looks first at the troops next to each target, stretch by stretch,
and the lines still open are asked about the rest of their line (out to the observer), not the
whole line again; each stretch's candidates are culled by the boxes the line passes by
(``Sight._passing_near``) before the slab test; 6.2 who sees over whom is read from a matrix of
the unit types met (``Sight._over_matrix``), not worked out per batch. Each is pinned here
against the rule read pair by pair (every formation the line crosses, ``Sight._troops_clear``)
on real ground: the engine benchmark's armies on Minden a few bounds in.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import engine.sight as sight_module
from engine.battle import Battle
from engine.dice import Dice
from engine.geometry import segment_hits, segment_hits_sparse
from engine.orders import InstantDelivery
from engine.sight import Sight
from scenario_builder.build import build_site

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_engine import last_stand, scenario  # the engine benchmark's armies


@pytest.fixture(scope="module")
def battle() -> Battle:
    """2 x 120 formations 5 bounds in (the lines met, some routed and pursued)."""
    bf = build_site("minden").battlefield
    out = Battle(bf, last_stand(scenario(bf, 120)), Dice(3), delivery=InstantDelivery())
    for _ in range(5):
        out.step()
    return out


def _look(battle: Battle) -> Sight:
    look = battle.sight.fresh_copy()
    look._cache.clear()
    return look


def _pairs(look: Sight, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` (observer, target) rows drawn at random (seeded), no formation with itself."""
    rng = np.random.default_rng(9)
    n = len(look.ids)
    ia, ja = rng.integers(0, n, count), rng.integers(0, n, count)
    keep = ia != ja
    return ia[keep], ja[keep]


def _pair_by_pair(look: Sight, ia: np.ndarray, ja: np.ndarray) -> list[bool]:
    """6.2 read one pair at a time: every formation the line crosses (the slab test over the
    whole table), judged by ``_troops_clear``."""
    out = []
    for i, j in zip(ia.tolist(), ja.tolist(), strict=True):
        p, q = tuple(look._xy[i]), tuple(look._xy[j])
        crossed = segment_hits(p, q, look.arr, look.axes)
        crossed[i] = crossed[j] = False
        out.append(look._troops_clear(i, j, crossed.nonzero()[0].tolist()))
    return out


@pytest.mark.parametrize("reach", [(150.0, 1000.0), (150.0, 400.0), (60.0,)])
def test_6_2_rest_of_the_line_last_as_pair_by_pair(
    battle: Battle, reach: tuple[float, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    look = _look(battle)
    look._refresh()
    ia, ja = _pairs(look, 3000)
    want = _pair_by_pair(look, ia, ja)
    assert 0 < sum(want) < len(want)
    # the stretches among this many formations and pairs (the thresholds: 2 x 160 and more)
    monkeypatch.setattr(sight_module, "_NEAR_TARGET_AMONG", 0)
    monkeypatch.setattr(sight_module, "_NEAR_TARGET_M", reach)
    assert look._clear_of_troops(ia, ja).tolist() == want
    # lines blocked only beyond the last reach (only the rest of the line finds those: without
    # it they would come out clear), many of them
    qs, ps = look.arr[ja, :2], look.arr[ia, :2]
    far_only = 0
    for n, (i, j) in enumerate(zip(ia.tolist(), ja.tolist(), strict=True)):
        if want[n] or np.hypot(*(ps[n] - qs[n])) <= reach[-1]:
            continue
        ends, _far = Sight._toward(qs[n : n + 1], ps[n : n + 1], reach[-1])
        crossed = segment_hits(tuple(ends[0]), tuple(qs[n]), look.arr, look.axes)
        crossed[i] = crossed[j] = False
        hits = crossed.nonzero()[0].tolist()
        far_only += look._troops_clear(i, j, hits)
    assert far_only > 10


def test_6_2_stretch_cull_keeps_every_crossing(battle: Battle) -> None:
    look = _look(battle)
    look._refresh()
    ia, ja = _pairs(look, 400)
    ps, qs = look.arr[ia, :2], look.arr[ja, :2]
    si, ri = look.spatial.crossing_few(ps, qs)
    hit = segment_hits_sparse(ps, qs, look.arr, si, ri, look.axes)
    ks, kr = look._passing_near(ps, qs, si, ri)
    kept = set(zip(ks.tolist(), kr.tolist(), strict=True))
    crossings = set(zip(si[hit].tolist(), ri[hit].tolist(), strict=True))
    assert crossings and crossings <= kept
    assert len(kept) < si.size // 2  # most boxes the lines' own boxes meet are passed by


def test_6_2_who_sees_over_whom_from_the_type_matrix(battle: Battle) -> None:
    look = _look(battle)
    look._refresh()
    rows = np.arange(len(look.ids))
    codes = look._column("type", rows).astype(int).tolist()
    names = look._type_names
    assert codes == [names.index(f.unit_type) for f in look.forms]
    over = look._over_matrix()
    rules = look.rules
    want = [[rules.sees_over(a, b) for b in names] for a in names]
    assert over.tolist() == want
    # both ways round among the battle's types (cavalry over foot, not foot over cavalry):
    # the matrix read the wrong way round would differ
    assert (over != over.T).any()
    # the other columns filled in one go hold each formation's own values
    for name in ("skirm", "see_through"):
        got = look._column(name, rows[::-1]).tolist()[::-1]
        assert got == [float(look._column_value(name, r)) for r in rows.tolist()]
    assert any(look._column("skirm", rows)) and not all(look._column("skirm", rows))


def test_6_2_unit_types_kept_through_moves_read_again_on_a_new_make_up(battle: Battle) -> None:
    # what sight reads of a formation's make-up (its unit type, whether it skirmishes: its
    # living bases' profiles) is kept when it only moves, and read again when its bases change
    look = _look(battle)
    look._refresh()
    rows = np.arange(len(look.ids))
    for name in ("type", "skirm", "see_through"):
        look._column(name, rows)
    state = battle.state
    moved, remade = look.forms[0], look.forms[1]
    other = next(f for f in look.forms if f.unit_type != remade.unit_type)
    old_pose = (moved.cx, moved.cy, moved.facing)
    old_profiles = [b.profile for b in remade.bases]
    try:
        moved.set_pose(moved.cx + 5.0, moved.cy, moved.facing)
        for b in remade.bases:
            b.profile = other.bases[0].profile
        state.version += 1
        look._refresh()  # a new position state: the arrays rebuilt
        assert look.forms[0] is moved and look._revs[0] == moved._rev
        cols = look._cols
        assert cols["type"][0] == cols["type"][0] and cols["skirm"][0] == cols["skirm"][0]
        assert np.isnan(cols["see_through"][0])  # characters are not of the make-up
        assert np.isnan(cols["type"][1]) and np.isnan(cols["skirm"][1])
        got = look._column("type", np.array([0, 1])).tolist()
        want = [float(look._type_code(0)), float(look._type_code(1))]
        assert got == want and look._type_names[int(got[1])] == other.unit_type
        assert look._column("skirm", rows).tolist() == [float(f.skirmisher) for f in look.forms]
    finally:
        moved.set_pose(*old_pose)
        for b, p in zip(remade.bases, old_profiles, strict=True):
            b.profile = p
        state.version += 1


def test_one_point_on_the_map_as_the_arrays_say(battle: Battle) -> None:
    # Battlefield.contains of one point in Python floats (a formation's centre: movement and
    # morale ask thousands of times a battle) skips the arrays: the same answers, edges too
    bf = battle.bf
    minx, miny, maxx, maxy = bf.bounds
    xs = [minx, maxx, (minx + maxx) / 2, np.nextafter(minx, -np.inf), np.nextafter(maxx, 0.0)]
    ys = [miny, maxy, (miny + maxy) / 2, np.nextafter(miny, np.inf), np.nextafter(maxy, np.inf)]
    xs, ys = [float(v) for v in xs] + [float("nan")], [float(v) for v in ys] + [float("nan")]
    got, want = [], []
    for x in xs:
        for y in ys:
            got.append(bf.contains(x, y))
            want.append(bool(bf.contains(np.array([x]), np.array([y]))[0]))
    assert got == want and any(want) and not all(want)
    assert all(type(v) is bool for v in got)


def test_6_3_record_in_fog_at_night_as_every_pair(battle: Battle) -> None:
    # 6.3 fog at night: 500 m for troops who do not know the ground. The bound's record looks
    # at each enemy from its observers in an order (nearest first, those the guess thinks
    # shadowed last, those beyond the limit never), out to its count of possible observers:
    # the enemies any formation of the side sees pair by pair, each asked on its own
    state = battle.state
    red_home = state.sides["red"].locality

    def fog() -> Sight:
        s = battle.sight
        return Sight(s.bf, state, rules=s.rules, weather="fog", time="night", locality=red_home)

    record = fog().seen_by_sides(list(state.sides))
    every = fog()
    every._refresh()
    sides = every._side_codes()
    n = len(every.ids)
    ia, ja = (v.ravel() for v in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    cross = sides[ia] != sides[ja]
    ia, ja = ia[cross], ja[cross]
    hit = every._answers(ia, ja)
    for side, code in every._side_names.items():
        mine = sides[ia] == code
        want = sorted({every.ids[j] for j in ja[mine & hit].tolist()})
        assert record[side] == want, side
        assert want  # pairs beyond the limit among the observers (below)
    limit = every._limits(ia)
    assert limit is not None and every._beyond(ia, ja, limit).any()
