"""The routing parts on windows of the real Bayreuth triple-cost mask (OSM forest, SRTM): the
balanced quadtree, the exact stretch cost, and smoothing never raising a cost."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenario_builder.routing import CostGrid, triple_mask
from scenario_builder.routing.quadtree import OFF, Quadtree
from scenario_builder.routing.smoothing import relax_bends, string_pull


@pytest.fixture(scope="module")
def mask(built_bayreuth) -> np.ndarray:
    bf = built_bayreuth.battlefield
    return triple_mask(bf.layer("move"), bf.layer("cover"), bf.layer("blocks_sight"))


windows = st.tuples(
    st.integers(0, 200),
    st.integers(0, 200),
    st.integers(8, 120),
    st.integers(8, 120),
    st.sampled_from([4, 8, 16, 32]),
)
slow_fixture = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@slow_fixture
@given(windows)
def test_quadtree_blocks_tile_are_uniform_and_balanced(mask, win) -> None:
    r0, c0, h, w, max_size = win
    cls = mask[r0 : r0 + h, c0 : c0 + w].astype(np.int8)
    qt = Quadtree.build(cls, max_size=max_size)
    pr, pc = qt.leaf_of.shape
    assert (qt.size**2).sum() == pr * pc  # the blocks tile the padded grid ...
    assert (qt.leaf_of >= 0).all()
    padded = np.full((pr, pc), OFF, dtype=np.int8)
    padded[: cls.shape[0], : cls.shape[1]] = cls
    for i in range(len(qt.size)):  # ... each of one class
        r, c, s = int(qt.row[i]), int(qt.col[i]), int(qt.size[i])
        block = padded[r : r + s, c : c + s]
        assert (block == qt.cls[i]).all()
        assert (qt.leaf_of[r : r + s, c : c + s] == i).all()
    # Balanced: across every side or corner, neighbouring blocks differ at most 2x in size.
    size = qt.size[qt.leaf_of]
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        i0, i1, j0, j1 = max(0, -dr), pr - max(0, dr), max(0, -dc), pc - max(0, dc)
        a, b = size[i0:i1, j0:j1], size[i0 + dr : i1 + dr, j0 + dc : j1 + dc]
        assert (np.maximum(a, b) <= 2 * np.minimum(a, b)).all()


@slow_fixture
@given(windows, st.integers(0, 2**31))
def test_exact_stretch_matches_fine_sampling(mask, win, seed) -> None:
    r0, c0, h, w, _ = win
    sub = mask[r0 : r0 + h, c0 : c0 + w]
    grid = CostGrid(sub, res=25.0, x0=0.0, y0=h * 25.0)
    rng = np.random.default_rng(seed)
    ends = rng.random((20, 4)) * [w, h, w, h]
    exact = grid.stretch_many(*ends.T)
    for (ua, va, ub, vb), got in zip(ends, exact, strict=True):
        assert got == pytest.approx(grid.stretch(ua, va, ub, vb)[0], rel=1e-9, abs=1e-9)
        t = (np.arange(20000) + 0.5) / 20000  # midpoint rule on a fine sample
        u, v = ua + (ub - ua) * t, va + (vb - va) * t
        f = np.where(sub[v.astype(int).clip(0, h - 1), u.astype(int).clip(0, w - 1)], 3.0, 1.0)
        approx = f.mean() * math.hypot(ub - ua, vb - va)
        assert got == pytest.approx(approx, rel=2e-3, abs=1e-3)


def test_many_stretches_cost_as_each_alone_on_corners_and_grid_lines(mask) -> None:
    """The vectorised cost equals the one-stretch cost where the cuts coincide: between grid
    corners (the graph's vertices), along grid lines (the edge of a wood counts normal) and
    across a corner; and a stretch costs the same in any company (its pieces are its own)."""
    rows, cols = mask.shape
    grid = CostGrid(mask, res=25.0, x0=0.0, y0=rows * 25.0)
    rng = np.random.default_rng(11)
    corners = rng.integers(0, [cols + 1, rows + 1, cols + 1, rows + 1], (300, 4)).astype(float)
    along = corners.copy()
    along[:100, 2] = along[:100, 0]  # vertical on a grid line
    along[100:200, 3] = along[100:200, 1]  # horizontal on a grid line
    along[200:, 2:] = along[200:, :2] + rng.integers(
        -9, 10, (100, 1)
    )  # 45 degrees, corner to corner
    halves = corners + rng.choice([0.0, 0.5], corners.shape)
    for ends in (corners, along, np.clip(halves, 0, [cols, rows, cols, rows])):
        got = grid.stretch_many(*ends.T)
        want = [grid.stretch(*e)[0] for e in ends]
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
        alone = [grid.stretch_many(*e[:, None])[0] for e in ends[:20]]
        assert got[:20].tolist() == alone


def test_9_1_stretch_along_a_wood_edge_counts_normal(mask) -> None:
    r, c = np.argwhere(mask[:, :-1] & ~mask[:, 1:])[0]  # a wood cell with open ground east
    grid = CostGrid(mask, res=25.0, x0=0.0, y0=mask.shape[0] * 25.0)
    u = float(c + 1)  # the grid line between them
    cost, triple, length = grid.stretch(u, float(r), u, float(r + 1))
    assert (cost, triple, length) == (1.0, 0.0, 1.0)
    assert grid.stretch(u - 0.5, r + 0.5, u - 0.5, r + 0.5 + 1e-3)[0] == pytest.approx(3e-3)


def test_stretch_off_the_grid_is_infinite(mask) -> None:
    grid = CostGrid(mask, res=25.0, x0=0.0, y0=mask.shape[0] * 25.0)
    assert math.isinf(grid.stretch(1.0, 1.0, -3.0, 2.0)[0])
    assert math.isinf(
        grid.stretch_many(np.array([1.0]), np.array([1.0]), np.array([400.0]), np.array([2.0]))[0]
    )


@slow_fixture
@given(st.integers(0, 2**31))
def test_smoothing_never_raises_the_cost(mask, seed) -> None:
    grid = CostGrid(mask, res=25.0, x0=0.0, y0=mask.shape[0] * 25.0)
    rng = np.random.default_rng(seed)
    rows, cols = mask.shape
    walk = np.cumsum(rng.normal(0, 3, (12, 2)), axis=0) + np.array([cols / 2, rows / 2])
    pts = [(float(u), float(v)) for u, v in np.clip(walk, 0, [cols - 1, rows - 1])]
    before = grid.path_cost(pts)[0]
    pulled = string_pull(pts, grid)
    relaxed = relax_bends(pulled, grid)
    assert pulled[0] == relaxed[0] == pts[0] and pulled[-1] == relaxed[-1] == pts[-1]
    assert grid.path_cost(pulled)[0] <= before + 1e-9
    assert grid.path_cost(relaxed)[0] <= grid.path_cost(pulled)[0] + 1e-9
