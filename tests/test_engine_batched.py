"""The engine's batched geometry gives exactly (bit for bit) what the one-at-a-time functions give.

The speed-ups of the engine replace loops of small numpy calls by one call over many rectangles or
points; battles must not change (tests/known_answers), so each batched function is checked here
against the function it replaces on random rectangles, element by element with ``==``.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.geometry import OBB, obb_array, segment_hits, segment_hits_many


def _random_boxes(rng: np.random.Generator, n: int) -> np.ndarray:
    # facings include the axis-parallel ones (parallel slabs) as well as arbitrary ones
    facing = np.where(rng.random(n) < 0.3, rng.choice([0.0, 90.0, 180.0, 270.0], n),
                      rng.uniform(0.0, 360.0, n))  # fmt: skip
    return np.column_stack([rng.uniform(-300, 300, n), rng.uniform(-300, 300, n),
                            rng.uniform(1, 80, n), rng.uniform(1, 40, n), facing])  # fmt: skip


@pytest.mark.parametrize("seed", range(5))
def test_segment_hits_many_equals_segment_hits(seed: int) -> None:
    rng = np.random.default_rng(seed)
    boxes = _random_boxes(rng, 60)
    p = (float(rng.uniform(-300, 300)), float(rng.uniform(-300, 300)))
    qs = np.column_stack([rng.uniform(-300, 300, 40), rng.uniform(-300, 300, 40)])
    qs[:5] = boxes[:5, :2]  # segments ending at rectangle centres, as sight draws them
    qs[5] = p  # a zero-length segment
    got = segment_hits_many(p, qs, boxes)
    for k, q in enumerate(qs):
        want = segment_hits(p, (float(q[0]), float(q[1])), boxes)
        assert np.array_equal(got[k], want)
    assert got.any() and not got.all()  # the cases exercise both answers


def test_segment_hits_many_empty() -> None:
    boxes = obb_array([OBB(0.0, 0.0, 5.0, 5.0, 0.0)])
    assert segment_hits_many((0.0, 0.0), np.zeros((0, 2)), boxes).shape == (0, 1)
