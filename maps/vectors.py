"""Vector shapes of a battlefield for drawing: level outlines, contours, class regions.

The build writes ``contours`` and ``regions`` into ``battlefield.gpkg``; when a battlefield has no
GeoPackage (or lacks a layer) the same shapes are traced here from the rasters, so a map or a
print never silently lacks them.

>>> import numpy as np, affine
>>> level = np.array([[0, 0, 0, 0], [0, 1, 1, 0], [0, 1, 2, 0], [0, 0, 0, 0]], np.int16)
>>> t = affine.Affine(10, 0, 0, 0, -10, 40)
>>> outline_at_or_above(level, t, 1).area, outline_at_or_above(level, t, 2).area
(400.0, 100.0)
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
import shapely
from rasterio.features import shapes
from shapely.geometry import MultiPolygon, Polygon, shape
from shapely.geometry.base import BaseGeometry

from scenario_builder.battlefield import Battlefield


def outline_at_or_above(level: np.ndarray, transform: Any, k: int) -> BaseGeometry:
    """The ground whose height level is ``>= k``, as one (multi)polygon in map metres."""
    mask = (np.asarray(level) >= k).astype(np.uint8)
    polys = [shape(g) for g, v in shapes(mask, mask=mask.astype(bool), transform=transform) if v]
    if not polys:
        return Polygon()
    return shapely.union_all(polys)


_OUTLINES: weakref.WeakKeyDictionary[Battlefield, dict[int, BaseGeometry]] = (
    weakref.WeakKeyDictionary()
)


def level_outline(bf: Battlefield, k: int) -> BaseGeometry:
    """``outline_at_or_above`` level ``k``, simplified at half a cell; traced once per battlefield
    (the layout, its contours and the cut layers all draw the same outlines)."""
    per_bf = _OUTLINES.setdefault(bf, {})
    if k not in per_bf:
        per_bf[k] = simplified(outline_at_or_above(bf.layer("level"), bf.transform, k), bf.res / 2)
    return per_bf[k]


def simplified(geom: BaseGeometry, tolerance: float) -> BaseGeometry:
    """Simplify keeping topology, dropping slivers smaller than a cell."""
    g = shapely.simplify(geom, tolerance, preserve_topology=True)
    if isinstance(g, MultiPolygon):
        g = MultiPolygon([p for p in g.geoms if p.area >= tolerance * tolerance * 4])
    return g


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
    lo, hi = level_range(bf)
    # the map's own edge is not a contour: cut it out of every outline's boundary
    frame = shapely.box(*bf.bounds).boundary.buffer(bf.res * 0.6)
    rows = []
    for k in range(lo + 1, hi + 1):
        poly = level_outline(bf, k)
        if poly.is_empty:
            continue
        line = shapely.line_merge(poly.boundary.difference(frame))
        if line.is_empty:
            continue
        rows.append({"level": k, "elevation": _level_base(bf, k), "geometry": line})
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
