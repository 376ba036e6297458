"""Vector shapes of a battlefield for drawing: level outlines, contours, class regions.

The build writes ``contours`` and ``regions`` into ``battlefield.gpkg``; when a battlefield has no
GeoPackage (or lacks a layer) the same shapes are traced here from the rasters, so a map or a
print never silently lacks them.

>>> import numpy as np, affine
>>> level = np.array([[0, 0, 0, 0], [0, 1, 1, 0], [0, 1, 2, 0], [0, 0, 0, 0]], np.int16)
>>> t = affine.Affine(10, 0, 0, 0, -10, 40)
>>> outline_at_or_above(level, t, 1).area, outline_at_or_above(level, t, 2).area
(400.0, 100.0)

Printing draws the *smoothed* outlines and class regions (``level_outlines``, ``class_regions``,
made by ``maps.smoothing``): the raw traced ones are cell staircases, 25 mm notches on a 2mm
table.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any

import numpy as np
import shapely
from rasterio.features import shapes
from shapely.geometry import Polygon, shape
from shapely.geometry.base import BaseGeometry

from maps.smoothing import smooth_classes, smooth_outlines
from scenario_builder.battlefield import Battlefield


def outline_at_or_above(level: np.ndarray, transform: Any, k: int) -> BaseGeometry:
    """The ground whose height level is ``>= k``, as one (multi)polygon in map metres."""
    mask = (np.asarray(level) >= k).astype(np.uint8)
    polys = [shape(g) for g, v in shapes(mask, mask=mask.astype(bool), transform=transform) if v]
    if not polys:
        return Polygon()
    return shapely.union_all(polys)


Window = tuple[float, float, float, float]

_OUTLINES: weakref.WeakKeyDictionary[Battlefield, dict[Window | None, dict[int, BaseGeometry]]] = (
    weakref.WeakKeyDictionary()
)


def level_outlines(bf: Battlefield, window: Window | None = None) -> dict[int, BaseGeometry]:
    """Smoothed outline of the ground at level ``>= k`` for every level above the lowest, nested
    (each inside the one below), clipped to ``window``; traced once per battlefield and window
    (the layout's tints and contours and the cut layers draw the same outlines).
    ``maps.smoothing`` says how and how far they may differ from the cells."""
    per_bf = _OUTLINES.setdefault(bf, {})
    key: Window | None = None
    if window is not None:
        key = (float(window[0]), float(window[1]), float(window[2]), float(window[3]))
    if key not in per_bf:
        lo, hi = level_range(bf)
        per_bf[key] = smooth_outlines(bf.layer("level"), bf.transform, range(lo + 1, hi + 1), key)
    return per_bf[key]


_CLASSES: weakref.WeakKeyDictionary[
    Battlefield, dict[tuple[str, tuple[int, ...], Window | None], dict[int, BaseGeometry]]
] = weakref.WeakKeyDictionary()


def class_regions(
    bf: Battlefield, layer: str, codes: Iterable[int], window: Window | None = None
) -> dict[int, BaseGeometry]:
    """Smoothed region of each class ``code`` of ``layer`` (e.g. ``move``), clipped to ``window``,
    one-cell streams and hedges kept (``maps.smoothing.smooth_classes``); traced from the raster
    (not the build's cell-edge ``regions``) once per battlefield, layer, codes and window."""
    per_bf = _CLASSES.setdefault(bf, {})
    win: Window | None = None
    if window is not None:
        win = (float(window[0]), float(window[1]), float(window[2]), float(window[3]))
    key = (layer, tuple(int(c) for c in codes), win)
    if key not in per_bf:
        per_bf[key] = smooth_classes(bf.layer(layer), bf.transform, key[1], key[2])
    return per_bf[key]


def level_outline(bf: Battlefield, k: int) -> BaseGeometry:
    """The smoothed outline of level ``k`` over the whole battlefield (see ``level_outlines``)."""
    return level_outlines(bf).get(k, Polygon())


def outline_contours(
    bf: Battlefield, outlines: dict[int, BaseGeometry], window: Window | None = None
) -> list[tuple[int, BaseGeometry]]:
    """(k, contour line of level k): the outlines' boundaries without the map's or the window's
    edge, which are no contours. The same lines as the edges of the cut layers."""
    x0, y0, x1, y1 = bf.bounds
    if window is not None:
        x0, y0 = max(x0, window[0]), max(y0, window[1])
        x1, y1 = min(x1, window[2]), min(y1, window[3])
    frame = shapely.box(x0, y0, x1, y1).boundary.buffer(bf.res * 0.05)
    out = []
    for k, poly in sorted(outlines.items()):
        if poly.is_empty:
            continue
        line = shapely.line_merge(poly.boundary.difference(frame))
        if not line.is_empty:
            out.append((k, line))
    return out


def level_range(bf: Battlefield) -> tuple[int, int]:
    lv = bf.layer("level")
    return int(lv.min()), int(lv.max())


def contours(bf: Battlefield) -> Any:
    """Contour lines (GeoDataFrame in ``bf.crs`` with ``level``, ``elevation``).

    The line for level k is the boundary of the ground at or above k: the edge of a cut layer.
    """
    import geopandas as gpd

    got = _gpkg_layer(bf, "contours")
    if got is not None and len(got):
        return got
    rows = [
        {"level": k, "elevation": _level_base(bf, k), "geometry": line}
        for k, line in outline_contours(bf, level_outlines(bf))
    ]
    return gpd.GeoDataFrame(rows, columns=["level", "elevation", "geometry"], crs=bf.crs)


def _level_base(bf: Battlefield, k: int) -> float:
    """Lowest elevation of level-k ground: what the contour of level k stands for."""
    lv = bf.layer("level")
    sel = lv == k
    return round(float(bf.layer("elevation")[sel].min()), 1) if sel.any() else float("nan")


def regions(bf: Battlefield, layer: str = "move") -> Any:
    """Polygons of each class of ``layer`` (GeoDataFrame with a ``layer`` column, ``bf.crs``)."""
    import geopandas as gpd

    got = _gpkg_layer(bf, "regions")
    if got is not None and len(got) and layer in got.columns:
        got = got[[layer, "geometry"]].copy()
        if not pd_is_integer(got[layer]):
            # the build writes class names ("woods"); codes come from the battlefield's legend
            codes = {str(v).lower(): int(k) for k, v in bf.meta["legend"].get(layer, {}).items()}
            got[layer] = [codes.get(str(v).lower(), -1) for v in got[layer]]
            got = got[got[layer] >= 0]
        return got.dissolve(by=layer, as_index=False)[[layer, "geometry"]]
    data = np.asarray(bf.layer(layer)).astype(np.uint8)
    rows = []
    for code in np.unique(data):
        mask = data == code
        polys = [
            shape(g)
            for g, v in shapes(mask.astype(np.uint8), mask=mask, transform=bf.transform)
            if v
        ]
        if polys:
            rows.append({layer: int(code), "geometry": shapely.union_all(polys)})
    return gpd.GeoDataFrame(rows, columns=[layer, "geometry"], crs=bf.crs)


def pd_is_integer(column: Any) -> bool:
    from pandas.api.types import is_integer_dtype

    return bool(is_integer_dtype(column))


def _gpkg_layer(bf: Battlefield, name: str) -> Any:
    if bf.source_dir is None or not (bf.source_dir / "battlefield.gpkg").is_file():
        return None
    import pyogrio

    path = bf.source_dir / "battlefield.gpkg"
    if name not in [n for n, _ in pyogrio.list_layers(path)]:
        return None
    return bf.read_vectors(name)
