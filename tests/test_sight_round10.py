"""6.2 hearing and sight at scale, round 10 (issue 15): what the shortcuts give is what the plain
computation gives.

``Sight._hearing_table`` keeps every row's candidates within earshot as flat lists cut by row
(``_HearingTable``): a row's gaps become a dict only when the row is first asked
(``Sight._gap_row``), and a row's earshot (nearest first) is sliced when asked. Pinned here
against ``distance()`` pair by pair and against a Sight that asks row by row without the table,
on real ground: the engine benchmark's armies on Minden a few bounds in.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.geometry import distance
from engine.orders import InstantDelivery
from engine.sight import Sight
from scenario_builder.build import build_site

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_engine import last_stand, scenario  # the engine benchmark's armies


@pytest.fixture(scope="module")
def battle() -> Battle:
    """2 x 120 formations 4 bounds in (the lines met, some fighting: heard)."""
    bf = build_site("minden").battlefield
    out = Battle(bf, last_stand(scenario(bf, 120)), Dice(3), delivery=InstantDelivery())
    for _ in range(4):
        out.step()
    return out


def _cold(battle: Battle) -> Sight:
    s = battle.sight
    look = Sight(
        s.bf, battle.state, rules=s.rules, weather=s.weather, time=s.time, locality=s.locality
    )
    look._refresh()
    return look


def test_6_2_gaps_of_rows_first_asked_after_the_hearing_table_are_distances(
    battle: Battle,
) -> None:
    # rows asked before the table keep their first values and get the table's for the rest at
    # once; rows asked after get the table's gaps then: each one distance() of the pair
    look = _cold(battle)
    n = len(look.ids)
    early = list(range(0, n, 7))
    for r in early:
        look._gaps_to(r, [(r + 1) % n, (r + 5) % n])
    look._hear_calls = 4  # the table at the next ask
    table = look._hearing_table()
    assert table is not None and len(table) == n
    assert set(look._gaps) == set(early)  # the other rows not made yet
    checked = 0
    for r in range(n):
        js, gs = table.row(r)
        row = look._gap_row(r)
        assert set(js) <= set(row)
        if r not in early:  # made from the table alone
            assert row == dict(zip(js, gs, strict=True))
        for j, g in row.items():
            assert g == float(distance(look.obbs[r], look.arr[[j]])[0]), (r, j)
            checked += 1
        assert r in js  # every rectangle is its own candidate (6.2 hearing_m: 75 m)
    assert checked > 2 * n


def test_6_2_heard_with_the_lazy_table_as_row_by_row(battle: Battle) -> None:
    # 6.2: the one closest moving or fighting formation within 75 m, from the table's rows
    # sliced when asked, as a Sight that works each row out alone (no table)
    ids = [f.id for f in battle.state.active()]
    many = _cold(battle)
    got = many.heard_many(ids)
    assert many._hear_near is not None
    one = _cold(battle)
    want = []
    for fid in ids:
        one._hear_calls = 0  # never the table: each row by its own candidates and gaps
        want.append(one.heard(fid))
    assert one._hear_near is None
    assert got == want
    assert sum(h is not None for h in got) > 10
    for r in range(len(ids)):
        near, gaps = many._hear_near.near(r)
        assert near == one._heard[ids[r]][0] and gaps == one._heard[ids[r]][1]
