"""Coordinates as the user writes them: lon/lat degrees or map metres, read one way everywhere.

``route --from/--to``, ``build --bbox``, ``print --bbox`` and the positions of an orders file
(``run --orders``) accept either. With ``--crs`` the numbers are in that CRS (EPSG:4326 means
lon,lat); without it they are the ground's own metres if they lie on it in metres, else lon,lat if
they lie on it as degrees (:func:`guess_crs`). Commands say which they read
(:func:`describe`), and errors repeat the numbers as the user wrote them.

The ground is anything with ``crs``, ``bounds`` (metres in ``crs``) and ``bounds_lonlat()``: a
built :class:`~scenario_builder.battlefield.Battlefield`, or before a build the
:class:`Extent` of a DEM on its local UTM grid (``scenario_builder.dem.dem_extent``).

>>> e = Extent(pyproj.CRS.from_epsg(32630), (550000, 6160000, 556000, 6167000),
...            (-2.2, 55.58, -2.1, 55.64))
>>> guess_crs(e, {"--from": (551000, 6161000)}) is None            # metres on the ground
True
>>> guess_crs(e, {"--from": (-2.15, 55.6)})                         # degrees on the ground
'EPSG:4326'
>>> guess_box_crs(e, "--bbox", (-2.3, 55.5, -2.15, 55.6))           # overlapping, as degrees
'EPSG:4326'
>>> guess_box_crs(e, "--bbox", (0, 0, 1, 1))   # degrees off the ground: the caller's own error
'EPSG:4326'
>>> guess_crs(e, {"--to": (12, 300)})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
scenario_builder.errors.ScenarioError: --to: 12,300 is off the battlefield, read as lon,lat ...
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pyproj

from scenario_builder.errors import CRSError, ScenarioError

__all__ = [
    "Extent",
    "as_written",
    "describe",
    "guess_box_crs",
    "guess_crs",
    "parse_bbox",
    "parse_crs",
    "transformer",
]

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Extent:
    """Ground not built yet: its metres in ``crs`` and its lon/lat box."""

    crs: pyproj.CRS
    bounds: Box
    lonlat: Box

    def bounds_lonlat(self) -> Box:
        return self.lonlat


def parse_bbox(text: str, option: str = "--bbox") -> Box:
    """``"W,S,E,N"`` -> four finite numbers with W < E and S < N (degrees or metres: which is
    decided against the ground, :func:`guess_box_crs`).

    >>> parse_bbox("-2.19,55.60,-2.15,55.62")
    (-2.19, 55.6, -2.15, 55.62)
    >>> parse_bbox("550000, 6160000, 553000, 6163000")
    (550000.0, 6160000.0, 553000.0, 6163000.0)
    >>> parse_bbox("1,2,3")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scenario_builder.errors.ScenarioError: --bbox: expected W,S,E,N (4 numbers, ...), got '1,2,3'
    """
    parts = text.split(",")
    try:
        if len(parts) != 4:
            raise ValueError
        w, s, e, n = (float(p) for p in parts)
    except ValueError:
        raise ScenarioError(
            option, f"expected W,S,E,N (4 numbers, lon/lat degrees or map metres), got {text!r}"
        ) from None
    if not all(math.isfinite(v) for v in (w, s, e, n)):
        raise ScenarioError(option, f"expected finite numbers, got {text!r}")
    if not (w < e and s < n):
        raise ScenarioError(option, f"expected W < E and S < N, got {text!r}")
    return (w, s, e, n)


def parse_crs(text: str, option: str = "--crs") -> pyproj.CRS:
    """A CRS the user named (EPSG:4326, EPSG:32630, a PROJ string ...); one-line error if not."""
    try:
        return pyproj.CRS.from_user_input(text)
    except pyproj.exceptions.CRSError:
        raise CRSError(option, f"expected a CRS such as EPSG:4326, got {text!r}") from None


def _overlaps(bounds: tuple[float, ...], given: tuple[float, ...]) -> bool:
    """A point (x, y) inside ``bounds``, or a box (W, S, E, N) overlapping them."""
    w, s, e, n = given if len(given) == 4 else (*given, *given)
    return bounds[0] <= e and w <= bounds[2] and bounds[1] <= n and s <= bounds[3]


def as_written(given: tuple[float, ...]) -> str:
    """Numbers back as the user wrote them (no exponent for metres).

    >>> as_written((548500.0, 6161500.0)), as_written((-2.19, 55.6))
    ('548500,6161500', '-2.19,55.6')
    """
    return ",".join(f"{v:.12g}" for v in given)


def guess_crs(
    ground: Any,
    given: dict[str, tuple[float, ...]],
    what: str = "the battlefield",
    hint: str = "give --crs to say which",
) -> str | None:
    """The CRS of the user's points (x, y) or boxes (W, S, E, N) when no ``--crs`` was given:
    the ground's metres if they all lie on it in metres, else EPSG:4326 if they all do as
    lon,lat; otherwise an error naming the first one off the ground, with the ground's extent in
    both. ``None`` means the ground's own CRS."""
    metres, lonlat = ground.bounds, ground.bounds_lonlat()
    if all(_overlaps(metres, g) for g in given.values()):
        return None
    if all(_overlaps(lonlat, g) for g in given.values()):
        return "EPSG:4326"
    option, off = next((o, g) for o, g in given.items() if not _overlaps(metres, g))
    w, s, e, n = lonlat
    x0, y0, x1, y1 = metres
    raise ScenarioError(
        option,
        f"{as_written(off)} is off {what}, read as lon,lat or as metres: it spans lon "
        f"{w:.4f}..{e:.4f}, lat {s:.4f}..{n:.4f}, or x {x0:.0f}..{x1:.0f}, y {y0:.0f}..{y1:.0f} "
        f"m in {ground.crs.to_string()} ({hint})",
    )


def guess_box_crs(ground: Any, option: str, box: Box, what: str = "the battlefield") -> str | None:
    """:func:`guess_crs` for one ``--bbox``; a box of lon/lat-sized numbers that misses the
    ground either way is read as degrees, so the caller's own check reports it (a box outside
    the data, in the degrees the user wrote)."""
    try:
        return guess_crs(ground, {option: box}, what)
    except ScenarioError:
        w, s, e, n = box
        if -180 <= w <= 180 and -180 <= e <= 180 and -90 <= s <= 90 and -90 <= n <= 90:
            return "EPSG:4326"
        raise


def describe(crs: pyproj.CRS | str | None, ground_crs: pyproj.CRS) -> str:
    """How numbers in ``crs`` (None: the ground's) were read: ``lon,lat`` or ``metres in ...``.

    >>> describe("EPSG:4326", pyproj.CRS.from_epsg(32630))
    'lon,lat'
    >>> describe(None, pyproj.CRS.from_epsg(32630))
    'metres in EPSG:32630'
    """
    c = ground_crs if crs is None else pyproj.CRS.from_user_input(crs)
    return "lon,lat" if c.is_geographic else f"metres in {c.to_string()}"


def transformer(crs: pyproj.CRS | str | None, ground_crs: pyproj.CRS) -> Any:
    """A ``(x, y) -> ground metres`` function for numbers in ``crs`` (None: already metres)."""
    if crs is None:
        return lambda x, y: (x, y)
    return pyproj.Transformer.from_crs(crs, ground_crs, always_xy=True).transform
