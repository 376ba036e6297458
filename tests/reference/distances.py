"""Reference for the pair-by-pair gap kernel (``engine.geometry.distance_pairs`` /
``distance_rows``): the gaps between rectangles that 3.2 contact, 6.2 hearing and the rulesets'
ranges read. See ``tests/reference/__init__.py`` for the rule it follows."""

from __future__ import annotations

import numpy as np

from engine.geometry import _axes, separation_pairs


def distance_pairs(a: np.ndarray, b: np.ndarray, ca: np.ndarray) -> np.ndarray:
    """Pins ``engine.geometry.distance_pairs`` / ``distance_rows`` (the gap between two rectangles,
    0 where they overlap: 3.2 contact, 6.2 hearing, ranges): as it was before the cheaper form
    (eight contiguous corner rows, ``hypot`` only at each pair's least candidates), verbatim.
    """
    fx, fy, rx, ry = _axes(b[:, 4])
    dx = ca[:, :, 0].T - b[None, :, 0]  # (4, P)
    dy = ca[:, :, 1].T - b[None, :, 1]
    d1 = np.hypot(
        np.maximum(np.abs(dx * rx + dy * ry) - b[:, 2], 0.0),
        np.maximum(np.abs(dx * fx + dy * fy) - b[:, 3], 0.0),
    )
    sa = np.array([[-1], [1], [1], [-1]])
    sb = np.array([[1], [1], [-1], [-1]])
    px = b[:, 0] + sa * b[:, 2] * rx + sb * b[:, 3] * fx  # (4, P)
    py = b[:, 1] + sa * b[:, 2] * ry + sb * b[:, 3] * fy
    afx, afy, arx, ary = _axes(a[:, 4])
    ex = px - a[:, 0]
    ey = py - a[:, 1]
    d2 = np.hypot(
        np.maximum(np.abs(ex * arx + ey * ary) - a[:, 2], 0.0),
        np.maximum(np.abs(ex * afx + ey * afy) - a[:, 3], 0.0),
    )
    best = np.minimum(d1.min(axis=0), d2.min(axis=0))
    best[separation_pairs(a, b) < 0] = 0.0
    return best
