"""The planning phases' shortcuts give, on a real battle, what the plain code gave.

The battle is the engine benchmark's on Minden (real ground, ``benchmarks/bench_engine.py``),
30 formations a side fought to the last, so formations attack, break, retreat and rout.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from engine.geometry import bearing
from engine.movement import retreat_bearing
from tests.reference import movement as movement_ref

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


def _battle(built_minden: Any) -> Any:
    from bench_engine import last_stand, scenario

    from engine.battle import Battle
    from engine.dice import Dice
    from engine.orders import InstantDelivery

    bf = built_minden.battlefield
    return Battle(bf, last_stand(scenario(bf, 30)), Dice(3), delivery=InstantDelivery())


def test_10_3_retreat_bearings_of_a_battle_equal_the_loop(
    built_minden: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 10.3: every retreat and rout the plans work out in a real battle veers as the loop over
    # candidates and enemy bases (the rule as first written) does, bit for bit
    from engine.rulesets.two_mm_earth import phases

    asked: list[tuple[Any, ...]] = []

    def recording(*args: Any) -> float:
        asked.append(args)
        return retreat_bearing(*args)

    monkeypatch.setattr(phases, "retreat_bearing", recording)
    b = _battle(built_minden)
    for _ in range(12):
        b.step()
    with_bases = [a for a in asked if a[2]]
    assert len(asked) > 50 and len(with_bases) > 20
    veered = 0
    for centre, enemy, bases, home in asked:
        got = retreat_bearing(centre, enemy, bases, home)
        assert got == movement_ref.retreat_bearing(centre, enemy, bases, home)
        veered += enemy is not None and got != round(bearing(*enemy, *centre), 6) % 360.0
    assert veered > 20, "retreats veer off straight away toward home"


def test_10_3_retreat_bearing_ties_go_to_the_first_weighed() -> None:
    # enemy due north, home due north: away (south) +-k are equally far from home for every
    # k, so the loop keeps the first it weighed, away + 45 (225); a base there turns it to 135
    for bases in ([], [(-100.0, -100.0)], [(100.0, -100.0)]):
        want = movement_ref.retreat_bearing((0.0, 0.0), (0.0, 100.0), bases, 0.0)
        assert retreat_bearing((0.0, 0.0), (0.0, 100.0), bases, 0.0) == want
    assert retreat_bearing((0.0, 0.0), (0.0, 100.0), [], 0.0) == 225.0
    assert retreat_bearing((0.0, 0.0), (0.0, 100.0), [(-100.0, -100.0)], 0.0) == 135.0
    # home due south: away itself (k 0) beats any veer
    assert retreat_bearing((0.0, 0.0), (0.0, 100.0), [], 180.0) == 180.0


def test_10_3_retreat_bearing_bases_exactly_45_degrees_off() -> None:
    # 10.3 "at least 45 degrees": enemy bases on the compass and half-compass points lie at
    # exactly 45 degrees (atan2 of lattice points) from candidates veering off the compass, so
    # the boundary is met exactly; every subset of those bases and homes round the compass
    # give the loop's bearing
    points = [(0.0, 100.0), (100.0, 100.0), (100.0, 0.0), (100.0, -100.0)]
    points += [(-x, -y) for x, y in points]
    veers = set()
    for enemy in ((0.0, 100.0), (0.0, -100.0), (100.0, -100.0)):
        for mask in range(1 << len(points)):
            bases = [p for i, p in enumerate(points) if mask >> i & 1]
            for home in range(0, 360, 15):
                want = movement_ref.retreat_bearing((0.0, 0.0), enemy, bases, float(home))
                assert retreat_bearing((0.0, 0.0), enemy, bases, float(home)) == want
                veers.add(want)
    assert {135.0, 180.0, 225.0, 0.0, 315.0, 45.0} <= veers and len(veers) > 15


def test_front_rank_at_bound_start_equals_the_front_rank(
    built_minden: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 10.2 "front rank destroyed": the front rank noted at each bound's start, kept with the
    # formation's make-up, is the front rank worked out afresh (2.4; none when Loose, 4.1)
    from engine.rulesets.two_mm_earth import phases

    kept_ids = phases._front_ids
    seen: list[int] = []

    def checking(f: Any) -> tuple[str, ...]:
        got = kept_ids(f)
        assert got == (tuple(b.id for b in f.front_rank()) if not f.loose else ())
        seen.append(len(got))
        return got

    monkeypatch.setattr(phases, "_front_ids", checking)
    b = _battle(built_minden)
    lost = 0
    for _ in range(12):
        before = {f.id: len(f.front_at_start) for f in b.state.formations.values()}
        b.step()
        lost += sum(
            len(f.front_at_start) < before.get(f.id, 0) for f in b.state.formations.values()
        )
    assert len(seen) >= 12 * 60 and lost > 0, "front ranks lost bases between bounds"
