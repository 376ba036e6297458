"""What a formation derives from its make-up (living bases, profiles, ranks,
injuries, shooters, speed) is kept through moves, and every short cut gives the number the
code it replaced gives, bit for bit.

The formations are the engine benchmark's battle on Minden (real ground,
``benchmarks/bench_engine.py``) after a few bounds of fighting; the reference functions
below are the replaced code, word for word (``geometry.forward``/``right``/``local``, the
chart lookup through the enums), so a short cut that drifts by one rounding fails here.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.geometry import forward, local, right
from engine.state import BaseStatus, Formation, Morale

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


@pytest.fixture(scope="module")
def minden() -> Any:
    from scenario_builder.build import build_site

    return build_site("minden").battlefield


@pytest.fixture()
def battle(minden: Any) -> Any:
    from bench_engine import last_stand, scenario

    from engine.battle import Battle
    from engine.dice import Dice
    from engine.orders import InstantDelivery

    bf = minden
    b = Battle(bf, last_stand(scenario(bf, 12)), Dice(3), delivery=InstantDelivery())
    for _ in range(5):
        b.step()
    return b


# -- the replaced code ----------------------------------------------------------------------


def _place_reference(f: Formation) -> list[tuple[float, float, float]]:
    """Formation.place before the short cut: each living base's (x, y, facing)."""
    fx, fy = forward(f.facing)
    rx, ry = right(f.facing)
    ranks = f.ranks
    counts: dict[int, int] = {}
    for b in f.bases:
        counts[b.rank] = counts.get(b.rank, 0) + 1
    out = []
    for b in f.bases:
        if b.status is BaseStatus.DEAD:
            continue
        n = counts[b.rank]
        width = f.frontage if b.rank < ranks - 1 or n >= f.frontage else n
        across = (b.file - (width - 1) / 2.0) * f.pitch_w
        along = ((ranks - 1) / 2.0 - b.rank) * f.base_d
        out.append((f.cx + across * rx + along * fx, f.cy + across * ry + along * fy, f.facing))
    return out


def _side_toward_reference(f: Formation, x: float, y: float) -> str:
    o = f.obb()
    a, l_ = local(o, x, y)
    if l_ >= o.hd:
        return "front"
    if l_ <= -o.hd:
        return "rear"
    if abs(a) >= o.hw:
        return "right" if a > 0 else "left"
    if abs(l_) - o.hd >= abs(a) - o.hw:
        return "front" if l_ >= 0 else "rear"
    return "right" if a > 0 else "left"


def _rank_of_reference(f: Formation, side: str) -> list[Any]:
    alive = [b for b in f.bases if b.alive]
    if not alive or f.loose:
        return alive
    key, pick = {
        "front": ("rank", min),
        "rear": ("rank", max),
        "left": ("file", min),
        "right": ("file", max),
    }[side]
    k = pick(getattr(b, key) for b in alive)
    return [b for b in alive if getattr(b, key) == k]


def _injured_share_reference(f: Formation) -> tuple[float, float]:
    first = min((x.rank for x in f.bases), default=0)
    front = [b for b in f.bases if b.rank == first]
    front_hurt = sum(1 for b in front if b.status is not BaseStatus.OK)
    hurt = sum(1 for b in f.bases if b.status is not BaseStatus.OK)
    return (front_hurt / max(1, len(front)), hurt / max(1, len(f.bases)))


def _made_up(f: Formation) -> None:
    """Every kept value of ``f`` against the replaced code (1.1, 2.4, 3.1, 5.1, 6.1)."""
    from engine.rulesets.two_mm_earth.shooting import range_m, shooting_bases

    alive: list[Any] = [b for b in f.bases if b.alive]  # 2mm Earth's profiles
    assert f.alive_bases == alive
    for side in ("front", "rear", "left", "right"):
        assert f.rank_of(side) == _rank_of_reference(f, side)
    assert f.injured_share() == _injured_share_reference(f)
    shooters = [b for b in alive if b.profile.arming.ranged]
    assert shooting_bases(f) == shooters
    assert range_m(f) == (min(b.profile.range_m for b in shooters) if shooters else 0.0)
    for flag in ("skirmisher", "ordnance", "volleys"):
        want = bool(alive) and all(b.profile.has(flag) for b in alive)
        assert f.has_flag(flag) is want


# -- the tests --------------------------------------------------------------------------------


def test_place_gives_the_slots_of_forward_and_right_bit_for_bit(battle: Any) -> None:
    # 3.1: a base stands at its slot in the formation's frame; place() works the frame's axes
    # out of one sine and cosine, which must be geometry.forward's and right's numbers
    forms = list(battle.state.formations.values())
    assert any(f.n_alive < len(f.bases) for f in forms), "the fixture should have losses"
    for f in forms:
        for facing in (0.0, 17.3, 90.0, 181.25, 271.9, 359.999):
            f.set_pose(f.cx, f.cy, facing)
            got = [(b.x, b.y, b.facing) for b in f.bases if b.alive]
            assert got == _place_reference(f)


def test_rectangle_and_facing_side_match_the_geometry_functions(battle: Any) -> None:
    # 2.4 / 10.2: the face toward a point comes from geometry.local's sums, worked inline
    for f in battle.state.active():
        o = f.obb()
        for dx in (-300.0, -o.hw, -3.0, 0.0, 2.5, o.hw, 250.0):
            for dy in (-200.0, -o.hd, 0.0, 1.0, o.hd, 400.0):
                x, y = o.cx + dx, o.cy + dy
                assert f.side_toward(x, y) == _side_toward_reference(f, x, y)


def test_kept_make_up_lives_through_a_move_and_follows_every_change(battle: Any) -> None:
    # a move changes where the bases stand, not who they are: the living bases and kept
    # values stay (the same objects); a loss, a rank change, a morale change, a base joining
    # through merge each give values worked out afresh
    from engine.rulesets.two_mm_earth.formations import merge_formations, split_off
    from engine.rulesets.two_mm_earth.phases import step_forward

    state = battle.state
    f = next(f for f in state.active() if f.n_alive >= 4 and not f.loose and f.frontage >= 2)
    _made_up(f)
    living, kept = f._living(), f.kept()
    rev = f.revision
    f.set_pose(f.cx + 40.0, f.cy - 10.0, f.facing + 30.0)
    assert f.revision != rev, "a move moves the revision (the rectangle must follow)"
    assert f._living() is living and f.kept() is kept, "kept through the move"
    _made_up(f)
    f.bases[0].x += 1.0  # a base nudged: its place only
    assert f.kept() is kept
    f.place()
    f.bases[0].status = BaseStatus.INJURED  # 1.1: an injury halves a front rank
    assert f.kept() is not kept
    _made_up(f)
    f.bases[0].status = BaseStatus.DEAD
    _made_up(f)
    assert step_forward(f)  # 3.1: a rear base steps into the gap: ranks change
    _made_up(f)
    f.morale = Morale.RETREATING
    _made_up(f)
    f.morale = Morale.STEADY
    g = split_off(state, f, f.alive_bases[:1], "makeup")
    _made_up(f)
    _made_up(g)
    kept = f.kept()
    merge_formations(state, f.id, g.id)  # 5.1: f's list grows in place, then place()
    assert f.kept() is not kept
    _made_up(f)


def test_kept_formation_speed_equals_the_worked_out_one(battle: Any) -> None:
    # 5.1 slowest base, 1.1 / 2.4 halved when half the front rank is hurt, chart 7.3 by class:
    # the speed function kept with the make-up gives the numbers worked out afresh, through a
    # move and after an injury
    from engine.rulesets.two_mm_earth.charts import MoveClass
    from engine.rulesets.two_mm_earth.rulesets import halved

    rs = battle.ruleset

    def fresh(f: Formation, c: int) -> float | None:
        speeds = [rs.unit_speed_m(p, c) for p in f.profiles]
        if not speeds or any(s is None for s in speeds):
            return None
        s = float(min(s for s in speeds if s is not None))
        return s / 2.0 if halved(f) else s

    classes = [int(c) for c in MoveClass]
    f = next(f for f in battle.state.active() if f.n_alive >= 3 and not halved(f))
    fn = rs.formation_speed_m(f)
    assert [fn(c) for c in classes] == [fresh(f, c) for c in classes]
    f.set_pose(f.cx + 20.0, f.cy, f.facing)
    assert rs.formation_speed_m(f) is fn, "kept through a move"
    for b in f.rank_of("front"):
        b.status = BaseStatus.INJURED
    assert halved(f)
    fn2 = rs.formation_speed_m(f)
    assert fn2 is not fn
    assert [fn2(c) for c in classes] == [fresh(f, c) for c in classes]
    plain = fn(int(MoveClass.PLAIN))
    assert plain is not None and fn2(int(MoveClass.PLAIN)) == plain / 2.0


def test_chart_speed_short_cut_equals_the_checked_lookup() -> None:
    # chart 7.3 looked up with plain keys first: every unit type and class, as strings,
    # enums and numpy integers, gives the checked path's number; bad input still names it
    from engine.rulesets.two_mm_earth.charts import (
        SPEED_CHART,
        MoveClass,
        UnitType,
        _unit,
        speed_m,
    )

    for u in UnitType:
        for c in MoveClass:
            want = SPEED_CHART[_unit(u.value)][MoveClass(int(c))]
            for uu in (u, u.value):
                for cc in (c, int(c), np.int64(int(c))):
                    assert speed_m(uu, cc) == want  # type: ignore[arg-type]  # numpy's too
    with pytest.raises(ValueError, match="unit type"):
        speed_m("dragoon", 0)
    with pytest.raises(ValueError):
        speed_m("infantry", 42)
    assert math.isfinite(speed_m("infantry", MoveClass.PLAIN) or math.nan)


def test_kept_make_up_after_fighting_equals_fresh(battle: Any) -> None:
    # every formation after bounds of fighting (losses, injuries, steps forward, morale)
    forms = list(battle.state.formations.values())
    assert any(f.n_alive < len(f.bases) for f in forms), "the fixture should have losses"
    for f in forms:
        _made_up(f)


def test_a_state_with_kept_values_pickles_and_works_them_out_again(battle: Any) -> None:
    # the kept speed function is a closure and revisions are this process's clock: a copy
    # (pickle, deepcopy) leaves derived values behind and works them out again, the same
    import copy
    import pickle

    rs = battle.ruleset
    for f in battle.state.active():
        rs.formation_speed_m(f)(0)
        f.obb()
    for twin in (pickle.loads(pickle.dumps(battle.state)), copy.deepcopy(battle.state)):
        for f in battle.state.active():
            g = twin.formations[f.id]
            assert g._kept is None and g._obb is None
            assert g.obb() == f.obb()
            assert rs.formation_speed_m(g)(0) == rs.formation_speed_m(f)(0)
            assert [b.id for b in g.rank_of("front")] == [b.id for b in f.rank_of("front")]
