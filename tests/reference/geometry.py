"""References for the rectangle geometry (``engine.geometry``): the slab test of a segment
against rectangles (6.2 troops in the way of a sight line) and the time of first contact of a
straight move (6.1), as they were before being batched or unrolled. See
``tests/reference/__init__.py`` for the rule they follow."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.geometry import FewSeparation, _axes, _scalar_axes


def segment_hits(p: tuple[float, float], q: tuple[float, float], others: np.ndarray) -> np.ndarray:
    """Pins ``engine.geometry.segment_hits`` / ``segment_hits_pairs`` / ``segment_hits_sparse`` (6.2
    troops in the way of a sight line): the slab test one segment at a time, as the engine first
    wrote it.
    """
    fx, fy, rx, ry = _axes(others[:, 4])
    px, py = p[0] - others[:, 0], p[1] - others[:, 1]
    dx, dy = q[0] - p[0], q[1] - p[1]
    t0 = np.zeros(len(others))
    t1 = np.ones(len(others))
    ok = np.ones(len(others), dtype=bool)
    for ux, uy, h in ((rx, ry, others[:, 2]), (fx, fy, others[:, 3])):
        s = px * ux + py * uy
        v = dx * ux + dy * uy
        par = np.abs(v) < 1e-12
        ok &= ~(par & (np.abs(s) > h))
        with np.errstate(divide="ignore", invalid="ignore"):
            ta = (-h - s) / v
            tb = (h - s) / v
        lo = np.where(par, -np.inf, np.minimum(ta, tb))
        hi = np.where(par, np.inf, np.maximum(ta, tb))
        t0 = np.maximum(t0, lo)
        t1 = np.minimum(t1, hi)
    return ok & (t0 <= t1)


def first_contact(
    few: FewSeparation, a: Any, dx: float, dy: float, tol: float = 1e-6
) -> tuple[float, int] | None:
    """Pins ``engine.geometry.FewSeparation.first_contact`` (6.1 a straight move's exact time of
    first contact with a handful of rectangles): the four separating axes in a loop, before they
    were written out (main at d8a34b8)."""
    cx, cy, ahw, ahd, facing = a
    afx, afy, arx, ary = _scalar_axes(facing)
    ra0 = ahw * abs(afx * arx + afy * ary) + ahd * abs(afx * afx + afy * afy)
    ra1 = ahw * abs(arx * arx + ary * ary) + ahd * abs(arx * afx + ary * afy)
    found: tuple[float, int] | None = None
    for k, ((ox, oy, _hw, _hd, bfx, bfy, brx, bry, o0, o1), (rb0, rb1)) in enumerate(
        zip(few._rows, few._rb_along(facing, afx, afy, arx, ary))
    ):
        px = ox - cx
        py = oy - cy
        rf = ahw * abs(bfx * arx + bfy * ary) + ahd * abs(bfx * afx + bfy * afy) + o0
        rr = ahw * abs(brx * arx + bry * ary) + ahd * abs(brx * afx + bry * afy) + o1
        lo_tol, hi_tol, lo_touch = -math.inf, math.inf, -math.inf
        for ux, uy, r in (
            (afx, afy, ra0 + rb0),
            (arx, ary, ra1 + rb1),
            (bfx, bfy, rf),
            (brx, bry, rr),
        ):
            p = ux * px + uy * py
            v = -(ux * dx + uy * dy)
            if v == 0.0:
                if abs(p) >= r - tol:
                    lo_tol, hi_tol = math.inf, -math.inf  # apart along this axis for good
                    break
                continue
            t1, t2 = (-(r - tol) - p) / v, ((r - tol) - p) / v
            if t1 > t2:
                t1, t2 = t2, t1
            lo_tol = max(lo_tol, t1)
            hi_tol = min(hi_tol, t2)
            t1, t2 = (-r - p) / v, (r - p) / v
            lo_touch = max(lo_touch, min(t1, t2))
        if lo_tol < hi_tol and hi_tol > 0.0 and lo_tol < 1.0:
            t = max(0.0, lo_touch)
            if found is None or t < found[0]:
                found = (t, k)
    return found
