"""The bound's bookkeeping and the planning phases' cheaper paths give, on a real
battle, what the plain code they replace gave (so the battle log stays the same;
tests/known_answers pins that as well).

- 1.1 start of the bound (``phases.start_bound``): the notes cleared by writes spelled out, not a
  loop over the names: the same notes and the same ``ctx.start_poses`` as the loop.
- 2.1 initiative order (``phases._by_initiative``): each formation's initiative kept with its
  make-up gives the order ``sorted(forms, key=(+-initiative, deployment order))`` gives.

The battle is the engine benchmark's on Minden (real ground, ``benchmarks/bench_engine.py``),
30 formations a side fought to the last, so formations attack, lose bases, break and rout.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from engine.rulesets.two_mm_earth import phases
from engine.state import Formation
from tests.reference import plans as plans_ref

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

BOUNDS = 14


def _battle(built_minden: Any) -> Any:
    from bench_engine import last_stand, scenario

    from engine.battle import Battle
    from engine.dice import Dice
    from engine.orders import InstantDelivery

    bf = built_minden.battlefield
    return Battle(bf, last_stand(scenario(bf, 30)), Dice(3), delivery=InstantDelivery())


def test_1_1_start_of_bound_notes_and_poses_equal_the_loop(
    built_minden: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every bound's start: the poses kept for the allowance check are each base's pose as the
    # bound starts, and every note of the last bound is cleared as the loop cleared it
    real = phases.start_bound
    checked: list[int] = []

    def checking(ctx: Any) -> None:
        state = ctx.state
        want_poses = {
            f.id: {b.id: (b.x, b.y, b.facing) for b in f.bases} for f in state.formations.values()
        }
        dirty = sum(
            1 for f in state.formations.values() if f.shot or f.hits_melee or f.moved_m or f.tested
        )
        real(ctx)
        assert ctx.start_poses == want_poses
        for f in state.formations.values():
            for name in phases._BOUND_FALSE:
                assert getattr(f, name) is False, name
            for name in phases._BOUND_ZERO:
                assert getattr(f, name) == 0 and type(getattr(f, name)) is int, name
            for name in phases._BOUND_EMPTY:
                assert getattr(f, name) == (), name
            assert f.moved_m == 0.0 and type(f.moved_m) is float
            assert f.alive_at_start == f.n_alive
            assert f.front_at_start == plans_ref.front_ids(f)
            assert f.contacts_prev == state.contacts.get(f.id, ())
        checked.append(dirty)

    monkeypatch.setattr(phases, "start_bound", checking)
    b = _battle(built_minden)
    for _ in range(BOUNDS):
        b.step()
    assert len(checked) == BOUNDS
    assert sum(checked) > 50, "the last bound's notes were there to clear"


def test_2_1_initiative_order_equals_the_sort(
    built_minden: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 2.1: low initiative plans first, high initiative acts first; deployment order on ties
    real = phases._by_initiative
    calls: list[tuple[bool, int]] = []

    def checking(ctx: Any, low_first: bool) -> list[Formation]:
        got = real(ctx, low_first)
        idx = {fid: i for i, fid in enumerate(ctx.state.formations)}
        sign = 1 if low_first else -1
        forms = ctx.state.table().forms
        want = sorted(forms, key=lambda f: (sign * f.initiative, idx[f.id]))
        assert [f.id for f in got] == [f.id for f in want]
        calls.append((low_first, len({f.initiative for f in forms})))
        return got

    monkeypatch.setattr(phases, "_by_initiative", checking)
    b = _battle(built_minden)
    for _ in range(BOUNDS):
        b.step()
    assert {low for low, _n in calls} == {True, False} and len(calls) >= 4 * BOUNDS
    assert max(n for _low, n in calls) > 1, "formations of several initiatives to order"


def test_2_1_kept_initiative_follows_the_living_bases() -> None:
    # 2.1: a mixed formation acts at its living bases' lowest initiative (11.3 rear ranks of
    # another profile); the initiative kept with the make-up is worked out again when the
    # bases that set it die, or a base's profile changes (a replacement moved up)
    from engine.rulesets.two_mm_earth.phases import _initiative
    from engine.rulesets.two_mm_earth.profiles import load_army
    from engine.rulesets.two_mm_earth.rulesets import BASE_SIZE
    from engine.state import BaseStatus, Formation

    army = load_army(str(Path(__file__).parent / "data" / "troops" / "rules_red.yaml"))
    f = Formation.build(
        "m",
        "red",
        "M",
        army.profile("cav"),
        n_bases=4,
        frontage=2,
        cx=0.0,
        cy=0.0,
        facing=0.0,
        rear_profile=army.profile("archers"),
        rear_ranks=1,
        **BASE_SIZE,
    )
    assert _initiative(f) == f.initiative == 3  # the archers' 3, not the knights' 4
    for b in f.bases:
        if b.profile.id == "archers":
            b.status = BaseStatus.DEAD
    assert _initiative(f) == f.initiative == 4
    f.bases[0].profile = army.profile("guns")
    assert _initiative(f) == f.initiative == 1
