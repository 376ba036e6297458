"""6.2 hearing and sight at scale: what the shortcuts give is what the plain
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


def test_6_2_a_few_lines_one_at_a_time_as_in_a_batch_with_and_without_woods() -> None:
    # 6.2 terrain sight of a few lines (visible_few: each line's samples from plain floats,
    # _line_cells) as visible_many's batch gives it, sample cells bit for bit, on real ground:
    # Teutoburg's woods (blocking terrain) and the same ground with none (ground alone blocks)
    import numpy as np

    from engine.rulesets import get_ruleset
    from scenario_builder.los import (
        SightCells,
        _line_cells,
        _sample_cells,
        _unit_steps,
        visible_few,
        visible_many,
    )

    bf = get_ruleset("2mm-earth").ground(build_site("teutoburg_kalkriese").battlefield)
    rng = np.random.default_rng(10)
    minx, miny, maxx, maxy = bf.bounds
    a = np.column_stack([rng.uniform(minx, maxx, 300), rng.uniform(miny, maxy, 300)])
    b = np.concatenate(
        [a[:100] + rng.normal(0, 40, (100, 2)), a[100:] + rng.normal(0, 900, (200, 2))]
    )
    b = np.clip(b, [minx + 1, miny + 1], [maxx - 1, maxy - 1])
    level, woods = bf.layer("level"), bf.layer("blocks_sight")
    grid = bf._grid
    for blocks in (woods, np.zeros_like(woods)):
        cells = SightCells.of(level, blocks)
        want = visible_many(grid, level, blocks, a, b).tolist()
        assert visible_few(grid, cells, a.tolist(), b.tolist()) == want
        assert 0 < sum(want) < len(want)  # some lines blocked, some not
    for (ax, ay), (bx, by) in zip(a[:50].tolist(), b[:50].tolist(), strict=True):
        t = _unit_steps(256)
        dx, dy = bx - ax, by - ay
        one = _sample_cells(grid, np.array([[ax, ay]]), np.array([dx]), np.array([dy]), t, False)
        assert np.array_equal(_line_cells(grid, ax, ay, dx, dy, t), one[0])
