"""6.2 troops in the way judged and hearing worked out more cheaply give
what the old code gave.

``Sight._troops_clear`` reads each formation's side from a list of side numbers (one to one with
the sides' names) instead of looking up the observer's and each blocker's ``Formation``, and
``_clear_of_troops_whole`` hands it its rows as Python ints and marks the blocked lines at once;
``Sight.heard_many`` reads the state once for all its observers instead of asking ``heard`` of
each; the hearing table does not measure a rectangle's gap to itself (0.0). All are pinned here
against the code they replaced, over real battles on real ground (the engine benchmark's armies
on Minden's hills): every line between two formations that crosses others, friends in the way
(seen through within 100 m of the observer) and enemies alike; hearing after every phase.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.geometry import segment_hits
from engine.orders import InstantDelivery
from engine.sight import Sight
from scenario_builder.build import build_site
from tests.reference import sight as sight_ref

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_engine import last_stand, scenario  # the engine benchmark's armies

BOUNDS = 12


@pytest.fixture(scope="module")
def minden():
    return build_site("minden").battlefield


def test_6_2_troops_in_the_way_judged_as_before(minden) -> None:
    battle = Battle(minden, last_stand(scenario(minden, 30)), Dice(2), delivery=InstantDelivery())
    s = battle.sight
    lines = blocked = friends_through = 0
    for _ in range(BOUNDS):
        if battle.finished:
            break
        battle.step()
        s._refresh()
        n = len(s.ids)
        sides = [f.side for f in s.forms]
        ia, ja, crossings = [], [], []
        for i in range(n):
            p = (s._xy[i][0], s._xy[i][1])
            for j in range(n):
                if i == j:
                    continue
                crossed = segment_hits(p, (s._xy[j][0], s._xy[j][1]), s.arr, s.axes)
                crossed[i] = crossed[j] = False
                hits = crossed.nonzero()[0].tolist()
                if not hits:
                    continue
                old = sight_ref.troops_clear(s, i, j, hits)
                assert s._troops_clear(i, j, hits) == old, (battle.state.bound, i, j)
                lines += 1
                blocked += not old
                friends_through += old and any(sides[k] == sides[i] for k in hits)
                ia.append(i)
                ja.append(j)
                crossings.append(old)
        # the whole-line batch (its few-crossings path and its arrays' path) as pair by pair
        for lo in range(0, len(ia), 5):  # batches of 5 lines: the few-crossings path
            got = s._clear_of_troops_whole(np.array(ia[lo : lo + 5]), np.array(ja[lo : lo + 5]))
            assert got.tolist() == crossings[lo : lo + 5], battle.state.bound
        got = s._clear_of_troops_whole(np.array(ia), np.array(ja))
        assert got.tolist() == crossings, battle.state.bound
    # both answers, and friends seen through, met many times over
    assert lines > 1000 and blocked > 100 and lines - blocked > 100 and friends_through > 50


def test_6_2_heard_many_as_heard_one_by_one(minden) -> None:
    # after every phase (who moved or fought changes phase by phase, 10.2 "events you can see or
    # hear"): the battle's Sight asked for every formation at once, against a Sight that has
    # worked nothing out asked one formation at a time
    battle = Battle(minden, last_stand(scenario(minden, 30)), Dice(4), delivery=InstantDelivery())
    heard_some = phases = 0
    for _ in range(BOUNDS):
        if battle.finished:
            break
        for _phase in battle.phases():
            s = battle.sight
            cold = Sight(
                s.bf,
                battle.state,
                rules=s.rules,
                weather=s.weather,
                time=s.time,
                locality=s.locality,
            )
            cold._refresh()
            ids = list(cold.ids)  # the formations on the table
            one_by_one = [cold.heard(o) for o in ids]
            assert s.heard_many(ids) == one_by_one, (battle.state.bound, battle.state.phase)
            assert s.heard_many(ids[:3]) == one_by_one[:3]  # a few: earshot row by row
            heard_some += sum(h is not None for h in one_by_one)
            phases += 1
    # 6.2: the closest moving or fighting unit within 75 m is heard, many times over
    assert phases > 50 and heard_some > 200


@pytest.mark.parametrize(("per_side", "bounds"), [(30, BOUNDS), (105, 3)])
def test_6_2_hearing_table_as_every_pair_measured(minden, per_side: int, bounds: int) -> None:
    # 105 a side: more than _HEAR_TREE_FROM formations (the sweep's candidates, not the matrix)
    sc = last_stand(scenario(minden, per_side))
    battle = Battle(minden, sc, Dice(6), delivery=InstantDelivery())
    own_pairs = near_pairs = 0
    for _ in range(bounds):
        if battle.finished:
            break
        for _phase in battle.phases():
            s = battle.sight
            cold = Sight(
                s.bf,
                battle.state,
                rules=s.rules,
                weather=s.weather,
                time=s.time,
                locality=s.locality,
            )
            cold._refresh()
            cold._hear_calls = 4  # the table at the next ask
            table = cold._hearing_table()
            assert table is not None
            rows, gaps = sight_ref.hearing_table(cold)
            for r in range(len(cold.ids)):
                assert table.row(r) == (rows[r], gaps[r]), (battle.state.bound, r)
                assert cold._gap_row(r) == dict(zip(rows[r], gaps[r], strict=True))
                own_pairs += r in rows[r]
                near_pairs += len(rows[r]) - 1
    # 6.2 hearing_m (75 m): every rectangle is its own candidate; many others are near
    assert own_pairs > 1000 and near_pairs > 1000
