"""The state keeps what it derives (rectangles, living bases, the table of
formations as columns) up to date by itself; no rule invalidates anything.

The formations are the engine benchmark's battle on Minden (real ground,
``benchmarks/bench_engine.py``) after a few bounds of fighting. Every kept value is checked
against the same value worked out afresh, for equality (bit for bit).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.geometry import obb_array
from engine.state import BaseStatus, Formation, Morale

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


@pytest.fixture()
def battle() -> Any:
    from bench_engine import last_stand, scenario

    from engine.battle import Battle
    from engine.dice import Dice
    from engine.orders import InstantDelivery
    from scenario_builder.build import build_site

    bf = build_site("minden").battlefield
    b = Battle(bf, last_stand(scenario(bf, 12)), Dice(3), delivery=InstantDelivery())
    for _ in range(5):
        b.step()
    return b


def _fresh_obb(f: Formation) -> Any:
    object.__setattr__(f, "_obb", None)
    object.__setattr__(f, "_alive", None)
    return f.obb()


def test_kept_rectangles_equal_fresh_ones_after_fighting(battle: Any) -> None:
    forms = list(battle.state.formations.values())
    assert any(f.n_alive < len(f.bases) for f in forms), "the fixture should have losses"
    kept = [f.obb() for f in forms]
    assert kept == [_fresh_obb(f) for f in forms]


def test_rank_changes_reach_the_rectangle(battle: Any) -> None:
    # 3.1: bringing rear-rank bases forward (phases.step_forward) changes ranks, not the pose,
    # the living count or the first and last base; the rectangle must follow all the same (the
    # old key of pose, count and first and last id kept the old one: the cause of the moved
    # known answers in this branch's history)
    from engine.rulesets.two_mm_earth.phases import step_forward

    state = battle.state
    # four bases in ranks of three: the fourth alone in the rear rank, behind file 0
    f = next(
        f
        for f in state.active()
        if len(f.bases) == 4 and f.n_alive == 4 and not f.loose and f.frontage == 3
    )
    f.bases[0].status = BaseStatus.DEAD  # front rank, file 0
    before = f.obb()  # kept: two ranks deep
    assert step_forward(f)  # the rear base steps into the gap: one rank
    assert f.obb() == _fresh_obb(f)
    assert f.obb().hd == pytest.approx(before.hd / 2.0)


def test_table_columns_follow_moves_losses_and_morale(battle: Any) -> None:
    state = battle.state
    table = state.table()
    active = [f for f in state.formations.values() if not f.removed]
    assert table.forms == active
    assert np.array_equal(table.arr, obb_array([f.obb() for f in active]))
    held = table.arr
    f = active[0]
    f.set_pose(f.cx + 50.0, f.cy, f.facing)
    table = state.table()
    assert table.arr[table.rows[f.id]].tolist() == list(f.obb())
    assert not np.array_equal(held, table.arr), "the row was rewritten"
    assert held[0].tolist() != table.arr[0].tolist() and held is not table.arr  # a snapshot
    g = active[1]
    g.morale = Morale.DESTROYED
    assert g not in state.active() and g.id not in state.table().rows
    h = active[2]
    for b in h.bases:
        b.status = BaseStatus.DEAD
    assert h not in state.active(h.side)
    del state.formations[active[3].id]
    assert active[3] not in state.active()
    assert state.table().forms == [x for x in state.formations.values() if not x.removed]


def test_kept_rectangle_is_the_one_round_the_bases_in_the_formation_frame(battle: Any) -> None:
    # 1.1 / 3.1: a formation's rectangle is the box round its living bases' slots in its own
    # frame; Formation.obb works out the frame's axes once, and must give geometry.local's
    # numbers base by base (bit for bit)
    from engine.geometry import OBB, forward, local, right

    for f in battle.state.formations.values():
        alive = f.alive_bases or f.bases
        frame = OBB(f.cx, f.cy, 0, 0, f.facing)
        xs = [local(frame, b.x, b.y) for b in alive]
        gap = f.loose_gap / 2 if f.loose else 0
        min_a = min(a for a, _ in xs) - f.pitch_w / 2.0 + gap
        max_a = max(a for a, _ in xs) + f.pitch_w / 2.0 - gap
        min_l = min(l_ for _, l_ in xs) - f.base_d / 2.0
        max_l = max(l_ for _, l_ in xs) + f.base_d / 2.0
        ca, cl = (min_a + max_a) / 2.0, (min_l + max_l) / 2.0
        (fx, fy), (rx, ry) = forward(f.facing), right(f.facing)
        want = OBB(
            f.cx + ca * rx + cl * fx,
            f.cy + ca * ry + cl * fy,
            (max_a - min_a) / 2.0,
            (max_l - min_l) / 2.0,
            f.facing,
        )
        assert _fresh_obb(f) == want


def test_kept_cover_classes_equal_fresh_ones_across_bounds(built_teutoburg: Any) -> None:
    # 7.1: the cover of a formation's footprint is kept by the formation's revision across
    # bounds (the ground never changes). Kalkriese (~29 % woods): after bounds of fighting
    # every kept value must be the one worked out afresh, and a formation moved onto ground of
    # other cover gets its cover anew
    from engine.battle import Battle
    from engine.dice import Dice
    from engine.movement import footprint_classes
    from engine.rulesets.two_mm_earth.context import TwoMmContext
    from engine.scenario import load_scenario

    bf = built_teutoburg.battlefield
    b = Battle(bf, load_scenario("teutoburg_ad9"), Dice(5))
    ctx = b.ctx
    assert isinstance(ctx, TwoMmContext)
    for _ in range(4):
        for f in b.state.active():
            ctx.cover_classes(f)  # kept, as the shooting and melee phases keep them
        b.step()
    forms = b.state.active()
    assert any(ctx.cover_classes(f) for f in forms), "some troops should stand in cover"
    for f in forms:
        assert ctx.cover_classes(f) == footprint_classes(bf, f, "cover")[0]
    f = forms[0]
    before = ctx.cover_classes(f)
    x0, y0, x1, y1 = b.state.bounds_xy
    grid = [(x, y) for x in np.linspace(x0, x1, 15)[1:-1] for y in np.linspace(y0, y1, 15)[1:-1]]
    for x, y in grid:
        f.set_pose(float(x), float(y), f.facing)
        fresh, _ = footprint_classes(bf, f, "cover")
        if fresh != before:
            break
    else:
        pytest.fail("no ground of other cover on the map")
    assert ctx.cover_classes(f) == fresh


def test_general_nearest_enemy_for_the_side_equals_one_by_one(battle: Any) -> None:
    # 9.1 defaults: the General's nearest enemy of every formation of a side comes from one
    # matrix (engine.command.enemies.Enemies); it must be the first of least separation, as
    # asked one formation at a time, with the same gap
    from engine.command.enemies import Enemies as _Enemies
    from engine.geometry import separation

    state = battle.state
    for side in state.sides:
        enemies = _Enemies(state, side)
        assert enemies.few, "the fixture is a few formations a side"
        for f in state.active(side):
            s = separation(f.obb(), enemies.arr)
            k = int(np.argmin(s))
            got = enemies.nearest(f)
            assert got is not None
            assert got[0] is enemies.forms[k] and got[1] == max(0.0, float(s[k]))
            for m in (0.0, 50.0, 300.0):
                want = bool((np.maximum(s, 0.0) <= m).any())
                assert enemies.within(f, m) is want


def _fresh_bases(state: Any) -> dict[str, Any]:
    return {b.id: b for f in state.formations.values() for b in f.bases}


def test_kept_bases_by_id_follow_merges_splits_and_removals(battle: Any) -> None:
    # BattleState.bases is kept while no formation's list of bases is replaced or grows: each
    # way the rules change which formation holds a base must give the dict worked out afresh,
    # in the same order (3.2 contacts, 10.2 triggers and melee look bases up by id)
    from engine.rulesets.two_mm_earth.formations import merge_formations, split_off

    state = battle.state
    kept = state.bases
    assert state.bases is kept, "asked again with nothing changed: the same dict"
    assert list(kept.items()) == list(_fresh_bases(state).items())
    # a move and a loss change no formation's list: still the same (and still right)
    f = next(f for f in state.active() if f.n_alive >= 3)
    f.set_pose(f.cx + 7.0, f.cy, f.facing)
    f.alive_bases[-1].status = BaseStatus.DEAD
    assert state.bases is kept
    assert list(state.bases.items()) == list(_fresh_bases(state).items())
    # 4.2 a wing split off: a new formation, the old list replaced
    g = split_off(state, f, f.alive_bases[:1], "test")
    assert list(state.bases.items()) == list(_fresh_bases(state).items())
    assert state.bases[f.alive_bases[0].id].formation == f.id
    assert state.bases[g.bases[0].id].formation == g.id
    # 5.1 / 4.2 re-joining: the list of the one joined is extended in place
    before = state.bases
    merge_formations(state, f.id, g.id)
    assert len(f.bases) > 0 and state.bases is not before
    assert list(state.bases.items()) == list(_fresh_bases(state).items())
    # a formation taken off the state, and one put back in another place in the order
    other = next(x for x in state.formations.values() if x is not f and x is not g)
    del state.formations[other.id]
    assert list(state.bases.items()) == list(_fresh_bases(state).items())
    state.formations[other.id] = other
    assert list(state.bases.items()) == list(_fresh_bases(state).items())
    # a list replaced by another of the same length and the same bases
    f.bases = list(f.bases)
    assert list(state.bases.items()) == list(_fresh_bases(state).items())
    # a list changed in place (no rule does this today; the length tells)
    last = f.bases.pop()
    assert last.id not in state.bases
    f.bases.append(last)
    assert list(state.bases.items()) == list(_fresh_bases(state).items())
