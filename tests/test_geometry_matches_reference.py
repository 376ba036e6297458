"""The engine's batched geometry gives exactly (bit for bit) what the one-at-a-time functions give.

The speed-ups of the engine replace loops of small numpy calls by one call over many rectangles or
points; battles must not change (tests/known_answers), so each batched function is checked here
against the function it replaces on random rectangles, element by element with ``==``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.geometry import (
    OBB,
    FewSeparation,
    SeparationFrom,
    distance,
    distance_many,
    forward,
    obb_array,
    right,
    segment_hits,
    segment_hits_pairs,
    separation,
    separation_many,
)
from engine.rulesets.two_mm_earth.rulesets import BASE_SIZE
from engine.state import BaseStatus
from tests.reference import geometry as geometry_ref
from tests.reference import movement as movement_ref


def _random_boxes(rng: np.random.Generator, n: int) -> np.ndarray:
    # facings include the axis-parallel ones (parallel slabs) as well as arbitrary ones
    facing = np.where(
        rng.random(n) < 0.3, rng.choice([0.0, 90.0, 180.0, 270.0], n), rng.uniform(0.0, 360.0, n)
    )
    return np.column_stack(
        [
            rng.uniform(-300, 300, n),
            rng.uniform(-300, 300, n),
            rng.uniform(1, 80, n),
            rng.uniform(1, 40, n),
            facing,
        ]
    )


@pytest.mark.parametrize("seed", range(5))
def test_segment_hits_equals_the_one_segment_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    boxes = _random_boxes(rng, 60)
    p = (float(rng.uniform(-300, 300)), float(rng.uniform(-300, 300)))
    qs = np.column_stack([rng.uniform(-300, 300, 40), rng.uniform(-300, 300, 40)])
    qs[:5] = boxes[:5, :2]  # segments ending at rectangle centres, as sight draws them
    qs[5] = p  # a zero-length segment
    got = np.array([segment_hits(p, (float(q[0]), float(q[1])), boxes) for q in qs])
    for k, q in enumerate(qs):
        assert np.array_equal(
            got[k], geometry_ref.segment_hits(p, (float(q[0]), float(q[1])), boxes)
        )
    assert got.any() and not got.all()  # the cases exercise both answers


@pytest.mark.parametrize("seed", range(5))
def test_segment_hits_pairs_equals_segment_hits(seed: int) -> None:
    # Sight.prefetch: many observers' sight lines against every formation in one matrix
    rng = np.random.default_rng(20 + seed)
    boxes = _random_boxes(rng, 60)
    ps = np.column_stack([rng.uniform(-300, 300, 40), rng.uniform(-300, 300, 40)])
    qs = np.column_stack([rng.uniform(-300, 300, 40), rng.uniform(-300, 300, 40)])
    ps[:8], qs[:8] = boxes[:8, :2], boxes[8:16, :2]  # centre to centre, as sight draws them
    qs[8] = ps[8]  # a zero-length segment
    got = segment_hits_pairs(ps, qs, boxes)
    for k, (p, q) in enumerate(zip(ps.tolist(), qs.tolist(), strict=True)):
        assert np.array_equal(got[k], geometry_ref.segment_hits(tuple(p), tuple(q), boxes))
    assert got.any() and not got.all()
    assert segment_hits_pairs(ps[:0], qs[:0], boxes).shape == (0, 60)


def test_segment_hits_empty() -> None:
    boxes = obb_array([OBB(0.0, 0.0, 5.0, 5.0, 0.0)])
    assert segment_hits((0.0, 0.0), (1.0, 1.0), boxes[:0]).shape == (0,)
    assert segment_hits_pairs(np.zeros((0, 2)), np.zeros((0, 2)), boxes).shape == (0, 1)


# -- terrain sampling of footprints (7.1) -------------------------------------------------------

DATA = Path(__file__).parent / "data" / "troops"


@pytest.fixture(scope="module")
def bayreuth(built_bayreuth):
    # real OSM woods, fields and water: many classes under the footprints
    return built_bayreuth.battlefield


def test_codes_on_map_equals_the_point_queries_on_real_ground(bayreuth) -> None:
    rng = np.random.default_rng(1)
    minx, miny, maxx, maxy = bayreuth.bounds
    # a margin outside the map, and the exact edges (contains() is half-open)
    x = np.concatenate([rng.uniform(minx - 200, maxx + 200, 5000), [minx, maxx, minx, maxx]])
    y = np.concatenate([rng.uniform(miny - 200, maxy + 200, 5000), [miny, maxy, maxy, miny]])
    inside = bayreuth.contains(x, y)
    for layer, query in (
        ("move", bayreuth.category_at),
        ("cover", bayreuth.cover_at),
        ("level", bayreuth.level_at),
    ):
        values, on = bayreuth.codes_on_map(layer, x, y)
        assert np.array_equal(on, inside)
        assert np.array_equal(values[inside], np.asarray(query(x[inside], y[inside])).astype(int))
        assert (values[~inside] == -1).all()
    assert len(np.unique(bayreuth.codes_on_map("move", x, y)[0])) > 2


def test_footprint_classes_equal_the_point_by_point_version_on_real_ground(bayreuth) -> None:
    from engine.movement import _lattice, _middle_column, footprint_classes
    from engine.rulesets.two_mm_earth.profiles import load_army
    from engine.state import Formation

    inf = load_army(str(DATA / "rules_red.yaml")).profile("inf")
    rng = np.random.default_rng(2)
    minx, miny, maxx, maxy = bayreuth.bounds
    seen: set[tuple[int, ...]] = set()
    offs = 0
    for k in range(300):
        n = int(rng.integers(1, 7))
        fr = int(rng.integers(1, n + 1))
        f = Formation.build(
            f"f{k}",
            "red",
            "F",
            inf,
            n_bases=n,
            frontage=fr,
            cx=float(rng.uniform(minx - 50, maxx + 50)),
            cy=float(rng.uniform(miny - 50, maxy + 50)),
            facing=float(rng.uniform(0, 360)),
            **BASE_SIZE,
        )
        if n > 2 and k % 3 == 0:
            f.bases[1].status = BaseStatus.DEAD  # a gap in the lattice
        pose = (
            None
            if k % 2
            else (
                f.cx + float(rng.uniform(-80, 80)),
                f.cy + float(rng.uniform(-80, 80)),
                f.facing + float(rng.uniform(-90, 90)),
            )
        )
        for layer in ("move", "cover"):
            want, off, allp = movement_ref.footprint_classes(bayreuth, f, layer, pose)
            assert footprint_classes(bayreuth, f, layer, pose) == (want, off)
            got = np.vstack([_lattice(f, pose), _middle_column(f, pose)])
            assert np.array_equal(got, allp)  # the very same sample points
            seen.add(tuple(want))
            offs += off
    assert len(seen) > 2 and offs > 0  # several class sets, and footprints off the map


@pytest.mark.parametrize("seed", range(4))
def test_distance_many_equals_distance_row_by_row(seed: int) -> None:
    rng = np.random.default_rng(10 + seed)
    a = _random_boxes(rng, 40)
    b = np.vstack([_random_boxes(rng, 50), a[:5]])  # overlapping, touching and far apart
    got = distance_many(a, b)
    for i in range(a.shape[0]):
        row = distance(OBB(*(float(v) for v in a[i])), b)
        assert np.array_equal(got[i], row)
    assert (got == 0).any() and (got > 0).any()


@pytest.mark.parametrize("seed", range(4))
def test_separation_many_equals_separation_row_by_row(seed: int) -> None:
    rng = np.random.default_rng(20 + seed)
    a = _random_boxes(rng, 40)
    b = _random_boxes(rng, 50)
    got = separation_many(a, b)
    for i in range(a.shape[0]):
        assert np.array_equal(got[i], separation(OBB(*(float(v) for v in a[i])), b))


@pytest.mark.parametrize("seed", range(4))
def test_separation_from_equals_separation(seed: int) -> None:
    rng = np.random.default_rng(30 + seed)
    others = _random_boxes(rng, 30)
    sep = SeparationFrom(others)
    movers = _random_boxes(rng, 60)
    movers[30:, 4] = movers[0, 4]  # one facing many times, as a straight sweep asks
    for row in movers:
        a = OBB(*(float(v) for v in row))
        assert np.array_equal(sep(a), separation(a, others))
    assert SeparationFrom(np.zeros((0, 5)))(OBB(0.0, 0.0, 1.0, 1.0, 0.0)).shape == (0,)


@pytest.mark.parametrize("seed", range(6))
def test_few_separation_equals_separation(seed: int) -> None:
    # the sweep's plain-float separation (1-20 rectangles), gaps and the clash it reports
    rng = np.random.default_rng(40 + seed)
    for n in range(0, 21):
        others = _random_boxes(rng, n)
        others[: n // 3, :2] = rng.uniform(-30, 30, (n // 3, 2))  # crowd some near the movers
        few = FewSeparation(others)
        movers = _random_boxes(rng, 40)
        movers[20:, 4] = movers[0, 4]  # one facing many times, as a straight sweep asks
        movers[:10, :2] = rng.uniform(-30, 30, (10, 2))
        for row in movers:
            a = OBB(*(float(v) for v in row))
            want = separation(a, others)
            assert np.array_equal(np.array(few.gaps(a), dtype=float).reshape(-1), want)
            bad = np.flatnonzero(want < -1e-6)
            first = None if bad.size == 0 else int(bad[np.argmin(want[bad])])
            assert few.first_overlap(a) == first


@pytest.mark.parametrize("seed", range(4))
def test_first_contact_is_the_exact_time_of_impact(seed: int) -> None:
    # engine.movement._sweep stops a straight move at FewSeparation.first_contact: at that
    # fraction the mover touches what it met (gap 0) and overlaps nothing; sampled finely, no
    # pose before it overlaps anything; a move it lets through overlaps nothing at any sample
    rng = np.random.default_rng(90 + seed)
    for n in range(1, 10):
        others = _random_boxes(rng, n)
        others[:, :2] = rng.uniform(-150, 150, (n, 2))
        few = FewSeparation(others)
        for _ in range(30):
            a = OBB(
                *(float(v) for v in rng.uniform(-200, 200, 2)),
                float(rng.uniform(5, 60)),
                float(rng.uniform(5, 30)),
                float(rng.uniform(0, 360)),
            )
            if min(few.gaps(a)) < -1e-6:
                continue  # _sweep ignores what overlaps at the start
            dx, dy = (float(v) for v in rng.uniform(-300, 300, 2))
            ts = np.linspace(0.0, 1.0, 4001)
            poses = np.column_stack(
                [
                    a.cx + dx * ts,
                    a.cy + dy * ts,
                    np.full_like(ts, a.hw),
                    np.full_like(ts, a.hd),
                    np.full_like(ts, a.facing),
                ]
            )
            over = np.flatnonzero((separation_many(poses, others) < -1e-6).any(axis=1))
            hit = few.first_contact(a, dx, dy)
            if hit is None:
                assert over.size == 0
                continue
            t, k = hit
            assert 0.0 <= t <= 1.0
            at = OBB(a.cx + dx * t, a.cy + dy * t, a.hw, a.hd, a.facing)
            gaps = separation(at, others)
            assert gaps.min() >= -1e-6
            if t > 0:
                assert abs(gaps[k]) < 1e-6
            if over.size:
                assert t <= ts[over[0]]


@pytest.mark.parametrize("seed", range(4))
def test_sweep_first_overlapping_step_equals_separation_many(seed: int) -> None:
    # engine.movement._sweep tests a path's first step with FewSeparation and the rest with
    # separation_many: any step's verdict is the same either way
    rng = np.random.default_rng(70 + seed)
    for n in range(1, 16):
        others = _random_boxes(rng, n)
        others[:, :2] = rng.uniform(-120, 120, (n, 2))
        few = FewSeparation(others)
        for _ in range(20):
            start = rng.uniform(-200, 200, 2)
            end = rng.uniform(-200, 200, 2)
            steps = int(rng.integers(1, 30))
            ts = np.arange(1, steps + 1) / steps
            poses = np.column_stack(
                [
                    start[0] + (end[0] - start[0]) * ts,
                    start[1] + (end[1] - start[1]) * ts,
                    np.full(steps, rng.uniform(1, 60)),
                    np.full(steps, rng.uniform(1, 30)),
                    rng.uniform(0, 360, steps),
                ]
            )
            rows = np.flatnonzero((separation_many(poses, others) < -1e-6).any(axis=1))
            want = int(rows[0]) if rows.size else None
            got = next(
                (i for i, p in enumerate(poses.tolist()) if few.first_overlap(p) is not None), None
            )
            assert got == want


def test_disp_vectors_without_a_turn_equal_the_rotation_arithmetic() -> None:
    """movement._disp_vectors' no-turn shortcut gives the very floats (signs of zero too) of the
    corner-by-corner rotation it skips."""
    import math
    import random

    from engine.movement import _corner_offsets, _disp_vectors

    def rotated(box: tuple[float, float, float, float], th: float, dth: float) -> list:
        f0, r0, f1, r1 = forward(th), right(th), forward(th + dth), right(th + dth)
        return [
            (
                a * r1[0] + l_ * f1[0] - (a * r0[0] + l_ * f0[0]),
                a * r1[1] + l_ * f1[1] - (a * r0[1] + l_ * f0[1]),
            )
            for a, l_ in _corner_offsets(box)
        ]

    rnd = random.Random(7)
    for _ in range(5000):
        box = (rnd.uniform(-50, 50), rnd.uniform(-50, 50), rnd.uniform(0, 100), rnd.uniform(0, 50))
        th = rnd.choice([0.0, -0.0, 90.0, 180.0, rnd.uniform(-720.0, 720.0)])
        dth = rnd.choice([0.0, -0.0, rnd.uniform(-180.0, 180.0)])
        got = [v for p in _disp_vectors(box, th, dth) for v in p]
        want = [v for p in rotated(box, th, dth) for v in p]
        assert got == want
        assert [math.copysign(1.0, v) for v in got] == [math.copysign(1.0, v) for v in want]


def test_touching_rectangles_pass_the_centre_distance_prefilter() -> None:
    """bound._touching_enemy skips rectangles whose centres are farther than
    sqrt 2 (CONTACT_M + both half diagonals + 1 m): none of those may touch by separation()."""
    import math

    from engine.geometry import CONTACT_M

    rng = np.random.default_rng(11)
    others = np.column_stack(
        [
            rng.uniform(-150, 150, 4000),
            rng.uniform(-150, 150, 4000),
            rng.uniform(1, 60, 4000),
            rng.uniform(1, 30, 4000),
            rng.uniform(0, 360, 4000),
        ]
    )
    for _ in range(50):
        a = OBB(
            *(
                float(v)
                for v in (
                    rng.uniform(-20, 20),
                    rng.uniform(-20, 20),
                    rng.uniform(1, 60),
                    rng.uniform(1, 30),
                    rng.uniform(0, 360),
                )
            )
        )
        touch = separation(a, others) <= CONTACT_M
        radii = np.hypot(others[:, 2], others[:, 3])
        reach = (CONTACT_M + math.hypot(a.hw, a.hd) + 1.0 + radii) * math.sqrt(2.0)
        near = np.hypot(others[:, 0] - a.cx, others[:, 1] - a.cy) <= reach
        assert touch.any() and not (touch & ~near).any()
