"""6.2 sight and the bound's record made cheaper give what the old code gave.

Each shortcut is pinned against the computation it replaced, over real battles on real ground
(the engine benchmark's armies on Minden's hills):

* the record (``battle.seen_by_side``) asks the battle's own Sight, not a copy with caches of
  its own: every bound's record is what a Sight that never answered anything gives, and the
  fight itself (every event) is the fight of a battle that keeps no record at all;
* the record's bases and formations read each enum's value from a table, not ``.value``;
* ``los.visible_many`` reads the ends' levels from the padded layer (``Grid.cells``) when every
  end is on the grid, and finds each sample count's last line with one dict;
* an enemy skirmisher screen's gap to the troops it screens is measured only when the observer
  is near the screen (``_troops_clear`` and ``_judge``);
* a batch of pairs all new is worked out on the caller's arrays, and the 6.3 limits are asked
  of the rules once per light and weather;
* a rebuild with the same formations in the same rows keeps their ids and rows, and carries
  what was read of the unchanged ones row to row.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.geometry import point_distance
from engine.orders import InstantDelivery
from engine.sight import Sight
from engine.state import BaseStatus, Morale
from scenario_builder import los
from scenario_builder.build import build_site

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_engine import last_stand, scenario  # the engine benchmark's armies

BOUNDS = 14


@pytest.fixture(scope="module")
def minden():
    return build_site("minden").battlefield


def _cold(battle: Battle) -> Sight:
    """A Sight of the battle's state now that has worked nothing out (no answer held)."""
    s = battle.sight
    return Sight(
        s.bf, battle.state, rules=s.rules, weather=s.weather, time=s.time, locality=s.locality
    )


def test_6_2_record_on_the_battles_sight_is_a_cold_sights(minden) -> None:
    sc = last_stand(scenario(minden, 24))
    battle = Battle(minden, sc, Dice(3), delivery=InstantDelivery())
    quiet = Battle(minden, sc, Dice(3), delivery=InstantDelivery(), snapshots=False)
    sides = list(battle.state.sides)
    seen_some = 0
    for _ in range(BOUNDS):
        if battle.finished:
            break
        record = battle.step()
        # what each side sees, as a Sight with nothing held works it out afresh
        cold = _cold(battle).seen_by_sides(sides)
        assert record.snapshot["seen"] == cold, record.bound
        seen_some += sum(len(v) for v in cold.values())
        # the answers the record left in the battle's Sight are the state's own: the fight of
        # a battle that keeps no record (nothing asked at the end of a bound) is the same
        other = quiet.step()
        assert [e.to_dict() for e in record.events] == [e.to_dict() for e in other.events]
    assert battle.state.bound >= 8 and seen_some > 0


def test_record_of_bases_and_formations_as_read_one_by_one(minden) -> None:
    # every base's and formation's entry as the record wrote them before (the enum's value);
    # the record rounds as it is taken (0.01 m, facing 0.1 degree), so it holds
    # what battle_log.json holds, not the state's unrounded floats
    battle = Battle(minden, last_stand(scenario(minden, 12)), Dice(5), delivery=InstantDelivery())
    states: set[str] = set()
    for _ in range(BOUNDS):
        if battle.finished:
            break
        snap = battle.step().snapshot
        for f in battle.state.formations.values():
            gone = f.morale is Morale.DESTROYED
            for b in f.bases:
                want = "dead" if gone and b.status is BaseStatus.DEAD else b.status.value
                got = snap["bases"][b.id]
                assert type(got["state"]) is str and got["state"] == want
                want_xy = (round(b.x, 2), round(b.y, 2), round(b.facing, 1))
                assert (got["x"], got["y"], got["facing"]) == want_xy
                states.add(want)
            entry = snap["formations"][f.id]
            assert type(entry["morale"]) is str and entry["morale"] == f.morale.value
            states.add(f.morale.value)
    assert {"ok", "dead", "steady"} <= states and len(states) >= 4


@pytest.mark.parametrize("site", ["minden", "teutoburg_kalkriese"])
def test_6_2_visible_many_on_the_grid_as_one_line_at_a_time(site: str) -> None:
    # lines of every length on real ground (Teutoburg's woods block sight, Minden's hills),
    # ends on the far edges too: a batch on the grid answers as each line alone with the
    # clipped rowcol reading of its ends (on_grid=False) answers
    from engine.rulesets import get_ruleset

    bf = get_ruleset("2mm-earth").ground(build_site(site).battlefield)
    inner = getattr(bf, "_bf", bf)
    bf.line_of_sight_many(
        np.array([[1.0, 1.0]]) + bf.bounds[:2], np.array([[9.0, 9.0]]) + bf.bounds[:2]
    )
    grid, cells = inner._grid, inner._sight_cells
    level, blocks = inner._layers["level"], inner._layers["blocks_sight"]
    rng = np.random.default_rng(7)
    minx, miny, maxx, maxy = bf.bounds
    n = 600
    a = np.column_stack([rng.uniform(minx, maxx, n), rng.uniform(miny, maxy, n)])
    b = a + rng.normal(0.0, 1.0, a.shape) * rng.choice([5.0, 60.0, 400.0, 3000.0], (n, 1))
    b = np.clip(b, [minx, np.nextafter(miny, maxy)], [np.nextafter(maxx, minx), maxy])
    a[:30, 0], b[30:60, 1] = np.nextafter(maxx, minx), maxy  # on the far edges
    assert grid.contains(np.r_[a[:, 0], b[:, 0]], np.r_[a[:, 1], b[:, 1]]).all()
    got = los.visible_many(grid, level, blocks, a, b, cells=cells, on_grid=True)
    want = [
        bool(los.visible_many(grid, level, blocks, a[k : k + 1], b[k : k + 1], cells=cells)[0])
        for k in range(n)
    ]
    assert got.tolist() == want
    assert 0 < sum(want) < n
    for k in range(0, n, 37):  # batches of mixed lengths
        part = los.visible_many(
            grid, level, blocks, a[k : k + 37], b[k : k + 37], cells=cells, on_grid=True
        )
        assert part.tolist() == want[k : k + 37]


def _troops_clear_before(
    look: Sight, i: int, j: int, hits: list[int], met: set[str]
) -> tuple[bool, str]:
    """``Sight._troops_clear`` as it was (the gap to the screened troops measured for every
    enemy skirmisher in the way), and what settled it (``met``: screens seen through)."""
    o, p = look.forms[i], tuple(look._xy[i])
    levels, names = look._lv, look._type_names
    top = max(levels[i], levels[j])
    for k in hits:
        blocker = look.forms[k]
        if levels[k] < top:
            continue
        o_type = names[int(look._column_one("type", i))]
        if look._sees_over(o_type, names[int(look._column_one("type", k))]):
            continue
        if blocker.side == o.side:
            if point_distance(look.obbs[k], *p) <= look._column_one("see_through", i):
                continue
            return False, "friend"
        if look._column_one("skirm", k):
            to_screened = look._gaps_to(k, [j])[0]
            screen = look.rules.skirmish_screen_m
            if point_distance(look.obbs[k], *p) <= screen and to_screened <= screen:
                met.add("seen through a screen")
                continue
            if point_distance(look.obbs[k], *p) <= screen:
                met.add("near a screen too far from its troops")
            return False, "screen"
        return False, "enemy"
    return True, "clear"


def test_6_2_screens_judged_as_before(minden) -> None:
    # every pair of formations from bound 4 of the benchmark's 2 x 60 battle until every kind
    # of verdict has been met (its skirmishers screen troops near observers then): one line at
    # a time and in arrays, as the old one-by-one judging
    from engine.geometry import segment_hits

    battle = Battle(minden, last_stand(scenario(minden, 60)), Dice(1), delivery=InstantDelivery())
    settled: set[str] = set()
    kinds = {
        "friend",
        "screen",
        "enemy",
        "clear",
        "seen through a screen",
        "near a screen too far from its troops",
    }
    for bound in range(1, 13):
        battle.step()
        if bound < 4 or kinds <= settled:
            continue
        look = _cold(battle)
        look._refresh()
        n = len(look.ids)
        pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
        want = []
        for i, j in pairs:
            crossed = segment_hits(tuple(look._xy[i]), tuple(look._xy[j]), look.arr, look.axes)
            crossed[i] = crossed[j] = False
            ok, why = _troops_clear_before(look, i, j, crossed.nonzero()[0].tolist(), settled)
            want.append(ok)
            settled.add(why)
        fresh = _cold(battle)
        fresh._refresh()
        assert [fresh._troops_clear(i, j) for i, j in pairs] == want
        ia, ja = (np.array(v) for v in zip(*pairs, strict=True))
        batch = _cold(battle)
        batch._refresh()
        assert batch._clear_of_troops(ia, ja).tolist() == want
    assert kinds <= settled, settled


@pytest.mark.parametrize(
    ("weather", "time"), [("clear", "day"), ("fog", "day"), ("clear", "night")]
)
def test_6_3_batches_as_pair_by_pair_with_the_rules_limits(minden, weather: str, time: str) -> None:
    # 6.2-6.3 on a real battle's positions: batches with pairs repeated and pairs answered
    # before, as each pair alone; each observer's limit as the rules give it (the red side
    # knows the ground: two limits in fog and at night)
    battle = Battle(minden, last_stand(scenario(minden, 24)), Dice(4), delivery=InstantDelivery())
    for _ in range(5):
        battle.step()
    battle.state.sides["red"].locality = "red"  # 6.3: red knows the ground (Sight's locality)
    rules = battle.sight.rules
    look = Sight(battle.bf, battle.state, rules=rules, weather=weather, time=time, locality="red")
    look._refresh()
    n = len(look.ids)
    rng = np.random.default_rng(63)
    rows = np.arange(n)
    want_limit = []
    for i in rows.tolist():
        v = rules.sight_limit_m(weather, time, look.local(look.forms[i]))
        want_limit.append(float("inf") if v is None else v)
    got_limit = look._limits(rows)
    if len(set(want_limit)) == 1 and want_limit[0] == float("inf"):
        assert got_limit is None
    else:
        assert got_limit is not None and got_limit.tolist() == want_limit
    assert (weather, time) == ("clear", "day") or len(set(want_limit)) == 2
    one = Sight(battle.bf, battle.state, rules=rules, weather=weather, time=time, locality="red")
    batch = Sight(battle.bf, battle.state, rules=rules, weather=weather, time=time, locality="red")
    batch._refresh()
    for size in (4, 40, 400):
        ia, ja = rng.integers(0, n, size), rng.integers(0, n, size)
        ia[: size // 4] = ia[size // 4 : size // 2]  # some pairs twice in one batch
        ja[: size // 4] = ja[size // 4 : size // 2]
        got = batch._answers(ia, ja).tolist()  # later batches meet answers held
        ids = look.ids
        assert got == [one.sees(ids[i], ids[j]) for i, j in zip(ia.tolist(), ja.tolist())]
    assert 0 < sum(got) < len(got)


def test_rebuilt_rows_and_what_was_read_as_a_cold_sights(minden) -> None:
    # the battle's Sight after many rebuilds (moves, losses, a formation destroyed): its rows,
    # ids and every value it holds as read (type, skirmisher, see-through, local) are a cold
    # Sight's of the same state
    battle = Battle(minden, last_stand(scenario(minden, 24)), Dice(6), delivery=InstantDelivery())
    held = 0
    for _ in range(BOUNDS):
        if battle.finished:
            break
        battle.step()
        sight = battle.sight
        sight._refresh()
        cold = _cold(battle)
        cold._refresh()
        assert sight.ids == cold.ids and sight.index == cold.index
        assert [f is g for f, g in zip(sight.forms, cold.forms, strict=True)] == [True] * len(
            cold.forms
        )
        for name, col in sight._cols.items():
            for r, v in enumerate(col.tolist()):
                if v != v:  # not read
                    continue
                want = float(cold._column_value(name, r))
                if name == "type":  # each Sight numbers the unit types as it meets them
                    assert sight._type_names[int(v)] == cold._type_names[int(want)]
                else:
                    assert v == want, (name, sight.ids[r])
                held += 1
    assert held > 100
