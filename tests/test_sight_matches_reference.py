"""6.2-6.3 sight worked out in batches gives the answers of the plain rule.

The engine asks line of sight thousands of times a bound, so ``los.visible_many`` samples many
lines at once from flat padded layers, ``Sight`` judges the troops in the way of every line of a
batch in numpy and the bound's record (``seen_by_side``) looks at each enemy from its nearest
observers first. None of that may change an answer: each is pinned here against the rule read
sample by sample, crossing by crossing and pair by pair, on real ground (Teutoburg's woods,
Minden's hills) and on a real battle's positions.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from engine.battle import Battle, seen_by_side
from engine.dice import Dice
from engine.geometry import _axes, segment_hits_pairs, segment_hits_sparse
from engine.orders import InstantDelivery
from engine.rulesets import get_ruleset
from engine.sight import Sight
from engine.spatial import RectIndex
from engine.state import BaseStatus, Morale
from scenario_builder.build import build_site
from scenario_builder.los import SightCells, visible_few, visible_many
from tests.reference import sight as sight_ref

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_engine import last_stand, scenario  # the engine benchmark's armies


@pytest.fixture(scope="module")
def teutoburg():  # real ground with woods (29 % of it blocks sight under 2mm Earth)
    bf = build_site("teutoburg_kalkriese").battlefield
    return get_ruleset("2mm-earth").ground(bf)


@pytest.fixture(scope="module")
def minden_battle():
    """A 2 x 30 battle on Minden's hills (the engine benchmark's armies), 8 bounds in."""
    bf = build_site("minden").battlefield
    sc = last_stand(scenario(bf, 30))
    battle = Battle(bf, sc, Dice(1), delivery=InstantDelivery())
    for _ in range(8):
        battle.step()
    return battle


def _points(bf, n: int, rng: np.random.Generator) -> np.ndarray:
    minx, miny, maxx, maxy = bf.bounds
    return np.column_stack([rng.uniform(minx, maxx, n), rng.uniform(miny, maxy, n)])


def test_6_2_batched_lines_match_the_rule_sample_by_sample_in_woods(teutoburg) -> None:
    bf, rng = teutoburg, np.random.default_rng(62)
    a = _points(bf, 300, rng)
    # long lines, short ones (inside the 25 m of the ends), and lines of no length
    b = np.concatenate([_points(bf, 200, rng), a[200:290] + rng.normal(0, 30, (90, 2)), a[290:]])
    b = np.clip(b, [bf.bounds[0] + 1, bf.bounds[1] + 1], [bf.bounds[2] - 1, bf.bounds[3] - 1])
    level, blocks = bf.layer("level"), bf.layer("blocks_sight")
    want = sight_ref.rule_6_2(bf._grid, level, blocks, a, b)
    assert 0 < sum(want) < len(want), "the sample holds both answers"
    assert bf.line_of_sight_many(a, b).tolist() == want
    # the same answers one line at a time and in batches of any size
    assert [bf.line_of_sight(tuple(p), tuple(q)) for p, q in zip(a[:40], b[:40])] == want[:40]
    assert visible_many(bf._grid, level, blocks, a[::7], b[::7]).tolist() == want[::7]
    # a few lines one at a time (the engine's small calls), ends on the grid
    cells = SightCells.of(level, blocks)
    assert visible_few(bf._grid, cells, a.tolist(), b.tolist()) == want
    assert [
        bf.line_of_sight_many(a[k : k + 2], b[k : k + 2]).tolist() for k in range(0, 300, 2)
    ] == [want[k : k + 2] for k in range(0, 300, 2)]
    eye: np.ndarray = np.asarray(rng.integers(0, 2, size=a.shape[0]))
    raised = visible_many(bf._grid, level, blocks, a, b, eye_a=eye)
    assert raised.tolist() == [
        sight_ref.rule_6_2(bf._grid, level, blocks, a[k : k + 1], b[k : k + 1], int(e))[0]
        for k, e in enumerate(eye.tolist())
    ]


def test_6_2_lines_with_an_end_off_the_grid_are_clipped_onto_it(teutoburg) -> None:
    # visible_many (not the Battlefield, which refuses) clips samples off the grid onto its edge
    bf, rng = teutoburg, np.random.default_rng(7)
    minx, _, maxx, maxy = bf.bounds
    a = _points(bf, 60, rng)
    b = np.column_stack([rng.uniform(minx - 400, maxx + 400, 60), np.full(60, maxy + 30.0)])
    level, blocks = bf.layer("level"), bf.layer("blocks_sight")
    got = visible_many(bf._grid, level, blocks, a, b).tolist()
    assert got == sight_ref.rule_6_2(bf._grid, level, blocks, a, b)


def test_codes_on_map_read_the_point_queries_and_minus_one_off_the_map(teutoburg) -> None:
    bf, rng = teutoburg, np.random.default_rng(3)
    minx, miny, maxx, maxy = bf.bounds
    x = rng.uniform(minx - 200, maxx + 200, 400)
    y = rng.uniform(miny - 200, maxy + 200, 400)
    x[:40] = rng.choice([minx, np.nextafter(maxx, minx), maxx], 40)  # the edges, both sides
    y[40:80] = rng.choice([np.nextafter(miny, maxy), miny, maxy], 40)
    for layer, query in (("move", bf.category_at), ("cover", bf.cover_at), ("level", bf.level_at)):
        values, inside = bf.codes_on_map(layer, x, y)
        assert inside.tolist() == bf.contains(x, y).tolist()
        assert (values[~inside] == -1).all()
        assert values[inside].tolist() == [int(query(p, q)) for p, q in zip(x[inside], y[inside])]


def test_6_2_troops_in_the_way_judged_in_arrays_as_one_by_one(minden_battle) -> None:
    look = minden_battle.sight.fresh_copy()
    n = len(look.ids)
    ia, ja = (v.ravel() for v in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    ia, ja = ia[ia != ja], ja[ia != ja]
    want = [look._troops_clear(i, j) for i, j in zip(ia.tolist(), ja.tolist(), strict=True)]
    assert 0 < sum(want) < len(want)
    assert look._clear_of_troops(ia, ja).tolist() == want  # one batch (the tree)
    few = [look._clear_of_troops(ia[k : k + 3], ja[k : k + 3]) for k in range(0, ia.size, 3)]
    assert np.concatenate(few).tolist() == want  # batches of three (boxes in numpy)
    # one pair at a time in plain floats, up to the first troops that block (morale's asks)
    assert [look._clear_one(i, j) for i, j in zip(ia.tolist(), ja.tolist(), strict=True)] == want


def test_6_2_each_sides_record_is_every_enemy_some_formation_sees(minden_battle) -> None:
    state, sight = minden_battle.state, minden_battle.sight
    record = seen_by_side(state, sight)
    plain = Sight(
        sight.bf, state, rules=sight.rules, weather=sight.weather, time=sight.time, locality=None
    )
    for side in state.sides:
        own = [f.id for f in state.active(side)]
        enemy = [g.id for g in state.active() if g.side != side]
        want = sorted(g for g in enemy if any(plain.sees(f, g) for f in own))
        assert record[side] == want
    assert 0 < len(record["red"]) < len(state.active("blue")) + 1
    # the formations that saw each enemy are asked first the next time (a hint on the order
    # of the look, shared by the copies): the same record, with or without hints
    assert sight._witness and seen_by_side(state, sight) == record
    sight._witness.clear()
    assert seen_by_side(state, sight) == record


def test_the_record_reuses_answers_only_of_the_state_as_it_is(minden_battle) -> None:
    state, sight = minden_battle.state, minden_battle.sight
    f = state.active()[0]
    sight._version = -1  # as a change of light does (engine.light): worked out afresh
    sight.visible(f.id, [g.id for g in state.active() if g.side != f.side])
    assert sight.current()
    assert sight.fresh_copy()._cache.keys() >= sight._cache.keys()
    # a base lost without a move (state.version unchanged) changes the table
    victim = next(b for b in f.bases if b.alive)
    old = victim.status
    victim.status = BaseStatus.DEAD
    try:
        assert not sight.current()
        assert not sight.fresh_copy()._cache
    finally:
        victim.status = old


def test_crossing_few_and_unordered_find_every_rectangle_a_line_crosses() -> None:
    rng = np.random.default_rng(15)
    arr = np.column_stack(
        [
            rng.uniform(0, 2000, 150),
            rng.uniform(0, 2000, 150),
            rng.uniform(10, 80, 150),
            rng.uniform(10, 40, 150),
            rng.choice([0.0, 90.0, 33.0, 180.0, 271.5], 150),
        ]
    )
    ps, qs = rng.uniform(0, 2000, (40, 2)), rng.uniform(0, 2000, (40, 2))
    qs[:5] = ps[:5]  # points
    qs[5:10, 0] = ps[5:10, 0]  # north-south lines
    index = RectIndex(arr)
    hits = segment_hits_pairs(ps, qs, arr)
    for si, ri in (
        index.crossing_few(ps, qs),
        index.crossing_unordered(ps, qs),
        index.crossing(ps, qs),
    ):
        found = np.zeros_like(hits)
        found[si, ri] = segment_hits_sparse(ps, qs, arr, si, ri, _axes(arr[:, 4]))
        assert (found == hits).all()
    assert hits.any()


def test_a_few_crossings_in_plain_floats_are_the_slab_tests_own() -> None:
    # segment_hits_sparse works out a few (line, rectangle) pairs in Python floats: the same
    # booleans as the one slab test (segment_hits_pairs), touching and parallel cases included
    rng = np.random.default_rng(11)
    for _ in range(200):
        n, k = int(rng.integers(1, 12)), int(rng.integers(1, 6))
        arr = np.column_stack(
            [
                np.round(rng.uniform(0, 300, (n, 2))),
                np.round(rng.uniform(5, 60, (n, 2))),
                rng.choice([0.0, 90.0, 180.0, 45.0, 301.7], n),
            ]
        )
        ps = np.round(rng.uniform(0, 300, (k, 2)))
        qs = np.round(rng.uniform(0, 300, (k, 2)))
        qs[0, 0] = ps[0, 0]  # one line north-south: parallel to the unturned sides
        si, ri = np.repeat(np.arange(k), n), np.tile(np.arange(n), k)
        want = segment_hits_pairs(ps, qs, arr)[si, ri]
        for m in range(0, si.size, 5):  # five at a time: the plain-float path
            got = segment_hits_sparse(ps, qs, arr, si[m : m + 5], ri[m : m + 5])
            assert got.tolist() == want[m : m + 5].tolist()


def test_hearing_candidates_from_the_tree_as_from_the_box_bounds(
    minden_battle: Battle, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 6.2 hearing: the one closest moving or fighting formation within 75 m; a big army's
    # candidates within earshot come from the spatial tree, a small one's from box bounds
    import engine.sight as sight_module

    ids = [f.id for f in minden_battle.state.active()]
    bounds = minden_battle.sight.fresh_copy()
    want = [bounds.heard(i) for i in ids]
    monkeypatch.setattr(sight_module, "_HEAR_TREE_FROM", 0)
    tree = minden_battle.sight.fresh_copy()
    assert [tree.heard(i) for i in ids] == want
    assert tree._hear_near is not None and bounds._hear_near is not None
    assert len(tree._hear_near) == len(bounds._hear_near) == len(tree.ids)
    assert any(h is not None for h in want)


def _plain(sight: Sight) -> Sight:
    """A Sight that has never answered: the answers of the state as it is."""
    return Sight(
        sight.bf,
        sight.state,
        rules=sight.rules,
        weather=sight.weather,
        time=sight.time,
        locality=sight.locality,
    )


def test_6_2_hearing_is_of_the_notes_as_they_are_when_asked(minden_battle: Battle) -> None:
    # 6.2 hearing: the closest formation within 75 m that moves or fights *this bound*. The
    # bound's notes (moved_m, fought) are cleared at the bound's start without anything moving:
    # a formation heard before that must not be heard after it (docs/rules-interpretations.md)
    state, sight = minden_battle.state, minden_battle.sight
    forms = state.active()
    saved = [(f, f.moved_m, f.fought) for f in forms]
    contacts = state.contacts
    state.contacts = {}
    try:
        for f in forms:
            f.moved_m, f.fought = 0.0, False
        pair = next(
            (f, g)
            for f in forms
            for g in forms
            if g is not f and sight.distance(f.id, g.id) <= sight.rules.hearing_m
        )
        f, g = pair
        g.moved_m = 40.0
        assert sight.heard(f.id) == g.id
        g.moved_m = 0.0  # as start_bound does: no move, state.version unchanged
        assert sight.heard(f.id) is None
        g.fought = True  # 6.2: fighting is heard as well (melee, no move)
        assert sight.heard(f.id) == g.id == _plain(sight).heard(f.id)
    finally:
        state.contacts = contacts
        for f, moved, fought in saved:
            f.moved_m, f.fought = moved, fought


def test_6_2_troops_gone_from_the_table_without_a_move_no_longer_block(
    minden_battle: Battle,
) -> None:
    # a formation destroyed after the morale phase (or whose last base died in melee) leaves
    # the table with no move (state.version unchanged): lines it blocked are open at once, and
    # the answer does not depend on whether the pair was asked before
    state, sight = minden_battle.state, minden_battle.sight
    look = _plain(sight)
    look._refresh()
    n = len(look.ids)
    ia, ja = (v.ravel() for v in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    ia, ja = ia[ia != ja], ja[ia != ja]
    blocked = ~look._clear_of_troops(ia, ja) & look._terrain(ia, ja)
    case = None
    for i, j in zip(ia[blocked].tolist(), ja[blocked].tolist(), strict=True):
        hits = segment_hits_pairs(look.arr[[i], :2], look.arr[[j], :2], look.arr)[0]
        hits[[i, j]] = False
        if hits.sum() == 1:  # one formation in the way
            case = (look.ids[i], look.ids[j], look.forms[int(np.flatnonzero(hits)[0])])
            break
    assert case is not None, "the battle holds a view blocked by one formation"
    o, t, blocker = case
    version = state.version
    assert not sight.sees(o, t)
    old = blocker.morale
    blocker.morale = Morale.DESTROYED  # off the table (Formation.removed), nothing moved
    try:
        assert state.version == version
        assert sight.sees(o, t) and _plain(sight).sees(o, t)
        assert blocker.id not in sight.index
    finally:
        blocker.morale = old
    assert not sight.sees(o, t)  # back on the table, in the way again


def test_6_2_an_answer_held_is_dropped_when_what_it_read_changes(minden_battle: Battle) -> None:
    # the answers held survive a change of the table that sight never read (a morale state),
    # not one it did: an observer that becomes a monster (no move, the same rectangle) sees
    # over the troops that hid the target (6.2 "Monsters can see over anything")
    from engine.rulesets.two_mm_earth.charts import UnitType

    state, sight = minden_battle.state, minden_battle.sight
    look = _plain(sight)
    look._refresh()
    n = len(look.ids)
    ia, ja = (v.ravel() for v in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    ia, ja = ia[ia != ja], ja[ia != ja]
    hidden = ~look._clear_of_troops(ia, ja) & look._terrain(ia, ja)
    assert hidden.any(), "the battle holds a view hidden by troops"
    o, t = look.ids[int(ia[hidden][0])], look.ids[int(ja[hidden][0])]
    f, version = state.formations[o], state.version
    assert not sight.sees(o, t)
    sight.visible(o, [g.id for g in state.active() if g.side != f.side])
    held = len(sight._cache)
    assert held > 1
    other = next(g for g in state.active() if g.id not in (o, t))
    old_morale = other.morale
    other.morale = Morale.RETREATING  # read by no answer: the answers are kept
    try:
        assert not sight.current()
        assert not sight.sees(o, t) and len(sight._cache) == held
    finally:
        other.morale = old_morale
    box = f.obb()
    old = [b.profile for b in f.bases]
    for b in f.bases:
        b.profile = b.profile.model_copy(update={"unit_type": UnitType.MONSTER})
    try:
        assert f.obb() == box and state.version == version
        assert sight.sees(o, t) and _plain(sight).sees(o, t)
    finally:
        for b, p in zip(f.bases, old, strict=True):
            b.profile = p
    assert not sight.sees(o, t)


def test_6_3_a_few_pairs_at_a_time_as_in_one_batch_in_fog_at_night(minden_battle: Battle) -> None:
    # morale's one or two pairs are worked out in plain floats, the 6.3 limit too (fog at
    # night: 500 m for troops who do not know the ground): the answers of the whole batch
    state, sight = minden_battle.state, minden_battle.sight
    red_home = state.sides["red"].locality

    def fog() -> Sight:
        return Sight(
            sight.bf, state, rules=sight.rules, weather="fog", time="night", locality=red_home
        )

    forms = state.active()
    pairs = [(f.id, g.id) for f in forms for g in forms if f.side != g.side]
    batch = fog()
    batch.prefetch([(f.id, [g.id for g in forms if g.side != f.side]) for f in forms])
    want = [batch._cache[p] for p in pairs]
    one = fog()
    assert [one.sees(o, t) for o, t in pairs] == want
    assert 0 < sum(want) < len(want)
    # some pairs of each kind: beyond the limit, within it, and not limited (local troops)
    limit = [one._limit_of(one.index[o]) for o, _ in pairs]
    gap = [one.distance(o, t) for o, t in pairs]
    assert any(m is None for m in limit) and any(m is not None for m in limit)
    assert any(m is not None and d > m for m, d in zip(limit, gap, strict=True))


def test_6_2_troops_next_to_the_target_first_as_the_whole_line(
    minden_battle: Battle, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a big batch among many formations looks first at the troops near each target (one that
    # blocks settles the pair), then at the whole of the lines left: the answers of the whole
    import engine.sight as sight_module

    look = _plain(minden_battle.sight)
    look._refresh()
    n = len(look.ids)
    ia, ja = (v.ravel() for v in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    ia, ja = ia[ia != ja], ja[ia != ja]
    whole = look._clear_of_troops_whole(ia, ja)
    assert 0 < whole.sum() < whole.size
    monkeypatch.setattr(sight_module, "_NEAR_TARGET_AMONG", 0)
    # one stretch or several that follow each other (lines shorter than a reach, longer than
    # all), the stretches' troops first, then the whole of what is left open
    for reach in (
        (0.0,),
        (30.0,),
        (150.0,),
        (1e9,),
        (30.0, 90.0),
        (150.0, 1000.0),
        (5.0, 60.0, 400.0),
    ):
        monkeypatch.setattr(sight_module, "_NEAR_TARGET_M", reach)
        assert look._clear_of_troops(ia, ja).tolist() == whole.tolist()


def test_6_2_the_record_is_the_same_whatever_order_the_shadow_guess_gives(
    minden_battle: Battle, monkeypatch: pytest.MonkeyPatch
) -> None:
    # seen_by asks first the observers whose line the troops next to the enemy seem to leave
    # open (Sight._shadowed): a guess for the order of the look, never an answer. Any guess
    # (every line shadowed, none, at random) gives the same record, the brute force's
    import engine.sight as sight_module

    monkeypatch.setattr(sight_module, "_SHADOW_FROM", 0)  # the guess among few observers too
    state, sight = minden_battle.state, minden_battle.sight
    want = {}
    plain = _plain(sight)
    for side in state.sides:
        own = [f.id for f in state.active(side)]
        enemy = [g.id for g in state.active() if g.side != side]
        want[side] = sorted(g for g in enemy if any(plain.sees(f, g) for f in own))
    assert seen_by_side(state, sight) == want
    rng = np.random.default_rng(62)
    for guess in ("all", "none", "random"):

        def shadowed(
            self: Sight, own: np.ndarray, tgt: np.ndarray, dist: np.ndarray, guess: str = guess
        ) -> np.ndarray:
            shape = (own.size, tgt.size)
            if guess == "random":
                return rng.random(shape) < 0.5
            return np.full(shape, guess == "all")

        monkeypatch.setattr(Sight, "_shadowed", shadowed)
        sight._witness.clear()  # no hints either: every enemy goes through the guess
        assert seen_by_side(state, sight) == want
    monkeypatch.undo()
    monkeypatch.setattr(sight_module, "_SHADOW_FROM", 0)
    sight._witness.clear()
    assert seen_by_side(state, sight) == want  # the guess itself, with no hints
    # and the guess is a good one: the lines it puts last are mostly hidden by troops, those
    # it puts first mostly not (on this battle's lines, fronts of formations with gaps)
    look = sight.fresh_copy()
    sides = look._side_codes()
    own, tgt = np.flatnonzero(sides == 0), np.flatnonzero(sides != 0)
    xy = look.arr[:, :2]
    dist = np.hypot(xy[own, None, 0] - xy[None, tgt, 0], xy[own, None, 1] - xy[None, tgt, 1])
    guess = look._shadowed(own, tgt, dist)
    ia, ja = np.repeat(own, tgt.size), np.tile(tgt, own.size)
    clear = look._clear_of_troops(ia, ja).reshape(own.size, tgt.size)
    assert 0 < guess.sum() < guess.size
    assert (~clear[guess]).mean() > 0.75 > (~clear[~guess]).mean()
