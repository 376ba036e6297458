"""The movement phase's short cuts give exactly (bit for bit) what sampling every point and
sweeping every rectangle gives (outcomes must not move; tests/known_answers pin whole
battles, these pin the pieces on real ground and on random rectangles, element by element).

- 7.1 footprints: a footprint known to lie in one class from one raster lookup, the gather of
  the points one cell in from the edge, against ``Battlefield.codes_on_map``;
- 6.1 the sweep: rectangles the mover cannot reach left out, against the sweep over all;
- 10.3 retreat direction: the candidates weighed in one numpy expression, against the loop.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from engine.geometry import (
    CONTACT_M,
    FewSeparation,
    bearing,
    separation,
)
from engine.movement import (
    SWEEP_STEP_M,
    _codes,
    _first_overlapping_step,
    _sweep,
    _turn_reach,
    _uniform_class,
    base_pairs,
    max_corner_displacement,
    obb_at,
    retreat_bearing,
)
from engine.rulesets.two_mm_earth.rulesets import BASE_SIZE
from engine.state import BaseStatus, Formation
from tests.reference import movement as movement_ref

DATA = Path(__file__).resolve().parent / "data" / "troops"


@pytest.fixture(scope="module")
def bayreuth(built_bayreuth):
    # real OSM woods, fields and water: several classes, edges between them, a map edge
    return built_bayreuth.battlefield


def test_7_1_gather_equals_codes_on_map_up_to_and_past_the_edge(bayreuth) -> None:
    rng = np.random.default_rng(5)
    minx, miny, maxx, maxy = bayreuth.bounds
    res = bayreuth.res
    checked = {True: 0, False: 0}
    for _ in range(400):
        # a cluster of points round a centre anywhere from well inside to past the edge, some
        # exactly on cell boundaries and on the map's edges
        cx = float(rng.uniform(minx - 60, maxx + 60))
        cy = float(rng.uniform(miny - 60, maxy + 60))
        if rng.random() < 0.5:  # within 80 m of an edge
            cx = float(rng.choice([minx, maxx])) + float(rng.uniform(-80, 80))
        x = cx + rng.uniform(-50, 50, 40)
        y = cy + rng.uniform(-50, 50, 40)
        x[:4] = np.round((x[:4] - minx) / res) * res + minx
        y[4:8] = maxy - np.round((maxy - y[4:8]) / res) * res
        for layer in ("move", "cover"):
            values, on = _codes(bayreuth, layer, np.array([x, y]))
            want, inside = bayreuth.codes_on_map(layer, x, y)
            assert on == bool(inside.all())
            assert np.array_equal(np.asarray(values, dtype=int), want)
            checked[on] += 1
    assert checked[True] > 100 and checked[False] > 100
    # the map's own corners and edges, where the gather must not be used
    x = np.array([minx, maxx, minx, maxx - 1e-9, (minx + maxx) / 2])
    y = np.array([maxy, miny, miny + 1e-9, maxy, maxy])
    values, on = _codes(bayreuth, "move", np.array([x, y]))
    want, inside = bayreuth.codes_on_map("move", x, y)
    assert on == bool(inside.all()) and np.array_equal(np.asarray(values, dtype=int), want)


def test_7_1_one_class_lookup_only_claims_what_every_point_shows(bayreuth) -> None:
    rng = np.random.default_rng(8)
    minx, miny, maxx, maxy = bayreuth.bounds
    found: dict[int, int] = {}
    none = 0
    for _ in range(1500):
        cx = float(rng.uniform(minx - 30, maxx + 30))
        cy = float(rng.uniform(miny - 30, maxy + 30))
        reach = float(rng.uniform(5.0, 150.0))
        for layer in ("move", "cover"):
            got = _uniform_class(bayreuth, layer, cx, cy, reach)
            if got is None:
                none += 1
                continue
            found[got] = found.get(got, 0) + 1
            # points all over the disc, its rim included
            ang = rng.uniform(0, 2 * math.pi, 300)
            rad = np.concatenate([np.full(100, reach), reach * np.sqrt(rng.random(200))])
            x, y = cx + rad * np.sin(ang), cy + rad * np.cos(ang)
            values, inside = bayreuth.codes_on_map(layer, x, y)
            assert inside.all() and (values == got).all()
            assert _codes(bayreuth, layer, np.array([x, y]))[1]  # read by the gather
    # open ground, other classes and mixed or edge footprints all occur
    assert found.get(0, 0) > 50 and sum(v for k, v in found.items() if k) > 50 and none > 50


def test_7_1_one_class_lookup_follows_the_battlefield_and_layer_asked(bayreuth) -> None:
    # the lookup keeps the grid of the battlefield and layer asked last: asking another (a
    # ruleset's view of the same ground with its own classes, the other layer) must not read
    # the one kept
    lay = bayreuth.layer("move")
    view = bayreuth.with_layers({"move": np.where(lay == 0, 3, 0).astype(lay.dtype)})
    rng = np.random.default_rng(9)
    minx, miny, maxx, maxy = bayreuth.bounds
    differ = 0
    for _ in range(600):
        cx = float(rng.uniform(minx - 30, maxx + 30))
        cy = float(rng.uniform(miny - 30, maxy + 30))
        reach = float(rng.uniform(5.0, 150.0))
        for bf, layer in rng.permutation([(bayreuth, "move"), (view, "move"), (bayreuth, "cover")]):
            want = movement_ref.uniform_class(bf, layer, cx, cy, reach)
            assert _uniform_class(bf, layer, cx, cy, reach) == want
        one = _uniform_class(bayreuth, "move", cx, cy, reach)
        differ += one is not None and one != _uniform_class(view, "move", cx, cy, reach)
    assert differ > 50


def test_10_3_retreat_bearing_equals_the_loop() -> None:
    rng = np.random.default_rng(3)
    moved = 0
    for i in range(3000):
        centre = (float(rng.uniform(-500, 500)), float(rng.uniform(-500, 500)))
        enemy = (
            centre[0] + float(rng.uniform(-300, 300)),
            centre[1] + float(rng.uniform(-300, 300)),
        )
        n = int(rng.integers(0, 30))
        bases = [
            (centre[0] + float(rng.uniform(-400, 400)), centre[1] + float(rng.uniform(-400, 400)))
            for _ in range(n)
        ]
        # homes on the compass points and exactly between candidates make ties
        home = (
            float(rng.choice([0.0, 90.0, 180.0, 270.0]))
            if i % 3 == 0
            else float(rng.uniform(0, 360))
        )
        step = 5.0 if i % 5 else float(rng.choice([3.0, 7.5, 15.0, 50.0]))
        got = retreat_bearing(centre, enemy, bases, home, step)
        assert got == movement_ref.retreat_bearing(centre, enemy, bases, home, step)
        moved += got != round(bearing(enemy[0], enemy[1], *centre), 6) % 360.0
    assert moved > 300  # many retreats veer off the straight line away
    assert retreat_bearing((0.0, 0.0), None, [], 400.0) == 40.0


def _layout(
    rng: np.random.Generator,
) -> tuple[
    Any,
    tuple[float, float, float, float],
    tuple[float, float, float],
    tuple[list[Any], np.ndarray],
    list[list[float]],
]:
    """A mover (box in its frame, start pose) among 1-12 others: some far, some near, some
    touching it or just apart at the start."""
    box = (
        float(rng.uniform(-5, 5)),
        float(rng.uniform(-5, 5)),
        float(rng.uniform(5, 60)),
        float(rng.uniform(5, 20)),
    )
    start = (
        float(rng.uniform(-100, 100)),
        float(rng.uniform(-100, 100)),
        float(rng.uniform(0, 360)),
    )
    o0 = obb_at(box, *start)
    rows = []
    for _ in range(int(rng.integers(1, 13))):
        facing = float(rng.choice([o0.facing, (o0.facing + 90) % 360, rng.uniform(0, 360)]))
        hw, hd = float(rng.uniform(5, 60)), float(rng.uniform(5, 20))
        if rng.random() < 0.3:
            # touching the mover's front (or apart by a hair), facing it
            fx, fy = math.sin(math.radians(o0.facing)), math.cos(math.radians(o0.facing))
            off = o0.hd + hd + float(rng.choice([0.0, 0.5, 1e-7]))
            along = float(rng.uniform(-o0.hw, o0.hw))
            rx, ry = fy, -fx
            rows.append(
                [o0.cx + fx * off + rx * along, o0.cy + fy * off + ry * along, hw, hd, o0.facing]
            )
        else:
            d = float(rng.uniform(0, 400))
            ang = float(rng.uniform(0, 2 * math.pi))
            rows.append([o0.cx + d * math.sin(ang), o0.cy + d * math.cos(ang), hw, hd, facing])
    arr = np.array(rows, dtype=float).reshape(-1, 5)
    keep = separation(o0, arr) >= -1e-6  # a few overlapping ones stay: the sweep ignores them
    keep[: int(rng.integers(0, 2))] = True
    arr = arr[keep]
    me = SimpleNamespace(id="me")
    forms = [SimpleNamespace(id=f"g{k}") for k in range(arr.shape[0])]
    # the mover's own row is in the table, as the move phase passes it
    at = int(rng.integers(0, len(forms) + 1))
    forms.insert(at, me)
    arr = np.insert(arr, at, np.array(o0), axis=0)
    return me, box, start, (forms, arr), rows


def test_6_1_sweep_leaving_out_unreachable_rectangles_changes_nothing() -> None:
    rng = np.random.default_rng(11)
    met = {"straight": 0, "turn": 0}
    clear = 0
    for i in range(2500):
        me, box, start, table, _ = _layout(rng)
        dist = float(rng.uniform(0, 200))
        ang = float(rng.uniform(0, 2 * math.pi)) if i % 4 else math.radians(start[2])
        dx, dy = dist * math.sin(ang), dist * math.cos(ang)
        dth = float(rng.choice([0.0, 0.0, 4e-9, float(rng.uniform(-90, 90))]))
        got = _sweep(None, me, box, start, dx, dy, dth, table)  # type: ignore[arg-type]
        want = movement_ref.sweep(None, me, box, start, dx, dy, dth, table)
        assert got == want, (i, got, want)
        if got[1] is not None:
            met["turn" if dth else "straight"] += 1
        else:
            clear += 1
    assert met["straight"] > 200 and met["turn"] > 200 and clear > 500


def test_6_1_turn_sweep_advancement_equals_testing_every_step() -> None:
    # a turning move's steps are tested only where some rectangle can be reached (its gap at
    # the last step tested, less the way any point travels since, is used up): the first
    # overlapping step must be the one testing every step finds, whether the steps skipped
    # are few or many
    rng = np.random.default_rng(23)
    found = {"hit": 0, "clear": 0, "skipped": 0}
    for i in range(700):
        _me, box, start, _table, rows = _layout(rng)
        dist = float(rng.uniform(20, 300))
        ang = float(rng.uniform(0, 2 * math.pi))
        dx, dy = dist * math.sin(ang), dist * math.cos(ang)
        dth = float(rng.uniform(-90, 90))
        a_, l_, hw_, hd_ = box
        # the sweep's bound on how far any point of the mover travels over the whole move
        travel = math.hypot(dx, dy) + abs(math.radians(dth)) * math.hypot(
            abs(a_) + hw_, abs(l_) + hd_
        )
        travel = travel * (1.0 + 1e-9) + 1e-3
        o0 = obb_at(box, *start)
        live = [r for r in rows if float(separation(o0, np.array([r]))[0]) >= -1e-6]
        if not live:
            continue
        few = FewSeparation.of_boxes(live)
        n = max(1, math.ceil(max_corner_displacement(box, start[2], dth, (dx, dy)) / SWEEP_STEP_M))
        ts = (np.arange(1, n + 1) / n).tolist()
        placed: list[float] = []

        def pose(
            t: float, placed: list[float] = placed, m: tuple[Any, ...] = (box, start, dx, dy, dth)
        ) -> Any:
            placed.append(t)
            box_, (x0, y0, th0), dx_, dy_, dth_ = m
            return obb_at(box_, x0 + dx_ * t, y0 + dy_ * t, th0 + dth_ * t)

        want = next((k for k, t in enumerate(ts) if few.first_overlap(pose(t)) is not None), None)
        placed.clear()
        # no window (every rectangle may be met anywhere) and the sweep's own windows
        g1 = few.gaps(obb_at(box, start[0] + dx, start[1] + dy, start[2] + dth))
        own = [
            ((g - 1e-3) / travel, 1.0 - (e - 1e-3) / travel)
            for g, e in zip(few.gaps(o0), g1, strict=True)
        ]
        spans = [(0.0, 1.0)] * len(live) if i % 2 else own

        def gaps_at(t: float, few: FewSeparation = few) -> list[float]:
            return few.gaps(pose(t))

        got = _first_overlapping_step(few, spans, travel, ts, 0, n - 1, gaps_at)
        assert got == want, (i, got, want)
        found["hit" if got is not None else "clear"] += 1
        upto = n if got is None else got + 1
        found["skipped"] += len(placed) < upto
    assert found["hit"] > 150 and found["clear"] > 100 and found["skipped"] > 150, found


def test_11_3_turn_reach_equals_max_corner_displacement() -> None:
    rng = np.random.default_rng(4)
    for _ in range(3000):
        box = (
            float(rng.uniform(-20, 20)),
            float(rng.uniform(-20, 20)),
            float(rng.uniform(1, 80)),
            float(rng.uniform(1, 30)),
        )
        th = float(rng.choice([0.0, -0.0, 90.0, float(rng.uniform(-720, 720))]))
        reach = _turn_reach(box, th)
        for dth in (0.0, -0.0, 1e-300, float(rng.uniform(-180, 180)), float(rng.normal(0, 1e-6))):
            assert reach(dth) == max_corner_displacement(box, th, dth, (0.0, 0.0))
        # 6.1: a move with no turn does not ask (movement._pose_toward): no turn reaches 0.0,
        # from any facing, +0.0 or -0.0 included, so it never exceeds an allowance >= 0
        assert reach(0.0) == 0.0 and reach(-0.0) == 0.0


def test_3_2_base_pairs_equal_the_numpy_gaps() -> None:
    from engine.rulesets.two_mm_earth.profiles import load_army

    inf = load_army(str(DATA / "rules_red.yaml")).profile("inf")
    rng = np.random.default_rng(9)
    touching = 0
    for k in range(400):
        f = Formation.build(
            f"f{k}",
            "red",
            "F",
            inf,
            # up to 15 bases: big formations (Flodden's) take base_pairs' cull by the centres
            n_bases=int(rng.integers(1, 16)),
            frontage=int(rng.choice([3, 5])),
            cx=0.0,
            cy=0.0,
            facing=float(rng.uniform(0, 360)),
            base_w=BASE_SIZE["base_w"],
            base_d=BASE_SIZE["base_d"],
        )
        # the other in front, at a gap from overlapping through touching to well apart
        o = f.obb()
        gap = float(rng.choice([-2.0, 0.0, 0.5, CONTACT_M, 1.5, float(rng.uniform(-5, 40))]))
        back = float(rng.choice([f.facing + 180.0, float(rng.uniform(0, 360))]))
        fx, fy = math.sin(math.radians(f.facing)), math.cos(math.radians(f.facing))
        dist = o.hd * 2 + gap
        g = Formation.build(
            f"g{k}",
            "blue",
            "G",
            inf,
            n_bases=int(rng.integers(1, 13)),
            frontage=int(rng.choice([2, 4])),
            cx=o.cx + fx * dist + float(rng.uniform(-30, 30)),
            cy=o.cy + fy * dist,
            facing=back,
            base_w=BASE_SIZE["base_w"],
            base_d=BASE_SIZE["base_d"],
        )
        if k % 4 == 0 and len(g.bases) > 1:
            g.bases[0].status = BaseStatus.DEAD
        got = base_pairs(f, g)
        assert got == movement_ref.base_pairs(f, g)
        touching += bool(got)
    assert 50 < touching < 350


def test_6_1_sweep_gaps_upto_and_subset_equal_the_full_gaps() -> None:
    # the sweep works out a rectangle's gap only as far as it can matter (beyond the way the
    # mover travels it is left out) and narrows its rectangles without working their sums out
    # again: the gaps it uses must be FewSeparation.gaps' values, bit for bit
    rng = np.random.default_rng(31)
    cut = 0
    for _ in range(400):
        _me, box, start, _table, rows = _layout(rng)
        few = FewSeparation.of_boxes(rows)
        a = obb_at(box, *start)
        full = few.gaps(a)
        limit = float(rng.uniform(0, 300))
        upto = few.gaps_upto(a, limit)
        for g, u in zip(full, upto, strict=True):
            assert (u == g) if g <= limit else (u > limit), (g, u, limit)
        cut += sum(u != g for g, u in zip(full, upto, strict=True))
        keep = [bool(k) for k in rng.integers(0, 2, len(rows))]
        sub = few.subset(keep)
        want = [g for g, k in zip(full, keep, strict=True) if k]
        assert sub.gaps(a) == want
        assert sub.first_overlap(a) == FewSeparation.of_boxes(
            [r for r, k in zip(rows, keep, strict=True) if k]
        ).first_overlap(a)
    assert cut > 100  # some gaps were left unfinished
