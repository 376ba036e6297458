"""The sweep's axes by ``math`` equal numpy's bit for bit (3.2 contact, 4.x moves: every overlap
test of a turning move takes a new facing's sine and cosine), or numpy is kept."""

from __future__ import annotations

import math

import numpy as np

from engine import geometry
from engine.geometry import _axes, _math_matches_numpy, _probe_angles, _scalar_axes


def _numpy_axes(facing: float) -> tuple[float, ...]:
    return tuple(float(v) for v in _axes(np.asarray(facing)))


def test_scalar_axes_equal_numpy_bit_for_bit() -> None:
    # bisection facings: a turn of up to 180 degrees from a start facing, halved 8 times
    starts = np.random.default_rng(3).uniform(0.0, 360.0, 60).tolist()
    facings = [
        th + dth * (k / 256.0)
        for th in starts
        for dth in (-180.0, -37.5, 11.25, 90.0)
        for k in range(257)
    ]
    geometry._SCALAR_AXES.clear()
    got = [_scalar_axes(v) for v in facings]
    assert got == [_numpy_axes(v) for v in facings]


def test_probe_rejects_a_sine_off_by_one_ulp() -> None:
    angles = _probe_angles()
    assert len(angles) > 10_000
    assert not _math_matches_numpy(angles, sin=lambda r: math.nextafter(math.sin(r), 2.0))
    assert not _math_matches_numpy([])
