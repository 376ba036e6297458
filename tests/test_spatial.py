"""The spatial index culls pairwise queries without changing a single answer.

The rectangles are the formations of the engine benchmark's battle on Minden (real ground,
``benchmarks/bench_engine.py``) after a few bounds of fighting (turned, broken, crowded), so the
boxes are the engine's own. Every culled query is checked against the brute force it replaces,
for equality (bit for bit), not closeness.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.geometry import (
    distance,
    distance_many,
    distance_pairs,
    obb_array,
    segment_hits_pairs,
    segment_hits_sparse,
    separation_many,
    separation_pairs,
)
from engine.spatial import RectIndex

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


@pytest.fixture(scope="module")
def battle(built_minden) -> Any:
    from bench_engine import BOUNDS, last_stand, scenario

    from engine.battle import Battle
    from engine.dice import Dice
    from engine.orders import InstantDelivery

    bf = built_minden.battlefield
    b = Battle(bf, last_stand(scenario(bf, 30)), Dice(3), delivery=InstantDelivery())
    for _ in range(min(6, BOUNDS)):
        b.step()
    return b


@pytest.fixture(scope="module")
def arr(battle: Any) -> np.ndarray:
    return obb_array([f.obb() for f in battle.state.active()])


def test_pairs_kernels_equal_the_matrices(arr: np.ndarray) -> None:
    n = arr.shape[0]
    ii, jj = (m.ravel() for m in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    assert np.array_equal(distance_pairs(arr[ii], arr[jj]), distance_many(arr, arr).ravel())
    assert np.array_equal(separation_pairs(arr[ii], arr[jj]), separation_many(arr, arr).ravel())
    # the row-at-a-time distance the engine also uses is the same numbers
    from engine.geometry import OBB

    for k in range(0, n, 7):
        row = distance(OBB(*(float(v) for v in arr[k])), arr)
        assert np.array_equal(row, distance_many(arr, arr)[k])


def test_box_bounds_never_exceed_the_true_gap(arr: np.ndarray) -> None:
    idx = RectIndex(arr)
    gaps = distance_many(arr, arr)
    lb = idx.lower_bound_matrix()
    assert (lb <= gaps + 1e-9).all()
    assert np.array_equal(lb[5], idx.lower_bounds(5))
    for gap in (0.0, 1.0, 75.0, 400.0):
        for i in range(0, arr.shape[0], 5):
            cand = set(idx.within(i, gap).tolist())
            assert set(np.flatnonzero(gaps[i] <= gap).tolist()) <= cand


def test_within_many_is_a_superset_of_contacts(arr: np.ndarray) -> None:
    idx = RectIndex(arr)
    ii, jj = idx.within_many(np.arange(arr.shape[0]), 1.0)
    touch = set(zip(*np.nonzero(separation_many(arr, arr) <= 1.0), strict=True))
    assert touch <= set(zip(ii.tolist(), jj.tolist(), strict=True))


def test_crossing_candidates_give_the_slab_test_answers(arr: np.ndarray) -> None:
    n = arr.shape[0]
    rng = np.random.default_rng(15)
    a, b = rng.integers(0, n, 300), rng.integers(0, n, 300)
    ps, qs = arr[a, :2], arr[b, :2]
    full = segment_hits_pairs(ps, qs, arr)
    si, ri = RectIndex(arr).crossing(ps, qs)
    got = np.zeros_like(full)
    got[si, ri] = segment_hits_sparse(ps, qs, arr, si, ri)
    assert np.array_equal(got, full)
    assert full.sum() > 300  # every line crosses at least its own two ends: the test has teeth


def test_nearest_friends_first_is_the_full_sort(battle: Any) -> None:
    import math

    from scipy.spatial import cKDTree

    from engine.rulesets.two_mm_earth.morale import _NearestFirst

    forms = battle.state.active("red")
    centres = {f.id: f.centre() for f in forms}
    ids = [f.id for f in forms]
    pts = np.array([centres[i] for i in ids])
    d, nn = cKDTree(pts).query(pts, k=_NearestFirst.KNN)
    for own in (0, 7, len(ids) - 1):
        p = centres[ids[own]]
        full = sorted(
            (i for i in ids if i != ids[own]), key=lambda i: (math.dist(p, centres[i]), i)
        )
        # with the k-d tree's nearest (the morale phase's), with numpy, without an own row
        for lazy in (
            _NearestFirst(p, ids, pts, own, (d[own].tolist(), nn[own].tolist())),
            _NearestFirst(p, ids, pts, own),
            _NearestFirst(p, ids[:own] + ids[own + 1 :], np.delete(pts, own, axis=0)),
        ):
            assert lazy[0:1] == full[:1] and lazy[1:3] == full[1:3] and lazy[3:9] == full[3:9]
            assert lazy[0:40] == full[:40]
            assert len(lazy) == len(full) and lazy[0 : len(full)] == full


def test_few_separation_equals_the_vectorised_form(arr: np.ndarray) -> None:
    """geometry.separation works a few rectangles in plain floats: the same bits as numpy."""
    from engine import geometry
    from engine.geometry import OBB, separation

    rng = np.random.default_rng(15)
    n = arr.shape[0]
    for k in range(0, n, 3):
        a = OBB(*(float(v) for v in arr[k]))
        others = arr[rng.integers(0, n, int(rng.integers(1, geometry._FEW_SEPARATION + 1)))]
        assert (
            geometry._separation_few(a, others)
            == separation_pairs(np.repeat(arr[[k]], len(others), axis=0), others).tolist()
        )
        assert separation(a, others).tolist() == geometry._separation_few(a, others)


def test_rout_neighbours_hold_every_friend_within_250_m(battle: Any) -> None:
    """10.2's friendly routs within 250 m: the spatial index's candidates hold every friend
    whose gap to the router (as ``Sight.distance`` measures it, on Sight's rectangles) is within
    250 m (the brute force over the whole side)."""
    from engine.rulesets.two_mm_earth.morale import ROUT_NEAR_M, rout_neighbours

    state, sight = battle.state, battle.sight
    for side in state.sides:
        forms = state.active(side)
        routs = forms[::4]  # as if these routed: the question is geometric
        near = rout_neighbours(battle.ctx, routs)
        for f in forms:
            expect = [g for g in routs if sight.distance(f.id, g.id) <= ROUT_NEAR_M]
            got = [g.id for g in near.get(f.id, [])]
            assert {g.id for g in expect} <= set(got)
            assert got == [g.id for g in routs if g.id in got]  # in the routers' order
        assert sum(len(v) for v in near.values()) < len(forms) * len(routs) / 2  # culled


def test_sight_answers_equal_unculled(battle: Any) -> None:
    """Hearing and gaps of the culled Sight against the brute force over every formation."""
    sight = battle.sight
    sight._refresh()
    gaps = distance_many(sight.arr, sight.arr)
    hearing = sight.rules.hearing_m
    for i, fid in enumerate(sight.ids):
        expect = None
        for k in np.argsort(gaps[i], kind="stable").tolist():
            if k == i:
                continue
            if gaps[i, k] > hearing:
                break
            g = sight.forms[k]
            if g.moved_m > 0 or g.fought or battle.state.contacts.get(g.id):
                expect = g.id
                break
        assert sight.heard(fid) == expect
    for i in range(0, len(sight.ids), 3):
        for j in range(0, len(sight.ids), 11):
            assert sight.distance(sight.ids[i], sight.ids[j]) == gaps[i, j]


def test_montecarlo_chunks_cover_every_seed_once() -> None:
    from scenario_builder.montecarlo import chunks

    for n, w in ((1, 2), (7, 2), (100, 2), (1000, 3)):
        cs = chunks(range(5, 5 + n), w)
        assert [s for c in cs for s in c] == list(range(5, 5 + n))
        assert len(cs) <= -(-n // 8) + 4 * w * 4 and all(cs)
        assert max(len(c) for c in cs) <= 8
        # guided: the tasks shrink to one seed, so the tail after the last task is a replay
        assert [len(c) for c in cs[-w:]] == [1] * min(w, len(cs))
        assert [len(c) for c in cs] == sorted((len(c) for c in cs), reverse=True)


def test_commander_enemies_answer_as_pair_by_pair(battle: Any) -> None:
    """The General's nearest enemy and "enemy within" (the commander's defaults and triggers)
    from one separation row per formation: the answers of ``_gap`` asked pair by pair."""
    from engine.command.enemies import Enemies as _Enemies
    from engine.command.enemies import gap as _gap
    from engine.geometry import separation

    state = battle.state
    for side in state.sides:
        enemies = _Enemies(state, side)
        assert enemies.forms == state.enemies_of(side)
        for f in state.active(side)[::3]:
            gaps = [_gap(f, g) for g in enemies.forms]
            seps = [float(separation(f.obb(), obb_array([g.obb()]))[0]) for g in enemies.forms]
            k = min(range(len(seps)), key=lambda i: (seps[i], i))
            near = enemies.nearest(f)
            assert near is not None and near == (enemies.forms[k], gaps[k])
            for m in (0.0, 50.0, 300.0):
                assert enemies.within(f, m) == any(x <= m for x in gaps)


@pytest.mark.parametrize("brute", [True, False], ids=["centre-matrix", "kd-tree"])
def test_nearest_enemies_hold_the_k_nearest(
    arr: np.ndarray, battle: Any, brute: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The candidates (from every centre distance for a few pairs, else the k-d tree's) hold
    every formation's k nearest enemies by gap (ties included), with the full matrix's gaps
    bit for bit."""
    from engine import spatial
    from engine.geometry import OBB, corners
    from engine.spatial import nearest_enemies

    # 30 a side: 900 pairs a side, the centre matrix's unless the tree is forced
    monkeypatch.setattr(spatial, "BRUTE_PAIRS", 10**6 if brute else 0)

    sides = np.array([f.side for f in battle.state.active()])
    gaps = distance_many(arr, arr)
    ca = np.array([corners(OBB(*r)) for r in arr.tolist()])
    for k in (1, 3, 12):
        near = nearest_enemies(arr, sides, k, ca)
        for i in range(arr.shape[0]):
            foe = np.flatnonzero(sides != sides[i])
            kth = np.sort(gaps[i, foe])[k - 1]
            must = set(foe[gaps[i, foe] <= kth].tolist())
            rows, got = near[i]
            assert must <= set(rows.tolist()) and list(rows) == sorted(rows)
            assert np.array_equal(got, gaps[i, rows])
            assert len(rows) < len(foe)  # culled: not every enemy


def test_corners_many_equal_corners(arr: np.ndarray) -> None:
    """geometry.corners_many (the batch tables' corners) is corners() row by row, bit for bit."""
    from engine.geometry import OBB, corners, corners_many

    expect = np.array([corners(OBB(*(float(v) for v in row))) for row in arr])
    assert np.array_equal(corners_many(arr), expect)


def test_nearest_enemies_rank_the_same_either_way(
    arr: np.ndarray, battle: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The short cut for a few pairs (every centre distance, no k-d tree) against the k-d
    tree it replaces: each formation's ``_NEAR_ALL`` nearest enemies as the plan phases rank
    them (gap, then row: phases._near_ranked_rows) are the same rows and gaps bit for bit."""
    from engine import spatial
    from engine.geometry import corners_many
    from engine.rulesets.two_mm_earth.phases import _NEAR_ALL

    sides = np.array([f.side for f in battle.state.active()])
    ca = corners_many(arr)
    ranked = {}
    for brute in (True, False):
        monkeypatch.setattr(spatial, "BRUTE_PAIRS", 10**6 if brute else 0)
        near = spatial.nearest_enemies(arr, sides, _NEAR_ALL, ca)
        ranked[brute] = [
            [(int(rows[o]), float(gaps[o])) for o in np.lexsort((rows, gaps))[:_NEAR_ALL]]
            for rows, gaps in near
        ]
    assert ranked[True] == ranked[False]
    assert sum(len(r) for r in ranked[True]) == arr.shape[0] * _NEAR_ALL


def test_steady_friends_knn_short_cut_reads_as_the_tree(
    battle: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """10.2 / 11.1 morale: a side's steady formations' nearest friends from every centre
    distance (few friends) against the k-d tree it replaces: the same distances (to rounding)
    and neighbours (up to the order of ties), so _NearestFirst reads the same friends, nearest
    first, and the morale prefetch guesses the same nearest friend where there is no tie."""
    from scipy.spatial import cKDTree

    from engine.rulesets.two_mm_earth import morale
    from engine.rulesets.two_mm_earth.context import TwoMmContext

    ctx = battle.ctx
    assert isinstance(ctx, TwoMmContext)
    forms = battle.state.active("red")
    monkeypatch.setattr(morale, "_KNN_BRUTE", 10**6)
    view = morale._SideView(ctx, forms)
    assert len(view.ids) >= morale._NearestFirst.KNN  # the short cut is taken
    d, k = view.knn()
    td, tk = cKDTree(view.pts).query(view.pts, k=morale._NearestFirst.KNN)
    assert np.allclose(d, td, rtol=1e-12, atol=1e-9)
    for row, (mine, tree) in enumerate(zip(k, tk.tolist(), strict=True)):
        last = td[row][-1] * (1 - 1e-9) - 1e-9
        # the same neighbours, but for ties (to rounding) at the last distance taken
        assert {j for j, x in zip(mine, d[row]) if x < last} == {
            j for j, x in zip(tree, td[row]) if x < last
        }
        for lazy_first in ((d[row], mine), (td[row].tolist(), tree)):
            lazy = morale._NearestFirst(view.pts_list[row], view.ids, view.pts, row, lazy_first)
            plain = morale._NearestFirst(view.pts_list[row], view.ids, view.pts, row)
            assert lazy[0:16] == plain[0:16]


def test_routs_near_reads_the_stacked_rows_as_each_router_row(battle: Any) -> None:
    """10.2 friendly routs within 250 m: :meth:`_SideView.routs_near` reads one column of the
    routers' stacked reach (``RoutReach.rows``) for each formation asked; the same routers, in
    the same order, as asking each router's own row (``RoutReach.row``) formation by formation,
    and the stack is kept for the side's list of routers while Sight looks at the same table."""
    from engine.rulesets.two_mm_earth import morale
    from engine.rulesets.two_mm_earth.context import TwoMmContext

    ctx = battle.ctx
    assert isinstance(ctx, TwoMmContext)
    for side in battle.state.sides:
        forms = battle.state.active(side)
        view = morale._SideView(ctx, forms)
        routs = forms[1::3]  # as if these had routed this bound: the question is geometric
        view._routs = routs
        reach = morale.RoutReach(ctx)
        total = 0
        for f in forms:
            k = reach.row_of(f)
            expect = [g for g in routs if g is not f and reach.row(g)[k]]
            got = view.routs_near(f, reach)
            assert [g.id for g in got] == [g.id for g in expect]
            total += len(got)
        assert 0 < total < len(forms) * len(routs) / 2  # some near, most culled
        assert reach.rows(routs) is reach.rows(routs)  # kept, not stacked anew per formation


def test_few_distance_equals_the_vectorised_form(arr: np.ndarray) -> None:
    """geometry.distance works a few rectangles (and geometry.gap one) in plain floats: the
    same bits as numpy's arrays, for the battle's formations and for the same rectangles
    moved to touch, overlap and lie a hair apart."""
    from engine import geometry
    from engine.geometry import OBB, gap

    rng = np.random.default_rng(16)
    n = arr.shape[0]
    moved = arr.copy()
    # each rectangle put against another: centres along one's facing at the sum of depths,
    # less a little (overlap), exactly (touching) or a little more (apart), and turned
    pick = rng.integers(0, n, n)
    f = np.radians(arr[pick, 4])
    reach = arr[:, 3] + arr[pick, 3] + rng.choice([-2.0, -1e-9, 0.0, 1e-9, 0.5], n)
    moved[:, 0] = arr[pick, 0] + np.sin(f) * reach
    moved[:, 1] = arr[pick, 1] + np.cos(f) * reach
    moved[:, 4] = np.where(rng.random(n) < 0.5, arr[pick, 4], arr[:, 4])
    both = np.concatenate([arr, moved])
    checked = 0
    for k in range(both.shape[0]):
        a = OBB(*both[k].tolist())
        rows = np.concatenate([both[[pick[k % n]]], both[rng.integers(0, len(both), 5)]])
        want = geometry._distance_vectorised(a, rows).tolist()
        assert [gap(a, OBB(*r)) for r in rows.tolist()] == want
        assert geometry.distance(a, rows).tolist() == want
        checked += int(want[0] == 0.0)
    assert checked > 10  # touching and overlapping pairs were among them
