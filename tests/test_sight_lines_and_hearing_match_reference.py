"""6.2 sight made cheaper gives what the plain code path gives.

Each shortcut is pinned against the code it replaced (kept in ``tests/reference/sight.py``), on real
ground and real battles' positions: the grouping of ``los.visible_many``'s lines a run of
equal sample counts at a time; the hearing table's candidates by a sweep, not the R-tree.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import engine.sight as sight_module
from engine.battle import Battle
from engine.dice import Dice
from engine.orders import InstantDelivery
from engine.spatial import RectIndex
from scenario_builder import los
from scenario_builder.build import build_site
from tests.reference import sight as sight_ref

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_engine import last_stand, scenario  # the engine benchmark's armies


@pytest.fixture(scope="module")
def big_battle() -> Battle:
    """A 2 x 120 battle on Minden's hills (the engine benchmark's armies), 6 bounds in: more
    formations than _HEAR_TREE_FROM, so the hearing table's candidates come from the sweep."""
    bf = build_site("minden").battlefield
    battle = Battle(bf, last_stand(scenario(bf, 120)), Dice(1), delivery=InstantDelivery())
    for _ in range(6):
        battle.step()
    return battle


def _groups_by_runs(sizes: list[int]) -> list[tuple[int, int]]:
    run_end: dict[int, int] = {}
    for k, n in enumerate(sizes):
        run_end[n] = k + 1
    out, start = [], 0
    while start < len(sizes):
        stop, real = los._grow(sizes, run_end, start)
        assert real == sum(sizes[start:stop])
        out.append((start, stop))
        start = stop
    return out


def test_6_2_lines_grouped_a_run_at_a_time_as_line_by_line() -> None:
    # the sample counts of real batches: powers of two from 2 to 4096 (max_samples), sorted
    rng = np.random.default_rng(15)
    for _ in range(400):
        n = int(rng.integers(1, 900))
        top = int(rng.integers(1, 13))
        sizes = sorted((1 << rng.integers(1, top + 1, n)).tolist())
        assert _groups_by_runs(sizes) == sight_ref.groups_line_by_line(sizes)


def test_6_2_visible_many_on_real_ground_as_line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    # Teutoburg's woods: long and short lines mixed in one batch, answers of the old grouping
    from engine.rulesets import get_ruleset

    bf = get_ruleset("2mm-earth").ground(build_site("teutoburg_kalkriese").battlefield)
    rng = np.random.default_rng(62)
    minx, miny, maxx, maxy = bf.bounds
    a = np.column_stack([rng.uniform(minx, maxx, 700), rng.uniform(miny, maxy, 700)])
    b = a + rng.normal(0.0, 1.0, a.shape) * rng.choice([20.0, 300.0, 3000.0], (700, 1))
    b = np.clip(b, [minx + 1, miny + 1], [maxx - 1, maxy - 1])
    got = bf.line_of_sight_many(a, b)

    monkeypatch.setattr(los, "_grow", sight_ref.grow_line_by_line)
    assert got.tolist() == bf.line_of_sight_many(a, b).tolist()
    assert 0 < got.sum() < got.size


def test_6_2_box_pairs_by_sweep_are_the_matrix_of_box_bounds(big_battle: Battle) -> None:
    # every pair of boxes within the gap (the hearing table's candidates), as the N x N matrix
    index = RectIndex(big_battle.state.table().arr)
    for gap in (0.0, 75.0, 250.0, 2000.0):
        want = np.nonzero(index.lower_bound_matrix() <= gap)
        got = sight_module._box_pairs_within(index.box, gap)
        assert [g.tolist() for g in got] == [w.tolist() for w in want]
    assert got[0].size > index.n  # a gap that takes in neighbours, not only each box itself


def test_6_2_hearing_from_the_sweep_as_from_the_tree(
    big_battle: Battle, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 6.2 hearing (the one closest moving or fighting formation within 75 m) of every
    # formation, and the gaps it keeps, as with the R-tree's candidates it replaced
    state = big_battle.state
    ids = [f.id for f in state.active()]
    assert len(ids) > sight_module._HEAR_TREE_FROM
    sweep = big_battle.sight.fresh_copy()
    got = [sweep.heard(i) for i in ids]

    def tree(box: np.ndarray, gap: float) -> tuple[np.ndarray, np.ndarray]:
        return RectIndex(state.table().arr).within_many(np.arange(len(box)), gap)

    monkeypatch.setattr(sight_module, "_box_pairs_within", tree)
    old = big_battle.sight.fresh_copy()
    assert [old.heard(i) for i in ids] == got
    assert sweep._hear_near is not None and old._hear_near is not None
    rows = range(len(sweep.ids))
    assert [sweep._hear_near.row(r) for r in rows] == [old._hear_near.row(r) for r in rows]
    assert [sweep._hear_near.near(r) for r in rows] == [old._hear_near.near(r) for r in rows]
    assert sum(h is not None for h in got) > 10


def test_6_2_aware_of_any_and_visible_from_answers_held_as_pair_by_pair(
    big_battle: Battle,
) -> None:
    # 10.2 "seen or heard" of any of a list of friends (morale's question, thousands a bound),
    # and the targets seen, read from the answers held when all are held: as asked pair by
    # pair of a Sight that has never answered, with the cache cold, part warm and warm
    from engine.sight import Sight

    state, sight = big_battle.state, big_battle.sight
    forms = state.active()
    rng = np.random.default_rng(102)
    asks = []
    for f in forms[::3]:
        own = [g.id for g in forms if g.side == f.side and g is not f]
        asks.append((f.id, [own[k] for k in rng.choice(len(own), 7, replace=False)]))
    plain = Sight(
        sight.bf,
        state,
        rules=sight.rules,
        weather=sight.weather,
        time=sight.time,
        locality=sight.locality,
    )
    want_any = [any(plain.aware(o, t) for t in ts) for o, ts in asks]
    want_seen = [[t for t in ts if plain.sees(o, t)] for o, ts in asks]
    look = sight.fresh_copy()
    for o, ts in asks[::2]:  # part warm: some pairs held, some not
        look.visible(o, ts[:3])
    assert [look.aware_of_any(o, ts) for o, ts in asks] == want_any
    assert [look.visible(o, ts) for o, ts in asks] == want_seen
    assert [look.aware_of_any(o, ts) for o, ts in asks] == want_any  # warm
    assert [look.visible(o, ts) for o, ts in asks] == want_seen
    assert 0 < sum(want_any) < len(asks) and any(want_seen)


@pytest.mark.parametrize("per_side", [30, 120])
def test_6_2_earshot_sorted_with_the_table_as_row_by_row(per_side: int, big_battle: Battle) -> None:
    # 6.2 hearing: each formation's neighbours within 75 m, nearest first (ties by row), as
    # one row at a time cuts and sorts them (the path of the first few questions), from the
    # matrix of box bounds (2 x 30) and from the sweep (2 x 120)
    if per_side == 120:
        battle = big_battle
    else:
        bf = build_site("minden").battlefield
        battle = Battle(bf, last_stand(scenario(bf, 30)), Dice(1), delivery=InstantDelivery())
        for _ in range(8):
            battle.step()
    look = battle.sight.fresh_copy()
    ids = [f.id for f in battle.state.active()]
    for fid in ids[:4]:
        look.heard(fid)  # the first few questions: no table yet
    assert look._hear_near is None
    before = {r: dict(row) for r, row in look._gaps.items()}
    table = look._hearing_table()
    assert table is not None
    # the gaps the table keeps for later questions: each pair's first value stays
    want_gaps = {r: dict(row) for r, row in before.items()}
    for r in range(len(table)):
        js, gs = table.row(r)
        row = want_gaps.setdefault(r, {})
        for j, g in zip(js, gs, strict=True):
            row.setdefault(j, g)
    # the rows asked before got the table's gaps at once, the others get them when first asked
    assert look._gaps == {r: want_gaps[r] for r in before}
    assert {r: look._gap_row(r) for r in want_gaps} == want_gaps
    assert len(before) < len(want_gaps)
    best_d = look.rules.hearing_m
    one = battle.sight.fresh_copy()  # row by row, with the gaps of distance()
    heard_some = 0
    for r in range(len(look.ids)):
        want = sight_module._nearest_first(r, *table.row(r), best_d)
        near = one.spatial.within(r, best_d).tolist()
        assert (
            look._earshot(r)
            == want
            == sight_module._nearest_first(r, near, one._gaps_to(r, near), best_d)
        )
        heard_some += bool(want[0])
    assert heard_some > 5
