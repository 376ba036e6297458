"""Plane geometry of bases and formations: oriented rectangles in battlefield metres.

Facing is in degrees clockwise from grid north (the scenario convention), so a facing of 0 moves
toward +y and 90 toward +x. A rectangle (:class:`OBB`) has a centre, a half width across its front
(``hw``), a half depth along its facing (``hd``) and the facing. The separating-axis tests are
vectorised over many rectangles with numpy, because movement checks one formation against all
others many times per bound.

>>> fx, fy = forward(90.0)
>>> round(fx, 6), round(fy, 6)
(1.0, 0.0)
>>> bearing(0.0, 0.0, 10.0, 10.0)
45.0
>>> a = OBB(0.0, 0.0, 20.0, 10.0, 0.0)
>>> b = OBB(0.0, 20.0, 20.0, 10.0, 0.0)         # directly in front, edges touching
>>> float(separation(a, obb_array([b]))[0])
0.0
>>> bool(overlaps(a, obb_array([OBB(0.0, 19.0, 20.0, 10.0, 0.0)]))[0])
True
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "OBB",
    "SeparationFrom",
    "angle_diff",
    "bearing",
    "corners",
    "corners_many",
    "distance",
    "distance_many",
    "distance_pairs",
    "distance_rows",
    "forward",
    "gap",
    "obb_array",
    "overlaps",
    "segment_hits",
    "segment_hits_pairs",
    "segment_hits_sparse",
    "separation",
    "separation_many",
    "separation_pairs",
]

#: two rectangles closer than this count as in base-to-base contact (3.2)
CONTACT_M = 1.0


class OBB(NamedTuple):
    """An oriented rectangle: centre, half width across the front, half depth, facing (deg)."""

    cx: float
    cy: float
    hw: float
    hd: float
    facing: float


def forward(facing: float) -> tuple[float, float]:
    """Unit vector of a facing (degrees clockwise from north)."""
    r = math.radians(facing)
    return (math.sin(r), math.cos(r))


def right(facing: float) -> tuple[float, float]:
    """Unit vector to the right of a facing."""
    r = math.radians(facing)
    return (math.cos(r), -math.sin(r))


def bearing(x0: float, y0: float, x1: float, y1: float) -> float:
    """Bearing from (x0, y0) to (x1, y1), degrees clockwise from north in [0, 360)."""
    return math.degrees(math.atan2(x1 - x0, y1 - y0)) % 360.0


def angle_diff(a: float, b: float) -> float:
    """Smallest absolute difference between two bearings, degrees in [0, 180].

    >>> angle_diff(350.0, 10.0), angle_diff(90.0, 270.0)
    (20.0, 180.0)
    """
    d = abs(a - b) % 360.0
    return 360.0 - d if d > 180.0 else d


def corners(o: OBB) -> np.ndarray:
    """The four corners (4, 2): front-left, front-right, rear-right, rear-left."""
    fx, fy = forward(o.facing)
    rx, ry = right(o.facing)
    out = np.empty((4, 2))
    for i, (sa, sb) in enumerate(((-1, 1), (1, 1), (1, -1), (-1, -1))):
        out[i, 0] = o.cx + sa * o.hw * rx + sb * o.hd * fx
        out[i, 1] = o.cy + sa * o.hw * ry + sb * o.hd * fy
    return out


def corners_many(arr: np.ndarray) -> np.ndarray:
    """:func:`corners` of every rectangle of ``arr`` ((N, 5)) at once: (N, 4, 2), equal bit for
    bit. The axes of each distinct facing are :func:`forward` and :func:`right`'s (Python's
    ``math``: a battle has few facings), and the sums are the same IEEE operations in the same
    order, element by element.

    >>> arr = obb_array([OBB(0.0, 0.0, 20.0, 10.0, 0.0), OBB(5.0, 7.0, 20.0, 10.0, 33.0)])
    >>> bool((corners_many(arr) == np.array([corners(OBB(*r)) for r in arr.tolist()])).all())
    True
    """
    n = arr.shape[0]
    if n == 0:
        return np.zeros((0, 4, 2))
    facings, inv = np.unique(arr[:, 4], return_inverse=True)
    ax = np.array([(*forward(v), *right(v)) for v in facings.tolist()])[inv.reshape(-1)]
    fx, fy, rx, ry = ax[:, 0], ax[:, 1], ax[:, 2], ax[:, 3]
    cx, cy, hw, hd = arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3]
    out = np.empty((n, 4, 2))
    for i, (sa, sb) in enumerate(((-1, 1), (1, 1), (1, -1), (-1, -1))):
        out[:, i, 0] = cx + sa * hw * rx + sb * hd * fx
        out[:, i, 1] = cy + sa * hw * ry + sb * hd * fy
    return out


def obb_array(obbs: list[OBB] | tuple[OBB, ...]) -> np.ndarray:
    """Stack rectangles into an (N, 5) array ``cx, cy, hw, hd, facing``."""
    if not obbs:
        return np.zeros((0, 5))
    return np.asarray(obbs, dtype=float).reshape(-1, 5)


def _axes(facing: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r = np.radians(facing)
    s, c = np.sin(r), np.cos(r)
    # forward (s, c), right (c, -s)
    return s, c, c, -s


def separation(a: OBB, others: np.ndarray) -> np.ndarray:
    """Largest gap along the separating axes between ``a`` and each of ``others`` (N,).

    Negative means the rectangles overlap (by that much along the best axis); 0 is touching. The
    value is a lower bound of the true distance (exact when edges are parallel).
    """
    if others.shape[0] == 0:
        return np.zeros(0)
    if others.shape[0] <= _FEW_SEPARATION:
        return np.array(_separation_few(a, others))
    afx, afy, arx, ary = _scalar_axes(a.facing)
    bfx, bfy, brx, bry = _axes(others[:, 4])
    dx = others[:, 0] - a.cx
    dy = others[:, 1] - a.cy
    bhw, bhd = others[:, 2], others[:, 3]
    best: Any = None
    # axes of a
    for ux, uy in ((afx, afy), (arx, ary)):
        ra = a.hw * abs(ux * arx + uy * ary) + a.hd * abs(ux * afx + uy * afy)
        rb = bhw * np.abs(ux * brx + uy * bry) + bhd * np.abs(ux * bfx + uy * bfy)
        gap = np.abs(ux * dx + uy * dy) - ra - rb
        best = gap if best is None else np.maximum(best, gap)
    # axes of each b
    for vx, vy in ((bfx, bfy), (brx, bry)):
        rab = a.hw * np.abs(vx * arx + vy * ary) + a.hd * np.abs(vx * afx + vy * afy)
        rb = bhw * np.abs(vx * brx + vy * bry) + bhd * np.abs(vx * bfx + vy * bfy)
        best = np.maximum(best, np.abs(vx * dx + vy * dy) - rab - rb)
    return best


#: up to this many others :func:`separation` works in plain floats (:func:`_separation_few`):
#: below it the ~40 numpy calls of the vectorised form cost more than the sums (measured: one
#: rectangle against one, 54 us in numpy, 5 us in floats; 24 against one, 57 and 39 us)
_FEW_SEPARATION = 24


def _separation_few(a: Any, others: np.ndarray) -> list[float]:
    """``separation(a, others).tolist()`` in plain float arithmetic, for a few ``others``.

    Each gap is the same sequence of IEEE operations as the vectorised form (numpy's elementwise
    ``+ - * abs maximum`` round exactly as Python's), and the sines and cosines are ``_axes`` of
    the same column, so every value is equal bit for bit (tests/test_spatial.py checks it)."""
    cx, cy, ahw, ahd, facing = a
    frame = _separation_frame(ahw, ahd, facing)
    bfx_, bfy_, brx_, bry_ = _axes(others[:, 4])
    return [
        _separation_floats(frame, ox - cx, oy - cy, bhw, bhd, bfx, bfy, brx, bry)
        for (ox, oy, bhw, bhd, _f), bfx, bfy, brx, bry in zip(
            others.tolist(), bfx_.tolist(), bfy_.tolist(), brx_.tolist(), bry_.tolist()
        )
    ]


def _separation_frame(
    ahw: float, ahd: float, facing: float
) -> tuple[float, float, float, float, float, float, float, float]:
    """``a``'s part of :func:`_separation_floats`' sums, the same for every other: its half
    sizes, axes and its extents along its own two axes."""
    afx, afy, arx, ary = _scalar_axes(facing)
    ra0 = ahw * abs(afx * arx + afy * ary) + ahd * abs(afx * afx + afy * afy)
    ra1 = ahw * abs(arx * arx + ary * ary) + ahd * abs(arx * afx + ary * afy)
    return (ahw, ahd, afx, afy, arx, ary, ra0, ra1)


def _separation_floats(
    frame: tuple[float, float, float, float, float, float, float, float],
    dx: float,
    dy: float,
    bhw: float,
    bhd: float,
    bfx: float,
    bfy: float,
    brx: float,
    bry: float,
) -> float:
    """One other's gap along the four separating axes, ``dx, dy`` its centre from ``a``'s;
    ``frame``: :func:`_separation_frame`. The vectorised form's operations in its order
    (:func:`_separation_few`)."""
    ahw, ahd, afx, afy, arx, ary, ra0, ra1 = frame
    # a's two axes
    rb = bhw * abs(afx * brx + afy * bry) + bhd * abs(afx * bfx + afy * bfy)
    best = abs(afx * dx + afy * dy) - ra0 - rb
    rb = bhw * abs(arx * brx + ary * bry) + bhd * abs(arx * bfx + ary * bfy)
    g = abs(arx * dx + ary * dy) - ra1 - rb
    if g > best:
        best = g
    # the other's two axes
    ra = ahw * abs(bfx * arx + bfy * ary) + ahd * abs(bfx * afx + bfy * afy)
    rb = bhw * abs(bfx * brx + bfy * bry) + bhd * abs(bfx * bfx + bfy * bfy)
    g = abs(bfx * dx + bfy * dy) - ra - rb
    if g > best:
        best = g
    ra = ahw * abs(brx * arx + bry * ary) + ahd * abs(brx * afx + bry * afy)
    rb = bhw * abs(brx * brx + bry * bry) + bhd * abs(brx * bfx + bry * bfy)
    g = abs(brx * dx + bry * dy) - ra - rb
    if g > best:
        best = g
    return best


class SeparationFrom:
    """:func:`separation` of many rectangles against the same ``others``: what depends only on
    ``others`` (their axes, their extents along their own axes, along each facing met) is worked
    out once; the arithmetic of each element is that of :func:`separation`.

    >>> others = obb_array([OBB(0.0, 20.0, 20.0, 10.0, 0.0), OBB(0.0, 60.0, 20.0, 10.0, 0.0)])
    >>> sep = SeparationFrom(others)
    >>> sep(OBB(0.0, 0.0, 20.0, 10.0, 0.0)).tolist() == separation(OBB(0.0, 0.0, 20.0, 10.0, 0.0),
    ...                                                            others).tolist()
    True
    """

    def __init__(self, others: np.ndarray) -> None:
        self.others = others
        if others.shape[0] == 0:
            return
        self.b = bfx, bfy, brx, bry = _axes(others[:, 4])
        self.bhw, self.bhd = bhw, bhd = others[:, 2], others[:, 3]
        self.rb_own = [
            bhw * np.abs(ux * brx + uy * bry) + bhd * np.abs(ux * bfx + uy * bfy)
            for ux, uy in ((bfx, bfy), (brx, bry))
        ]
        self._rb_along: dict[float, list[np.ndarray]] = {}

    def __call__(self, a: OBB) -> np.ndarray:
        others = self.others
        if others.shape[0] == 0:
            return np.zeros(0)
        afx, afy, arx, ary = _scalar_axes(a.facing)
        bfx, bfy, brx, bry = self.b
        dx = others[:, 0] - a.cx
        dy = others[:, 1] - a.cy
        rbs = self._rb_along.get(a.facing)
        if rbs is None:
            bhw, bhd = self.bhw, self.bhd
            rbs = self._rb_along[a.facing] = [
                bhw * np.abs(ux * brx + uy * bry) + bhd * np.abs(ux * bfx + uy * bfy)
                for ux, uy in ((afx, afy), (arx, ary))
            ]
        best: Any = None
        for (ux, uy), rb in zip(((afx, afy), (arx, ary)), rbs, strict=True):
            ra = a.hw * abs(ux * arx + uy * ary) + a.hd * abs(ux * afx + uy * afy)
            gap = np.abs(ux * dx + uy * dy) - ra - rb
            best = gap if best is None else np.maximum(best, gap)
        for (vx, vy), rb in zip(((bfx, bfy), (brx, bry)), self.rb_own, strict=True):
            rab = a.hw * np.abs(vx * arx + vy * ary) + a.hd * np.abs(vx * afx + vy * afy)
            best = np.maximum(best, np.abs(vx * dx + vy * dy) - rab - rb)
        return best


class FewSeparation:
    """:func:`separation` against a handful of ``others`` (the sweep meets 1-10) in plain float
    arithmetic: for so few rectangles the ~40 numpy calls of one :func:`separation` cost far
    more than the sums themselves. Each gap is the same sequence of IEEE operations as in
    :func:`separation` (numpy's elementwise ``+ - * abs maximum`` round exactly as Python's);
    the sines and cosines are ``_axes`` of the same array, so every value is equal bit for bit.

    >>> others = obb_array([OBB(0.0, 20.0, 20.0, 10.0, 0.0), OBB(0.0, 60.0, 20.0, 10.0, 0.0)])
    >>> a = OBB(0.0, 5.0, 20.0, 10.0, 30.0)
    >>> FewSeparation(others).gaps(a) == separation(a, others).tolist()
    True
    >>> few = FewSeparation(others)
    >>> few.first_overlap(a), few.first_overlap(OBB(0.0, -20.0, 20.0, 10.0, 0.0))
    (0, None)
    """

    __slots__ = ("_along", "_rows")

    def __init__(self, others: np.ndarray) -> None:
        if others.shape[0] == 0:
            self._rows: list[tuple[float, ...]] = []
        else:
            bfx, bfy, brx, bry = _axes(others[:, 4])
            bhw, bhd = others[:, 2], others[:, 3]
            own = [
                bhw * np.abs(ux * brx + uy * bry) + bhd * np.abs(ux * bfx + uy * bfy)
                for ux, uy in ((bfx, bfy), (brx, bry))
            ]
            self._rows = list(
                zip(
                    others[:, 0].tolist(),
                    others[:, 1].tolist(),
                    bhw.tolist(),
                    bhd.tolist(),
                    bfx.tolist(),
                    bfy.tolist(),
                    brx.tolist(),
                    bry.tolist(),
                    own[0].tolist(),
                    own[1].tolist(),
                )
            )
        self._along: dict[float, list[tuple[float, float]]] = {}

    @classmethod
    def of_boxes(cls, boxes: list[list[float]]) -> FewSeparation:
        """``FewSeparation(np.array(boxes))`` without numpy, for rows already in Python floats:
        the axes by :func:`_scalar_axes` (``_axes``'s values, kept by facing) and the same sums.

        >>> rows = [[0.0, 20.0, 20.0, 10.0, 0.0], [5.0, 60.0, 20.0, 10.0, 33.0]]
        >>> FewSeparation.of_boxes(rows)._rows == FewSeparation(np.array(rows))._rows
        True
        """
        few = cls.__new__(cls)
        rows: list[tuple[float, ...]] = []
        for cx, cy, bhw, bhd, facing in boxes:
            bfx, bfy, brx, bry = _scalar_axes(facing)
            own0 = bhw * abs(bfx * brx + bfy * bry) + bhd * abs(bfx * bfx + bfy * bfy)
            own1 = bhw * abs(brx * brx + bry * bry) + bhd * abs(brx * bfx + bry * bfy)
            rows.append((cx, cy, bhw, bhd, bfx, bfy, brx, bry, own0, own1))
        few._rows = rows
        few._along = {}
        return few

    @classmethod
    def of_boxes_upto(
        cls, boxes: list[list[float]], a: Any, limit: float
    ) -> tuple[FewSeparation, list[float]]:
        """``(few, few.gaps_upto(a, limit))`` for ``few = of_boxes(boxes)`` in one pass over
        the rows (the same sums in the same order: the same rows, extents and gaps, bit for
        bit; the extents along ``a``'s axes kept, as :meth:`gaps_upto` keeps them).

        >>> rows = [[0.0, 20.0, 20.0, 10.0, 0.0], [5.0, 60.0, 20.0, 10.0, 33.0]]
        >>> a = OBB(0.0, -5.0, 20.0, 10.0, 12.0)
        >>> few, gaps = FewSeparation.of_boxes_upto(rows, a, 15.0)
        >>> old = FewSeparation.of_boxes(rows)
        >>> (few._rows, gaps, few._along) == (old._rows, old.gaps_upto(a, 15.0), old._along)
        True
        """
        cx, cy, ahw, ahd, facing = a
        afx, afy, arx, ary = _scalar_axes(facing)
        ra0 = ahw * abs(afx * arx + afy * ary) + ahd * abs(afx * afx + afy * afy)
        ra1 = ahw * abs(arx * arx + ary * ary) + ahd * abs(arx * afx + ary * afy)
        rows: list[tuple[float, ...]] = []
        rbs: list[tuple[float, float]] = []
        out = []
        for ox, oy, bhw, bhd, bfacing in boxes:
            # of_boxes' row
            bfx, bfy, brx, bry = _scalar_axes(bfacing)
            o0 = bhw * abs(bfx * brx + bfy * bry) + bhd * abs(bfx * bfx + bfy * bfy)
            o1 = bhw * abs(brx * brx + bry * bry) + bhd * abs(brx * bfx + bry * bfy)
            rows.append((ox, oy, bhw, bhd, bfx, bfy, brx, bry, o0, o1))
            # _rb_along's extents
            rb0 = bhw * abs(afx * brx + afy * bry) + bhd * abs(afx * bfx + afy * bfy)
            rb1 = bhw * abs(arx * brx + ary * bry) + bhd * abs(arx * bfx + ary * bfy)
            rbs.append((rb0, rb1))
            # gaps_upto's gap
            dx = ox - cx
            dy = oy - cy
            best = abs(afx * dx + afy * dy) - ra0 - rb0
            if best <= limit:
                g = abs(arx * dx + ary * dy) - ra1 - rb1
                if g > best:
                    best = g
                if best <= limit:
                    ra = ahw * abs(bfx * arx + bfy * ary) + ahd * abs(bfx * afx + bfy * afy)
                    g = abs(bfx * dx + bfy * dy) - ra - o0
                    if g > best:
                        best = g
                    if best <= limit:
                        ra = ahw * abs(brx * arx + bry * ary) + ahd * abs(brx * afx + bry * afy)
                        g = abs(brx * dx + bry * dy) - ra - o1
                        if g > best:
                            best = g
            out.append(best)
        few = cls.__new__(cls)
        few._rows = rows
        few._along = {facing: rbs}
        return few, out

    def subset(self, keep: list[bool], facing: float | None = None) -> FewSeparation:
        """The same others but only those ``keep`` marks, their sums not worked out again (the
        same rows: the same gaps, bit for bit); ``facing``: a facing whose extents
        (:meth:`_rb_along`) are kept too, if worked out already."""
        few = FewSeparation.__new__(FewSeparation)
        few._rows = [r for r, k in zip(self._rows, keep, strict=True) if k]
        few._along = {}
        if facing is not None:
            rbs = self._along.get(facing)
            if rbs is not None:
                few._along[facing] = [r for r, k in zip(rbs, keep, strict=True) if k]
        return few

    def gaps_upto(self, a: Any, limit: float) -> list[float]:
        """:meth:`gaps`, except that a gap found above ``limit`` on one axis is not worked out
        on the others (it is the largest of the four, so above ``limit`` anyway): each value
        is the gap where that is at most ``limit``, else some value above it."""
        cx, cy, ahw, ahd, facing = a
        afx, afy, arx, ary = _scalar_axes(facing)
        ra0 = ahw * abs(afx * arx + afy * ary) + ahd * abs(afx * afx + afy * afy)
        ra1 = ahw * abs(arx * arx + ary * ary) + ahd * abs(arx * afx + ary * afy)
        out = []
        for (ox, oy, _hw, _hd, bfx, bfy, brx, bry, o0, o1), (rb0, rb1) in zip(
            self._rows, self._rb_along(facing, afx, afy, arx, ary)
        ):
            dx = ox - cx
            dy = oy - cy
            best = abs(afx * dx + afy * dy) - ra0 - rb0
            if best <= limit:
                g = abs(arx * dx + ary * dy) - ra1 - rb1
                if g > best:
                    best = g
                if best <= limit:
                    ra = ahw * abs(bfx * arx + bfy * ary) + ahd * abs(bfx * afx + bfy * afy)
                    g = abs(bfx * dx + bfy * dy) - ra - o0
                    if g > best:
                        best = g
                    if best <= limit:
                        ra = ahw * abs(brx * arx + bry * ary) + ahd * abs(brx * afx + bry * afy)
                        g = abs(brx * dx + bry * dy) - ra - o1
                        if g > best:
                            best = g
            out.append(best)
        return out

    def _rb_along(self, facing: float, afx: float, afy: float, arx: float, ary: float) -> list:
        """The others' extents along ``a``'s two axes (they depend on its facing only)."""
        rbs = self._along.get(facing)
        if rbs is None:
            rbs = self._along[facing] = [
                (
                    bhw * abs(afx * brx + afy * bry) + bhd * abs(afx * bfx + afy * bfy),
                    bhw * abs(arx * brx + ary * bry) + bhd * abs(arx * bfx + ary * bfy),
                )
                for _x, _y, bhw, bhd, bfx, bfy, brx, bry, _o0, _o1 in self._rows
            ]
        return rbs

    def gaps(self, a: Any) -> list[float]:
        """``separation(a, others).tolist()``."""
        cx, cy, ahw, ahd, facing = a
        afx, afy, arx, ary = _scalar_axes(facing)
        ra0 = ahw * abs(afx * arx + afy * ary) + ahd * abs(afx * afx + afy * afy)
        ra1 = ahw * abs(arx * arx + ary * ary) + ahd * abs(arx * afx + ary * afy)
        out = []
        for (ox, oy, _hw, _hd, bfx, bfy, brx, bry, o0, o1), (rb0, rb1) in zip(
            self._rows, self._rb_along(facing, afx, afy, arx, ary)
        ):
            dx = ox - cx
            dy = oy - cy
            best = abs(afx * dx + afy * dy) - ra0 - rb0
            g = abs(arx * dx + ary * dy) - ra1 - rb1
            if g > best:
                best = g
            ra = ahw * abs(bfx * arx + bfy * ary) + ahd * abs(bfx * afx + bfy * afy)
            g = abs(bfx * dx + bfy * dy) - ra - o0
            if g > best:
                best = g
            ra = ahw * abs(brx * arx + bry * ary) + ahd * abs(brx * afx + bry * afy)
            g = abs(brx * dx + bry * dy) - ra - o1
            if g > best:
                best = g
            out.append(best)
        return out

    def gaps_axes(
        self, cx: float, cy: float, ahw: float, ahd: float, axes: tuple[float, float, float, float]
    ) -> list[float]:
        """:meth:`gaps` of the rectangle (cx, cy, ahw, ahd, facing) whose
        ``_scalar_axes(facing)`` the caller has: the same sums, the others' extents along its
        axes (:meth:`_rb_along`'s) taken here and not kept (a turning sweep's poses: a new
        facing each)."""
        afx, afy, arx, ary = axes
        ra0 = ahw * abs(afx * arx + afy * ary) + ahd * abs(afx * afx + afy * afy)
        ra1 = ahw * abs(arx * arx + ary * ary) + ahd * abs(arx * afx + ary * afy)
        out = []
        for ox, oy, bhw, bhd, bfx, bfy, brx, bry, o0, o1 in self._rows:
            rb0 = bhw * abs(afx * brx + afy * bry) + bhd * abs(afx * bfx + afy * bfy)
            rb1 = bhw * abs(arx * brx + ary * bry) + bhd * abs(arx * bfx + ary * bfy)
            dx = ox - cx
            dy = oy - cy
            best = abs(afx * dx + afy * dy) - ra0 - rb0
            g = abs(arx * dx + ary * dy) - ra1 - rb1
            if g > best:
                best = g
            ra = ahw * abs(bfx * arx + bfy * ary) + ahd * abs(bfx * afx + bfy * afy)
            g = abs(bfx * dx + bfy * dy) - ra - o0
            if g > best:
                best = g
            ra = ahw * abs(brx * arx + bry * ary) + ahd * abs(brx * afx + bry * afy)
            g = abs(brx * dx + bry * dy) - ra - o1
            if g > best:
                best = g
            out.append(best)
        return out

    def first_overlap(self, a: Any, tol: float = 1e-6) -> int | None:
        """The other that ``a`` overlaps most (by more than ``tol``; the first on ties), or
        None: ``bad[argmin(gaps[bad])]`` for ``bad = flatnonzero(gaps < -tol)``."""
        # gaps()'s arithmetic, but a rectangle is dropped as soon as one axis separates it: the
        # gap is the largest of the four, so it cannot be below -tol any more (most are clear
        # on the first axis); the others get the full gap, the same value as gaps() gives
        cx, cy, ahw, ahd, facing = a
        return self.first_overlap_axes(cx, cy, ahw, ahd, _scalar_axes(facing), tol)

    def first_overlap_axes(
        self,
        cx: float,
        cy: float,
        ahw: float,
        ahd: float,
        axes: tuple[float, float, float, float],
        tol: float = 1e-6,
    ) -> int | None:
        """:meth:`first_overlap` of the rectangle (cx, cy, ahw, ahd, facing) whose
        ``_scalar_axes(facing)`` the caller has (a turning sweep's poses: a new facing each,
        not worth keeping)."""
        afx, afy, arx, ary = axes
        ra0 = ahw * abs(afx * arx + afy * ary) + ahd * abs(afx * afx + afy * afy)
        ra1 = ahw * abs(arx * arx + ary * ary) + ahd * abs(arx * afx + ary * afy)
        # the others' extents along a's axes (_rb_along's sums) are taken here, each only when
        # its axis is reached, and not kept: a turning sweep asks each facing once
        lim = -tol
        found, worst = None, 0.0
        for k, (ox, oy, bhw, bhd, bfx, bfy, brx, bry, o0, o1) in enumerate(self._rows):
            dx = ox - cx
            dy = oy - cy
            rb0 = bhw * abs(afx * brx + afy * bry) + bhd * abs(afx * bfx + afy * bfy)
            best = abs(afx * dx + afy * dy) - ra0 - rb0
            if best >= lim:
                continue
            rb1 = bhw * abs(arx * brx + ary * bry) + bhd * abs(arx * bfx + ary * bfy)
            g = abs(arx * dx + ary * dy) - ra1 - rb1
            if g > best:
                best = g
            if best >= lim:
                continue
            ra = ahw * abs(bfx * arx + bfy * ary) + ahd * abs(bfx * afx + bfy * afy)
            g = abs(bfx * dx + bfy * dy) - ra - o0
            if g > best:
                best = g
            if best >= lim:
                continue
            ra = ahw * abs(brx * arx + bry * ary) + ahd * abs(brx * afx + bry * afy)
            g = abs(brx * dx + bry * dy) - ra - o1
            if g > best:
                best = g
            if best < lim and (found is None or best < worst):
                found, worst = k, best
        return found

    def first_contact(
        self, a: Any, dx: float, dy: float, tol: float = 1e-6
    ) -> tuple[float, int] | None:
        """Exact time of impact of ``a`` moved straight by ``t * (dx, dy)``, ``t`` in [0, 1],
        without a turn: ``(t, k)`` for the first of the others it would overlap by more than
        ``tol`` (the earliest; the first in order on ties), ``t`` the fraction at which it
        comes to touch that one (gap 0), or None when the move overlaps none.

        Separating axes: along each of the four axes the gap is ``|p + v t| - r`` (``p`` the
        centres' distance along the axis at the start, ``v`` the move's, ``r`` the two
        extents), so the rectangles overlap for ``t`` in the intersection of four open
        intervals; the earliest start is the time of impact. No sampling, no bisection.

        >>> few = FewSeparation(obb_array([OBB(0.0, 100.0, 20.0, 10.0, 0.0)]))
        >>> few.first_contact(OBB(0.0, 0.0, 20.0, 10.0, 0.0), 0.0, 160.0)   # meets at y 80
        (0.5, 0)
        >>> few.first_contact(OBB(40.0, 0.0, 20.0, 10.0, 0.0), 0.0, 160.0) is None  # slides by
        True
        """
        cx, cy, ahw, ahd, facing = a
        afx, afy, arx, ary = _scalar_axes(facing)
        ra0 = ahw * abs(afx * arx + afy * ary) + ahd * abs(afx * afx + afy * afy)
        ra1 = ahw * abs(arx * arx + ary * ary) + ahd * abs(arx * afx + ary * afy)
        found: tuple[float, int] | None = None
        inf = math.inf
        # the four axes written out one after another (no tuple of axes built per rectangle,
        # no max / min calls): each step as before, ``max(a, b)`` as ``b if b > a else a``
        # and ``min(a, b)`` as ``b if b < a else a`` (the first on ties, as max and min)
        for k, ((ox, oy, _hw, _hd, bfx, bfy, brx, bry, o0, o1), (rb0, rb1)) in enumerate(
            zip(self._rows, self._rb_along(facing, afx, afy, arx, ary))
        ):
            px = ox - cx
            py = oy - cy
            rf = ahw * abs(bfx * arx + bfy * ary) + ahd * abs(bfx * afx + bfy * afy) + o0
            rr = ahw * abs(brx * arx + bry * ary) + ahd * abs(brx * afx + bry * afy) + o1
            lo_tol, hi_tol, lo_touch = -inf, inf, -inf
            r = ra0 + rb0
            # axis 1: a's forward
            p = afx * px + afy * py
            v = -(afx * dx + afy * dy)
            if v == 0.0:
                if abs(p) >= r - tol:
                    continue  # apart along this axis for good: never met
            else:
                t1, t2 = (-(r - tol) - p) / v, ((r - tol) - p) / v
                if t1 > t2:
                    t1, t2 = t2, t1
                if t1 > lo_tol:
                    lo_tol = t1
                if t2 < hi_tol:
                    hi_tol = t2
                t1, t2 = (-r - p) / v, (r - p) / v
                if t2 < t1:
                    t1 = t2
                if t1 > lo_touch:
                    lo_touch = t1
            r = ra1 + rb1
            # axis 2: a's right
            p = arx * px + ary * py
            v = -(arx * dx + ary * dy)
            if v == 0.0:
                if abs(p) >= r - tol:
                    continue  # apart along this axis for good: never met
            else:
                t1, t2 = (-(r - tol) - p) / v, ((r - tol) - p) / v
                if t1 > t2:
                    t1, t2 = t2, t1
                if t1 > lo_tol:
                    lo_tol = t1
                if t2 < hi_tol:
                    hi_tol = t2
                t1, t2 = (-r - p) / v, (r - p) / v
                if t2 < t1:
                    t1 = t2
                if t1 > lo_touch:
                    lo_touch = t1
            # axis 3: the other's forward
            p = bfx * px + bfy * py
            v = -(bfx * dx + bfy * dy)
            if v == 0.0:
                if abs(p) >= rf - tol:
                    continue  # apart along this axis for good: never met
            else:
                t1, t2 = (-(rf - tol) - p) / v, ((rf - tol) - p) / v
                if t1 > t2:
                    t1, t2 = t2, t1
                if t1 > lo_tol:
                    lo_tol = t1
                if t2 < hi_tol:
                    hi_tol = t2
                t1, t2 = (-rf - p) / v, (rf - p) / v
                if t2 < t1:
                    t1 = t2
                if t1 > lo_touch:
                    lo_touch = t1
            # axis 4: the other's right
            p = brx * px + bry * py
            v = -(brx * dx + bry * dy)
            if v == 0.0:
                if abs(p) >= rr - tol:
                    continue  # apart along this axis for good: never met
            else:
                t1, t2 = (-(rr - tol) - p) / v, ((rr - tol) - p) / v
                if t1 > t2:
                    t1, t2 = t2, t1
                if t1 > lo_tol:
                    lo_tol = t1
                if t2 < hi_tol:
                    hi_tol = t2
                t1, t2 = (-rr - p) / v, (rr - p) / v
                if t2 < t1:
                    t1 = t2
                if t1 > lo_touch:
                    lo_touch = t1
            if lo_tol < hi_tol and hi_tol > 0.0 and lo_tol < 1.0:
                t = max(0.0, lo_touch)
                if found is None or t < found[0]:
                    found = (t, k)
        return found


_SCALAR_AXES: dict[float, tuple[float, float, float, float]] = {}


def _probe_angles() -> list[float]:
    """Facings to check ``math`` against numpy on: whole and dyadic degrees over several turns
    (the sweep's bisection halves a turn 8 times) and a fixed pseudo-random spread."""
    grid = [k / 256.0 for k in range(-720 * 256, 720 * 256 + 1, 37)]
    rng = np.random.default_rng(15)
    return grid + rng.uniform(-1080.0, 1080.0, 20_000).tolist()


def _math_matches_numpy(angles: list[float], sin: Any = math.sin, cos: Any = math.cos) -> bool:
    """Whether ``math``'s radians, sine and cosine give :func:`_axes`'s values bit for bit on
    every one of ``angles``. They do where numpy's float64 ``sin``/``cos`` call the C library
    (no SVML: numpy links it only for AVX-512 SKX builds); elsewhere they may differ in the
    last bit, and :func:`_scalar_axes` keeps asking numpy."""
    if not angles:
        return False
    s, c, _rx, _ry = _axes(np.asarray(angles, dtype=float))
    r = [math.radians(v) for v in angles]
    return s.tolist() == [sin(v) for v in r] and c.tolist() == [cos(v) for v in r]


#: ``math`` gives :func:`_axes`'s values bit for bit here (checked once, at import)
_MATH_AXES = _math_matches_numpy(_probe_angles())


def _scalar_axes(facing: float) -> tuple[float, float, float, float]:
    """:func:`_axes` of one facing as Python floats (memoised: facings repeat all battle).

    A new facing (each step of the sweep's bisection turns to one) is taken by ``math`` where
    that was found equal to numpy bit for bit (:data:`_MATH_AXES`), a numpy call costing ten
    times more; otherwise by ``_axes`` itself."""
    hit = _SCALAR_AXES.get(facing)
    if hit is None:
        if len(_SCALAR_AXES) > 100_000:
            _SCALAR_AXES.clear()
        if _MATH_AXES:
            r = math.radians(facing)
            s, c = math.sin(r), math.cos(r)
            hit = _SCALAR_AXES[facing] = (s, c, c, -s)
        else:
            fx, fy, rx, ry = (float(v) for v in _axes(np.asarray(facing)))
            hit = _SCALAR_AXES[facing] = (fx, fy, rx, ry)
    return hit


def overlaps(a: OBB, others: np.ndarray, tol: float = 1e-6) -> np.ndarray:
    """Whether ``a`` overlaps each of ``others`` by more than ``tol`` metres (touching is fine)."""
    return separation(a, others) < -tol


def segment_hits(
    p: tuple[float, float], q: tuple[float, float], others: np.ndarray, axes: Any = None
) -> np.ndarray:
    """Whether the segment p->q crosses each rectangle of ``others`` (N,), slab test.

    ``axes``: ``_axes(others[:, 4])`` when the caller already has it.

    >>> boxes = obb_array([OBB(50.0, 0.0, 5.0, 5.0, 0.0), OBB(50.0, 30.0, 5.0, 5.0, 0.0)])
    >>> segment_hits((0.0, 0.0), (100.0, 0.0), boxes).tolist()
    [True, False]
    """
    # one segment as a batch of one: the same element-by-element arithmetic
    return segment_hits_pairs(np.array([p], dtype=float), np.array([q], dtype=float), others, axes)[
        0
    ]


def segment_hits_pairs(
    ps: np.ndarray, qs: np.ndarray, others: np.ndarray, axes: Any = None
) -> np.ndarray:
    """:func:`segment_hits` of each segment ``ps[i] -> qs[i]`` ((k, 2) each) at once: (k, N).

    The one implementation of the slab test; :func:`segment_hits` is its batch of one.

    >>> boxes = obb_array([OBB(50.0, 0.0, 5.0, 5.0, 0.0), OBB(50.0, 30.0, 5.0, 5.0, 0.0)])
    >>> ps = np.array([[0.0, 0.0], [0.0, 30.0]])
    >>> segment_hits_pairs(ps, np.array([[100.0, 0.0], [100.0, 30.0]]), boxes).tolist()
    [[True, False], [False, True]]
    """
    k, n = qs.shape[0], others.shape[0]
    if k == 0 or n == 0:
        return np.zeros((k, n), dtype=bool)
    fx, fy, rx, ry = _axes(others[:, 4]) if axes is None else axes
    px = ps[:, 0, None] - others[None, :, 0]
    py = ps[:, 1, None] - others[None, :, 1]
    dx, dy = (qs[:, 0] - ps[:, 0])[:, None], (qs[:, 1] - ps[:, 1])[:, None]
    t0 = np.zeros((k, n))
    t1 = np.ones((k, n))
    ok = np.ones((k, n), dtype=bool)
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


def segment_hits_sparse(
    ps: np.ndarray,
    qs: np.ndarray,
    others: np.ndarray,
    si: np.ndarray,
    ri: np.ndarray,
    axes: Any = None,
) -> np.ndarray:
    """``segment_hits_pairs(ps, qs, others)[si, ri]`` for the pairs (segment ``si[k]``,
    rectangle ``ri[k]``) only: the same arithmetic, element by element, so the same booleans,
    for the candidates a spatial index (engine.spatial) leaves instead of every pair.

    >>> boxes = obb_array([OBB(50.0, 0.0, 5.0, 5.0, 0.0), OBB(50.0, 30.0, 5.0, 5.0, 0.0)])
    >>> ps, qs = np.array([[0.0, 0.0], [0.0, 30.0]]), np.array([[100.0, 0.0], [100.0, 30.0]])
    >>> segment_hits_sparse(ps, qs, boxes, np.array([0, 1, 1]), np.array([1, 0, 1])).tolist()
    [False, False, True]
    """
    if si.shape[0] == 0:
        return np.zeros(0, dtype=bool)
    fx, fy, rx, ry = _axes(others[:, 4]) if axes is None else axes
    if si.shape[0] <= _FEW_SLABS:
        return np.array(_segment_hits_few(ps, qs, others, si, ri, (fx, fy, rx, ry)), dtype=bool)
    # both axes of every pair as rows of (2, m) arrays: one numpy call per step instead of two
    # (the engine asks for a few lines at a time), each element the same arithmetic
    # (gathers by take(): the same numbers as fancy indexing, at a fraction of its cost)
    ux = np.stack([rx.take(ri), fx.take(ri)])
    uy = np.stack([ry.take(ri), fy.take(ri)])
    o = others.take(ri, axis=0)
    h = o[:, 2:4].T
    p = ps.take(si, axis=0)
    px = p[:, 0] - o[:, 0]
    py = p[:, 1] - o[:, 1]
    dx, dy = (qs[:, 0] - ps[:, 0]).take(si), (qs[:, 1] - ps[:, 1]).take(si)
    s = px * ux + py * uy
    v = dx * ux + dy * uy
    par = np.abs(v) < 1e-12
    ok = ~(par & (np.abs(s) > h)).any(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ta = (-h - s) / v
        tb = (h - s) / v
    lo = np.where(par, -np.inf, np.minimum(ta, tb))
    hi = np.where(par, np.inf, np.maximum(ta, tb))
    t0 = np.maximum(np.maximum(0.0, lo[0]), lo[1])
    t1 = np.minimum(np.minimum(1.0, hi[0]), hi[1])
    return ok & (t0 <= t1)


#: up to this many (segment, rectangle) pairs :func:`segment_hits_sparse` works in plain floats:
#: below it its ~30 numpy calls cost more than the sums (sight asks a line or two at a time)
_FEW_SLABS = 12


def _segment_hits_few(
    ps: np.ndarray,
    qs: np.ndarray,
    others: np.ndarray,
    si: np.ndarray,
    ri: np.ndarray,
    axes: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> list[bool]:
    """``segment_hits_sparse(...).tolist()`` in plain float arithmetic for a few pairs: the
    same IEEE operations in the same order, element by element (numpy's ``+ - * / abs``,
    ``minimum`` and ``maximum`` of numbers round exactly as Python's), so the same booleans."""
    fx, fy, rx, ry = (v[ri].tolist() for v in axes)
    p_, q_ = ps[si].tolist(), qs[si].tolist()
    out = []
    for n, (ox, oy, hw, hd, _f) in enumerate(others[ri].tolist()):
        (pxs, pys), (qxs, qys) = p_[n], q_[n]
        px, py = pxs - ox, pys - oy
        dx, dy = qxs - pxs, qys - pys
        ok, t0, t1 = True, 0.0, 1.0
        for ux, uy, h in ((rx[n], ry[n], hw), (fx[n], fy[n], hd)):
            s = px * ux + py * uy
            v = dx * ux + dy * uy
            if abs(v) < 1e-12:  # parallel to this pair of sides
                ok = ok and not abs(s) > h
                continue
            ta = (-h - s) / v
            tb = (h - s) / v
            t0 = max(t0, min(ta, tb))
            t1 = min(t1, max(ta, tb))
        out.append(ok and t0 <= t1)
    return out


def point_distance(o: OBB, x: float, y: float) -> float:
    """Distance from a point to a rectangle (0 inside).

    >>> point_distance(OBB(0.0, 0.0, 20.0, 10.0, 0.0), 0.0, 25.0)
    15.0
    """
    fx, fy = forward(o.facing)
    rx, ry = right(o.facing)
    dx, dy = x - o.cx, y - o.cy
    a = abs(dx * rx + dy * ry) - o.hw
    b = abs(dx * fx + dy * fy) - o.hd
    return math.hypot(max(a, 0.0), max(b, 0.0))


def local(o: OBB, x: float, y: float) -> tuple[float, float]:
    """A point in the rectangle's frame: (across to the right, along the facing)."""
    fx, fy = forward(o.facing)
    rx, ry = right(o.facing)
    dx, dy = x - o.cx, y - o.cy
    return (dx * rx + dy * ry, dx * fx + dy * fy)


def _point_to_obbs(px: np.ndarray, py: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Distances (N,) from points (N,) to rectangles (N, 5), pairwise."""
    fx, fy, rx, ry = _axes(others[:, 4])
    dx, dy = px - others[:, 0], py - others[:, 1]
    a = np.maximum(np.abs(dx * rx + dy * ry) - others[:, 2], 0.0)
    b = np.maximum(np.abs(dx * fx + dy * fy) - others[:, 3], 0.0)
    return np.hypot(a, b)


def distance(a: OBB, others: np.ndarray) -> np.ndarray:
    """True gap between ``a`` and each of ``others`` (N,), 0 when touching or overlapping.

    For two separate convex shapes the nearest points include a corner of one of them.

    >>> a = OBB(0.0, 0.0, 5.0, 5.0, 0.0)
    >>> round(float(distance(a, obb_array([OBB(105.0, 105.0, 5.0, 5.0, 0.0)]))[0]), 3)
    134.35
    """
    n = others.shape[0]
    if n == 0:
        return np.zeros(0)
    if n <= _FEW_DISTANCE:
        return np.array([_gap_floats(a, row) for row in others.tolist()])
    return _distance_vectorised(a, others)


def _distance_vectorised(a: OBB, others: np.ndarray) -> np.ndarray:
    """:func:`distance` in numpy's arrays (for more than a few ``others``)."""
    # the 4 corners of a against every rectangle and every rectangle's 4 corners against a, as
    # (4, n) arrays in two passes (the same arithmetic, element by element, as one at a time)
    fx, fy, rx, ry = _axes(others[:, 4])
    ca = corners(a)
    dx = ca[:, :1] - others[None, :, 0]
    dy = ca[:, 1:] - others[None, :, 1]
    d1 = np.hypot(
        np.maximum(np.abs(dx * rx + dy * ry) - others[:, 2], 0.0),
        np.maximum(np.abs(dx * fx + dy * fy) - others[:, 3], 0.0),
    )
    sa = np.array([[-1], [1], [1], [-1]])
    sb = np.array([[1], [1], [-1], [-1]])
    px = others[:, 0] + sa * others[:, 2] * rx + sb * others[:, 3] * fx
    py = others[:, 1] + sa * others[:, 2] * ry + sb * others[:, 3] * fy
    afx, afy, arx, ary = _axes(np.array([a.facing]))
    ex, ey = px - a.cx, py - a.cy
    d2 = np.hypot(
        np.maximum(np.abs(ex * arx + ey * ary) - a.hw, 0.0),
        np.maximum(np.abs(ex * afx + ey * afy) - a.hd, 0.0),
    )
    best = np.minimum(d1.min(axis=0), d2.min(axis=0))
    best[separation(a, others) < 0] = 0.0
    return best


#: up to this many others :func:`distance` works in plain floats (:func:`_gap_floats`): its ~45
#: numpy calls cost about as much as 7 rectangles' floats (measured one against 1 / 6 / 8:
#: 4.4x / 1.3x / 0.95x the floats' time)
_FEW_DISTANCE = 6

#: the corners' signs (across, along) in :func:`corners`' order
_CORNER_SIGNS = ((-1, 1), (1, 1), (1, -1), (-1, -1))


def gap(a: OBB, b: OBB) -> float:
    """``float(distance(a, obb_array([b]))[0])``, the same float, without numpy's arrays.

    >>> gap(OBB(0.0, 0.0, 5.0, 5.0, 0.0), OBB(105.0, 105.0, 5.0, 5.0, 0.0))
    134.35028842544403
    """
    return _gap_floats(a, b)


def _gap_floats(a: Any, b: Any) -> float:
    """:func:`distance` of rectangle ``a`` to rectangle ``b`` (each ``cx, cy, hw, hd, facing``)
    in Python floats: the same IEEE operations in the same order as the vectorised form,
    element by element (its sines and cosines are ``corners``' ``math`` ones for ``a``'s
    corners and :func:`_scalar_axes`' for the frames, as there), and ``hypot`` taken as
    :func:`_least_hypot` takes it: only where the rounded square can be the least, by numpy's
    ``hypot`` (``math.hypot`` differs from it in the last bit about once in 250) unless one
    leg is 0, where both are the other leg exactly. tests/test_spatial.py checks it against
    the vectorised form bit for bit."""
    acx, acy, ahw, ahd, afa = a
    bcx, bcy, bhw, bhd, bfa = b
    fx, fy, rx, ry = _scalar_axes(bfa)
    afx, afy, arx, ary = _scalar_axes(afa)
    r = math.radians(afa)  # corners(a)'s axes: forward() and right()
    cfx, cfy, crx, cry = math.sin(r), math.cos(r), math.cos(r), -math.sin(r)
    legs: list[tuple[float, float]] = []
    for sa, sb in _CORNER_SIGNS:
        # a's corner in b's frame
        dx = acx + sa * ahw * crx + sb * ahd * cfx - bcx
        dy = acy + sa * ahw * cry + sb * ahd * cfy - bcy
        u = abs(dx * rx + dy * ry) - bhw
        v = abs(dx * fx + dy * fy) - bhd
        legs.append((u if u > 0.0 else 0.0, v if v > 0.0 else 0.0))
    for sa, sb in _CORNER_SIGNS:
        # b's corner in a's frame
        ex = bcx + sa * bhw * rx + sb * bhd * fx - acx
        ey = bcy + sa * bhw * ry + sb * bhd * fy - acy
        u = abs(ex * arx + ey * ary) - ahw
        v = abs(ex * afx + ey * afy) - ahd
        legs.append((u if u > 0.0 else 0.0, v if v > 0.0 else 0.0))
    squares = [u * u + v * v for u, v in legs]
    cut = min(squares) * (1.0 + 1e-12) + 1e-280
    best = math.inf
    for (u, v), sq in zip(legs, squares, strict=True):
        if sq <= cut:
            h = v if u == 0.0 else u if v == 0.0 else float(np.hypot(u, v))
            if h < best:
                best = h
    if best > 0.0 and _separation_pair(a, b) < 0:
        return 0.0
    return best


def _separation_pair(a: Any, b: Any) -> float:
    """``separation(a, obb_array([b]))[0]`` in Python floats (:func:`_separation_floats`)."""
    cx, cy, ahw, ahd, afa = a
    ox, oy, bhw, bhd, bfa = b
    frame = _separation_frame(ahw, ahd, afa)
    bfx, bfy, brx, bry = _scalar_axes(bfa)
    return _separation_floats(frame, ox - cx, oy - cy, bhw, bhd, bfx, bfy, brx, bry)


def separation_many(a: np.ndarray, others: np.ndarray) -> np.ndarray:
    """:func:`separation` of every rectangle of ``a`` (n, 5) against ``others`` (m, 5): (n, m)."""
    if a.shape[0] == 0 or others.shape[0] == 0:
        return np.zeros((a.shape[0], others.shape[0]))
    afx, afy, arx, ary = (v[:, None] for v in _axes(a[:, 4]))
    bfx, bfy, brx, bry = (v[None, :] for v in _axes(others[:, 4]))
    dx = others[None, :, 0] - a[:, None, 0]
    dy = others[None, :, 1] - a[:, None, 1]
    ahw, ahd = a[:, None, 2], a[:, None, 3]
    bhw, bhd = others[None, :, 2], others[None, :, 3]
    best: Any = None
    for ux, uy in ((afx, afy), (arx, ary), (bfx, bfy), (brx, bry)):
        ra = ahw * np.abs(ux * arx + uy * ary) + ahd * np.abs(ux * afx + uy * afy)
        rb = bhw * np.abs(ux * brx + uy * bry) + bhd * np.abs(ux * bfx + uy * bfy)
        gap = np.abs(ux * dx + uy * dy) - ra - rb
        best = gap if best is None else np.maximum(best, gap)
    return best


def separation_pairs(
    a: np.ndarray, b: np.ndarray, axes: tuple[Axes, Axes] | None = None
) -> np.ndarray:
    """``separation_many`` of rows ``a[k]`` and ``b[k]`` ((P, 5) each) pair by pair: (P,), the
    same arithmetic element by element (for the pairs a spatial index leaves).

    >>> arr = obb_array([OBB(0.0, 0.0, 20.0, 10.0, 0.0), OBB(0.0, 20.0, 20.0, 10.0, 30.0)])
    >>> bool(separation_pairs(arr[[0]], arr[[1]])[0] == separation_many(arr, arr)[0, 1])
    True
    """
    if a.shape[0] == 0:
        return np.zeros(0)
    ax_a, ax_b = axes if axes is not None else (_axes(a[:, 4]), _axes(b[:, 4]))
    afx, afy, arx, ary = ax_a
    bfx, bfy, brx, bry = ax_b
    dx = b[:, 0] - a[:, 0]
    dy = b[:, 1] - a[:, 1]
    ahw, ahd = a[:, 2], a[:, 3]
    bhw, bhd = b[:, 2], b[:, 3]
    best: Any = None
    for ux, uy in ((afx, afy), (arx, ary), (bfx, bfy), (brx, bry)):
        ra = ahw * np.abs(ux * arx + uy * ary) + ahd * np.abs(ux * afx + uy * afy)
        rb = bhw * np.abs(ux * brx + uy * bry) + bhd * np.abs(ux * bfx + uy * bfy)
        gap = np.abs(ux * dx + uy * dy) - ra - rb
        best = gap if best is None else np.maximum(best, gap)
    return best


def distance_pairs(
    a: np.ndarray,
    b: np.ndarray,
    ca: np.ndarray | None = None,
    axes: tuple[Axes, Axes] | None = None,
) -> np.ndarray:
    """:func:`distance_many` of rows ``a[k]`` and ``b[k]`` ((P, 5) each) pair by pair: (P,),
    the same numbers element by element, for the pairs a spatial index leaves. ``ca``: the
    corners of each row of ``a`` (P, 4, 2) as :func:`corners` makes them, when the caller has
    them; ``axes``: ``_axes`` of ``a``'s and of ``b``'s facings, when the caller has them
    (:func:`distance_rows` gathers them from a table's rows: the same numbers).

    Cheaper than the matrix's arithmetic, the same numbers: the eight corner gaps as
    contiguous rows, ``b``'s corners from one product per axis (``-x`` for ``(-1) * x``: the
    same float), ``hypot`` only where it can be the least (:func:`_least_hypot`), and the
    overlap test (:func:`separation_pairs`) only for pairs whose circumcircles meet (with a
    metre to spare): rectangles farther apart are apart on one of their four axes by well
    over the rounding, so the test cannot fire there.

    >>> arr = obb_array([OBB(0.0, 0.0, 20.0, 10.0, 0.0), OBB(60.0, 35.0, 20.0, 10.0, 30.0)])
    >>> bool(distance_pairs(arr[[0, 1]], arr[[1, 0]]).tolist() == [
    ...     distance_many(arr, arr)[0, 1], distance_many(arr, arr)[1, 0]])
    True
    """
    p = a.shape[0]
    if p == 0:
        return np.zeros(0)
    if ca is None:
        ca = corners_many(a)
    ax_a, ax_b = axes if axes is not None else (_axes(a[:, 4]), _axes(b[:, 4]))
    afx, afy, arx, ary = ax_a
    fx, fy, rx, ry = ax_b
    bx, by, bhw, bhd = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    # rows 0-3: a's corners in b's frame; rows 4-7: b's corners (corners()' order: (-1, 1),
    # (1, 1), (1, -1), (-1, -1)) in a's frame
    dx = np.empty((8, p))
    dy = np.empty((8, p))
    np.subtract(ca[:, :, 0].T, bx, out=dx[:4])
    np.subtract(ca[:, :, 1].T, by, out=dy[:4])
    wx, wy, hx, hy = bhw * rx, bhw * ry, bhd * fx, bhd * fy
    for i, (x, y) in enumerate(
        (
            (bx - wx + hx, by - wy + hy),
            (bx + wx + hx, by + wy + hy),
            (bx + wx - hx, by + wy - hy),
            (bx - wx - hx, by - wy - hy),
        )
    ):
        np.subtract(x, a[:, 0], out=dx[4 + i])
        np.subtract(y, a[:, 1], out=dy[4 + i])
    # |d . right| - hw and |d . forward| - hd, floored at 0, in each rectangle's own frame
    u = np.empty((8, p))
    v = np.empty((8, p))
    for rows, (ffx, ffy, frx, fry, hw, hd) in (
        (slice(0, 4), (fx, fy, rx, ry, bhw, bhd)),
        (slice(4, 8), (afx, afy, arx, ary, a[:, 2], a[:, 3])),
    ):
        x, y = dx[rows], dy[rows]
        np.add(x * frx, y * fry, out=u[rows])
        np.add(x * ffx, y * ffy, out=v[rows])
        uu, vv = u[rows], v[rows]
        np.abs(uu, out=uu)
        uu -= hw
        np.abs(vv, out=vv)
        vv -= hd
    np.maximum(u, 0.0, out=u)
    np.maximum(v, 0.0, out=v)
    best = _least_hypot(u, v)
    # overlapping rectangles have their centres within the sum of their circumradii
    reach = np.hypot(a[:, 2], a[:, 3]) + np.hypot(bhw, bhd) + 1.0
    dcx, dcy = bx - a[:, 0], by - a[:, 1]
    close = np.flatnonzero(dcx * dcx + dcy * dcy <= reach * reach)
    if close.size:
        sub = (_take(ax_a, close), _take(ax_b, close))
        over = close[separation_pairs(a.take(close, axis=0), b.take(close, axis=0), sub) < 0]
        best[over] = 0.0
    return best


#: the axes of rectangles, as ``_axes`` gives them: forward x, forward y, right x, right y
Axes = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _least_hypot(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``np.hypot(u, v).min(axis=0)`` of (K, P) arrays of numbers >= 0, the same floats with
    about one ``hypot`` a column (each costs ~50 times a product): the least ``hypot`` of a
    column is at an entry whose rounded ``u*u + v*v`` is within a relative 1e-12 of the
    column's least (the rounded squares are within a few units in the last place of the
    true ones, ``hypot`` within one unit of the truth; below 1e-280 squares underflow, so
    all are kept), and only those candidates are measured."""
    s = u * u
    s += v * v
    least = s.min(axis=0)
    r, c = np.nonzero(s <= least * (1.0 + 1e-12) + 1e-280)
    out = np.full(s.shape[1], np.inf)  # every column has a candidate: its least square's
    np.minimum.at(out, c, np.hypot(u[r, c], v[r, c]))
    return out


def distance_rows(arr: np.ndarray, ii: np.ndarray, jj: np.ndarray, ca: np.ndarray) -> np.ndarray:
    """:func:`distance_pairs` of the rows ``arr[ii[k]]`` and ``arr[jj[k]]`` of a table
    ((N, 5); ``ca`` its corners (N, 4, 2)), the axes of each row worked out once and gathered
    (elementwise: the same numbers as for the gathered rows)."""
    if ii.size == 0:
        return np.zeros(0)
    ax = _axes(arr[:, 4])
    # (gathers by take(): the same numbers as fancy indexing, at a fraction of its cost)
    return distance_pairs(
        arr.take(ii, axis=0),
        arr.take(jj, axis=0),
        ca.take(ii, axis=0),
        (_take(ax, ii), _take(ax, jj)),
    )


def _take(ax: Axes, rows: np.ndarray) -> Axes:
    """The axes ``ax`` of the rectangles at ``rows`` (gathered: the same numbers)."""
    fx, fy, rx, ry = ax
    return fx.take(rows), fy.take(rows), rx.take(rows), ry.take(rows)


def distance_many(a: np.ndarray, others: np.ndarray) -> np.ndarray:
    """:func:`distance` of every rectangle of ``a`` (n, 5) to ``others`` (m, 5): (n, m), the same
    arithmetic element by element (one call per phase instead of one per formation)."""
    n, m = a.shape[0], others.shape[0]
    if n == 0 or m == 0:
        return np.zeros((n, m))
    fx, fy, rx, ry = _axes(others[:, 4])
    # the corners of every rectangle of a, as corners() makes them (Python floats, in order)
    ca = corners_many(a)  # (n, 4, 2)
    cax = ca[:, :, 0].T[:, :, None]  # (4, n, 1)
    cay = ca[:, :, 1].T[:, :, None]
    dx = cax - others[None, None, :, 0]
    dy = cay - others[None, None, :, 1]
    d1 = np.hypot(
        np.maximum(np.abs(dx * rx + dy * ry) - others[:, 2], 0.0),
        np.maximum(np.abs(dx * fx + dy * fy) - others[:, 3], 0.0),
    )
    sa = np.array([[-1], [1], [1], [-1]])
    sb = np.array([[1], [1], [-1], [-1]])
    px = others[:, 0] + sa * others[:, 2] * rx + sb * others[:, 3] * fx  # (4, m)
    py = others[:, 1] + sa * others[:, 2] * ry + sb * others[:, 3] * fy
    afx, afy, arx, ary = (v[None, :, None] for v in _axes(a[:, 4]))
    ex = px[:, None, :] - a[None, :, None, 0]
    ey = py[:, None, :] - a[None, :, None, 1]
    d2 = np.hypot(
        np.maximum(np.abs(ex * arx + ey * ary) - a[None, :, None, 2], 0.0),
        np.maximum(np.abs(ex * afx + ey * afy) - a[None, :, None, 3], 0.0),
    )
    best = np.minimum(d1.min(axis=0), d2.min(axis=0))
    best[separation_many(a, others) < 0] = 0.0
    return best
