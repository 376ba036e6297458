"""The Battlefield: one grid in metres holding the rule-classified terrain, and its queries.

This is the one product of the GIS side that the engine reads (``docs/architecture.md``). The
engine asks it questions (``category_at``, ``cover_at``, ``level_at``, ``fractions``,
``line_of_sight``); only maps and routing read whole layers, through :meth:`Battlefield.layer`.

Layers (all on one north-up grid of square ``res``-metre cells in a projected CRS):

* ``elevation`` float32 metres (voids filled), ``slope`` float32 degrees;
* ``level`` int16 height step (6.2), ``move`` uint8 :class:`MoveClass` (7.3),
  ``cover`` uint8 :class:`CoverClass` (7.2), ``blocks_sight`` bool (6.2),
  ``feature`` uint8 code into ``meta["legend"]["feature"]`` (forest, water, marsh, ...).

>>> import numpy as np, affine
>>> z = np.zeros((4, 6), dtype=np.float32)
>>> layers = {"elevation": z, "slope": z, "level": np.zeros((4, 6), np.int16),
...           "move": np.zeros((4, 6), np.uint8), "cover": np.zeros((4, 6), np.uint8),
...           "blocks_sight": np.zeros((4, 6), bool), "feature": np.zeros((4, 6), np.uint8)}
>>> layers["move"][:, 3:] = MoveClass.WOODS
>>> bf = Battlefield(layers, affine.Affine(10, 0, 500000, 0, -10, 6000040), "EPSG:32630", 2.0,
...                  {"legend": {"feature": {0: "open"}}})
>>> bf.category_at(500005, 6000035)
<MoveClass.PLAIN: 0>
>>> bf.category_at(500045, 6000035).name
'WOODS'
>>> from shapely.geometry import box
>>> bf.fractions(box(500020, 6000000, 500040, 6000040))
{0: 0.5, 3: 0.5}
"""

from __future__ import annotations

import copy
import functools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any

import affine
import numpy as np
import pyproj
import rasterio
import shapely
from shapely.geometry.base import BaseGeometry

from scenario_builder.atomic import atomic_path
from scenario_builder.errors import CRSError, DataSourceError, OffMapError
from scenario_builder.los import EDGE_M, Grid, SightCells, padded, visible_few, visible_many


class MoveClass(IntEnum):
    """Movement columns of chart 7.3 (wet and debris share a column there)."""

    PLAIN = 0
    WET = 1
    DEBRIS = 2
    WOODS = 3
    IMPRACTICAL = 4


class CoverClass(IntEnum):
    """Cover columns of chart 7.2."""

    OPEN = 0
    WET = 1
    DEBRIS = 2
    OVERHEAD = 3


LAYERS: tuple[str, ...] = (
    "elevation",
    "level",
    "move",
    "cover",
    "blocks_sight",
    "slope",
    "feature",
)
_DTYPES: dict[str, Any] = {
    "elevation": np.float32,
    "level": np.int16,
    "move": np.uint8,
    "cover": np.uint8,
    "blocks_sight": np.bool_,
    "slope": np.float32,
    "feature": np.uint8,
}
TIF, JSON, GPKG = "battlefield.tif", "battlefield.json", "battlefield.gpkg"
#: the GeoTIFF's NoData value (never a cell's: voids are filled; GIS readers ask for one)
NODATA = -9999.0
#: units of the continuous bands (GDAL's band unit type)
UNITS: dict[str, str] = {"elevation": "m", "slope": "degree"}
FORMAT = "battlefield/1"
#: up to this many lines of sight are sampled one at a time (los.visible_few): a batch's fixed
#: cost is most of a call about one or two lines
_FEW_LINES = 3


class Battlefield:
    """Rule-classified terrain on one metric grid, with the queries the engine needs."""

    def __init__(
        self,
        layers: Mapping[str, np.ndarray],
        transform: affine.Affine,
        crs: pyproj.CRS | str,
        step: float,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        missing = [name for name in LAYERS if name not in layers]
        if missing:
            raise ValueError(f"expected layers {list(LAYERS)}, missing {missing}")
        shape = np.shape(layers["elevation"])
        if len(shape) != 2:
            raise ValueError(f"expected 2-D layers, got shape {shape}")
        self._layers: dict[str, np.ndarray] = {}
        for name in LAYERS:
            arr = np.asarray(layers[name])
            if arr.shape != shape:
                raise ValueError(f"layer {name!r}: expected shape {shape}, got {arr.shape}")
            arr = np.array(arr, dtype=_DTYPES[name], copy=True)
            arr.flags.writeable = False
            self._layers[name] = arr
        if transform.b != 0 or transform.d != 0 or transform.e >= 0:
            raise ValueError(f"expected a north-up transform, got {tuple(transform)[:6]}")
        if not math.isclose(transform.a, -transform.e, rel_tol=1e-6):
            raise ValueError(f"expected square cells, got {transform.a} x {-transform.e}")
        self.transform = transform
        self.crs = pyproj.CRS.from_user_input(crs)
        if not self.crs.is_projected:
            raise CRSError(None, f"expected a projected CRS in metres, got {self.crs.to_string()}")
        self.step = float(step)
        self.res = float(transform.a)
        self.shape: tuple[int, int] = (int(shape[0]), int(shape[1]))
        self.meta: dict[str, Any] = dict(meta or {})
        legend = self.meta.setdefault("legend", {})
        legend["feature"] = {int(k): str(v) for k, v in legend.get("feature", {}).items()}
        legend.setdefault("move", {int(m): m.name.lower() for m in MoveClass})
        legend.setdefault("cover", {int(c): c.name.lower() for c in CoverClass})
        self.source_dir: Path | None = None
        self._grid = Grid(transform.c, transform.f, self.res, self.shape)
        self._sight_cells: SightCells | None = None  # built on the first line of sight
        self._flat_layers: dict[str, np.ndarray] = {}  # layers padded, for codes_on_map

    def __getstate__(self) -> dict[str, Any]:
        # what is derived from the layers is rebuilt where the copy is used (workers)
        return {**self.__dict__, "_sight_cells": None, "_flat_layers": {}}

    # -- geometry -----------------------------------------------------------------------------
    @functools.cached_property
    def bounds(self) -> tuple[float, float, float, float]:
        """(minx, miny, maxx, maxy) in metres in :attr:`crs`."""
        x0, y0 = self.transform.c, self.transform.f
        return (x0, y0 - self.shape[0] * self.res, x0 + self.shape[1] * self.res, y0)

    @property
    def centre(self) -> tuple[float, float]:
        minx, miny, maxx, maxy = self.bounds
        return ((minx + maxx) / 2, (miny + maxy) / 2)

    def contains(self, x: Any, y: Any) -> Any:
        """Whether points lie on the battlefield (scalar in -> bool out, arrays -> bool array)."""
        minx, miny, maxx, maxy = self.bounds
        if type(x) is float and type(y) is float:  # one point in Python floats: the same tests
            # without arrays (the engine asks of a formation's centre thousands of times)
            return minx <= x < maxx and miny < y <= maxy
        xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        inside = (xa >= minx) & (xa < maxx) & (ya > miny) & (ya <= maxy)
        return bool(inside) if inside.ndim == 0 else inside

    def _index(self, x: Any, y: Any) -> tuple[np.ndarray, np.ndarray, bool]:
        xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        if not np.all(self.contains(xa, ya)):
            bad = np.argwhere(~np.atleast_1d(self.contains(xa, ya)))[0][0]
            px, py = np.atleast_1d(xa)[bad], np.atleast_1d(ya)[bad]
            raise OffMapError(
                self._name(), f"point ({px:.1f}, {py:.1f}) is off the battlefield {self.bounds}"
            )
        row, col = self._grid.rowcol(xa, ya)
        return row, col, xa.ndim == 0

    def _sample(self, name: str, x: Any, y: Any) -> Any:
        if type(x) is float and type(y) is float:
            # one point in Python floats (the medieval d10 and Dark Age moves sample every step
            # of a march this way): rowcol's floor, clip and gather without arrays, the same
            # IEEE operations (numpy's floor of a float64 is math.floor's), the same cell
            g = self._grid
            if not self.contains(x, y):
                self._index(x, y)  # raises the OffMapError with its message
            rows, cols = g.shape
            r = math.floor((g.y0 - y) / g.res)
            c = math.floor((x - g.x0) / g.res)
            r = 0 if r < 0 else rows - 1 if r >= rows else r
            c = 0 if c < 0 else cols - 1 if c >= cols else c
            return self._layers[name].item(r, c)
        row, col, scalar = self._index(x, y)
        values = self._layers[name][row, col]
        return values.item() if scalar else values

    def codes_on_map(self, layer: str, x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        """Values of ``layer`` at many points that may leave the map, in one call: ``(values,
        inside)``, int values and -1 where a point is off the battlefield. On the map the values
        are exactly those of ``category_at`` / ``cover_at`` / ``level_at`` (the engine samples
        every formation footprint this way, thousands of times a bound)."""
        xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        minx, miny, maxx, maxy = self.bounds
        inside = (xa >= minx) & (xa < maxx) & (ya > miny) & (ya <= maxy)
        flat = self._flat_layers.get(layer)
        if flat is None:
            flat = self._flat_layers[layer] = padded(self._layers[layer])
        # the cells of rowcol on the map; off it some cell, read safely and masked
        values = flat.take(self._grid.cells(xa, ya), mode="clip").astype(int)
        if values.ndim == 0 or not inside.all():
            values = np.where(inside, values, -1)
        return values, inside

    def _name(self) -> str:
        return str(self.source_dir or self.meta.get("slug") or "battlefield")

    # -- point queries --------------------------------------------------------------------------
    def category_at(self, x: Any, y: Any) -> Any:
        """Movement class of chart 7.3 at a point (:class:`MoveClass`, or an array of codes)."""
        v = self._sample("move", x, y)
        return MoveClass(v) if np.ndim(v) == 0 else v

    move_at = category_at

    def cover_at(self, x: Any, y: Any) -> Any:
        """Cover class of chart 7.2 at a point (:class:`CoverClass`, or an array of codes)."""
        v = self._sample("cover", x, y)
        return CoverClass(v) if np.ndim(v) == 0 else v

    def level_at(self, x: Any, y: Any) -> Any:
        """Height level (6.2) at a point."""
        return self._sample("level", x, y)

    def elevation_at(self, x: Any, y: Any) -> Any:
        """Elevation in metres at a point (nearest cell)."""
        return self._sample("elevation", x, y)

    def blocks_sight_at(self, x: Any, y: Any) -> Any:
        """Whether the terrain at a point blocks line of sight (6.2)."""
        return self._sample("blocks_sight", x, y)

    def slope_at(self, x: Any, y: Any) -> Any:
        """Slope in degrees at a point."""
        return self._sample("slope", x, y)

    def feature_at(self, x: Any, y: Any) -> Any:
        """Feature name at a point (``"forest"``, ``"water"``...), an array of names for arrays."""
        codes = self._sample("feature", x, y)
        legend = self.meta["legend"]["feature"]
        if type(codes) is int:  # one point (_sample's Python int): np.ndim would cost ~1 us
            return legend.get(codes, "unknown")
        if np.ndim(codes) == 0:
            return legend.get(int(codes), "unknown")
        return np.array([legend.get(int(c), "unknown") for c in np.ravel(codes)]).reshape(
            np.shape(codes)
        )

    # -- area queries ---------------------------------------------------------------------------
    def sample_points(self, polygon: BaseGeometry, spacing: float | None = None) -> np.ndarray:
        """Points on a regular lattice inside ``polygon`` and on the map, shape (N, 2).

        The lattice spacing defaults to half a cell but at most 5 m, so a 40 x 20 m base is
        sampled at least 32 times whatever the grid resolution.
        """
        if spacing is None:
            spacing = min(self.res / 2.0, 5.0)
        minx, miny, maxx, maxy = polygon.bounds
        xs = np.arange(minx + spacing / 2, maxx, spacing)
        ys = np.arange(miny + spacing / 2, maxy, spacing)
        if xs.size == 0 or ys.size == 0:
            c = polygon.centroid
            pts = np.array([[c.x, c.y]])
        else:
            mx, my = np.meshgrid(xs, ys)
            gx, gy = mx.ravel(), my.ravel()
            inside = shapely.contains_xy(polygon, gx, gy)
            pts = np.column_stack([gx[inside], gy[inside]])
            if pts.shape[0] == 0:
                c = polygon.representative_point()
                pts = np.array([[c.x, c.y]])
        on_map = np.atleast_1d(self.contains(pts[:, 0], pts[:, 1]))
        return pts[on_map]

    def fractions(self, polygon: BaseGeometry, layer: str = "move") -> dict[Any, float]:
        """Share of a footprint's area in each class of ``layer`` (7.1's ">= 50 % inside" test).

        Keys are class codes (``MoveClass``/``CoverClass`` values, levels) or feature names for
        ``layer="feature"``. Only the part of the polygon on the map counts; a polygon wholly off
        the map raises :class:`OffMapError`.
        """
        if layer not in LAYERS:
            raise ValueError(f"expected one of {list(LAYERS)}, got {layer!r}")
        pts = self.sample_points(polygon)
        if pts.shape[0] == 0:
            raise OffMapError(self._name(), f"footprint {polygon.bounds} is off the battlefield")
        values = self._sample(layer, pts[:, 0], pts[:, 1])
        uniq, counts = np.unique(values, return_counts=True)
        total = counts.sum()
        if layer == "feature":
            legend = self.meta["legend"]["feature"]
            return {legend.get(int(u), "unknown"): float(c / total) for u, c in zip(uniq, counts)}
        return {u.item(): float(c / total) for u, c in zip(uniq, counts)}

    # -- sight ---------------------------------------------------------------------------------
    def line_of_sight(
        self,
        a: tuple[float, float],
        b: tuple[float, float],
        *,
        edge_m: float = EDGE_M,
        eye_a: int = 0,
        eye_b: int = 0,
    ) -> bool:
        """Whether ``a`` sees ``b`` over the terrain by height level (6.2).

        Ground blocks where its level is above both ends; woods and solid impractical terrain
        block where at or above the higher end's level and more than ``edge_m`` from both ends.
        Troops in between are the engine's business (friends seen through, 6.2).
        """
        return bool(
            self.line_of_sight_many(
                np.asarray([a], float),
                np.asarray([b], float),
                edge_m=edge_m,
                eye_a=eye_a,
                eye_b=eye_b,
            )[0]
        )

    def _line_of_sight_few(self, a: np.ndarray, b: np.ndarray, edge_m: float) -> np.ndarray | None:
        """:meth:`line_of_sight_many` of a few lines with every end on the map, one at a time
        (``los.visible_few``: the same answers without a batch's fixed cost); None when an end
        is off the map or the levels are not whole numbers (the batch then answers or raises)."""
        level = self._layers["level"]
        if level.dtype.kind not in "iu":
            return None
        minx, miny, maxx, maxy = self.bounds
        pa, pb = a.tolist(), b.tolist()
        for x, y in (*pa, *pb):
            if not (minx <= x < maxx and miny < y <= maxy):
                return None
        if self._sight_cells is None:
            self._sight_cells = SightCells.of(level, self._layers["blocks_sight"])
        seen = visible_few(self._grid, self._sight_cells, pa, pb, edge_m=edge_m)
        return np.array(seen, dtype=bool)

    def line_of_sight_many(
        self,
        a: np.ndarray,
        b: np.ndarray,
        *,
        edge_m: float = EDGE_M,
        eye_a: Any = 0,
        eye_b: Any = 0,
    ) -> np.ndarray:
        """Vectorised :meth:`line_of_sight` for (N, 2) arrays of end points."""
        if (
            type(eye_a) is int
            and type(eye_b) is int
            and eye_a == eye_b == 0
            and isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.ndim == 2
            and a.shape == b.shape
            and 0 < a.shape[0] <= _FEW_LINES
            and a.dtype == b.dtype == np.float64
        ):
            few = self._line_of_sight_few(a, b, edge_m)
            if few is not None:
                return few
        a = np.atleast_2d(np.asarray(a, dtype=float))
        b = np.atleast_2d(np.asarray(b, dtype=float))
        # One cheap bounds test on the hot path (the engine calls this thousands of times a
        # battle); only when it fails is the offending point looked up for the error message.
        if a.size:
            inside = self._grid.contains(
                np.concatenate([a[:, 0], b[:, 0]]), np.concatenate([a[:, 1], b[:, 1]])
            )
            if not inside.all():
                self._index(a[:, 0], a[:, 1])
                self._index(b[:, 0], b[:, 1])
        level, blocks = self._layers["level"], self._layers["blocks_sight"]
        if self._sight_cells is None:
            self._sight_cells = SightCells.of(level, blocks)
        return visible_many(
            self._grid,
            level,
            blocks,
            a,
            b,
            eye_a=eye_a,
            eye_b=eye_b,
            edge_m=edge_m,
            cells=self._sight_cells,
            on_grid=True,  # every end is on the map (checked above)
        )

    # -- coordinates ---------------------------------------------------------------------------
    @functools.cached_property
    def _to_map(self) -> pyproj.Transformer:
        return pyproj.Transformer.from_crs("EPSG:4326", self.crs, always_xy=True)

    @functools.cached_property
    def _to_geo(self) -> pyproj.Transformer:
        return pyproj.Transformer.from_crs(self.crs, "EPSG:4326", always_xy=True)

    def to_xy(self, lon: Any, lat: Any) -> tuple[Any, Any]:
        """WGS84 longitude/latitude -> map metres in :attr:`crs`."""
        return self._to_map.transform(lon, lat)

    def to_lonlat(self, x: Any, y: Any) -> tuple[Any, Any]:
        """Map metres in :attr:`crs` -> WGS84 longitude/latitude."""
        return self._to_geo.transform(x, y)

    def bounds_lonlat(self) -> tuple[float, float, float, float]:
        """(west, south, east, north) in WGS84 degrees enclosing the battlefield."""
        from rasterio.warp import transform_bounds

        return tuple(transform_bounds(self.crs, "EPSG:4326", *self.bounds, densify_pts=21))

    # -- layers --------------------------------------------------------------------------------
    def layer(self, name: str) -> np.ndarray:
        """A read-only layer array (for maps and routing; the engine uses the queries)."""
        try:
            return self._layers[name]
        except KeyError:
            raise ValueError(f"expected one of {list(LAYERS)}, got {name!r}") from None

    def with_layers(self, layers: Mapping[str, np.ndarray]) -> Battlefield:
        """The same ground (grid, CRS, elevation, features, caches) with some class layers
        replaced: how a ruleset reads one built battlefield through its own terrain table
        (:mod:`engine.terrain`). Arrays are shared read-only, not copied."""
        view = copy.copy(self)
        view._layers = dict(self._layers)
        view._sight_cells = None  # derived from the layers: rebuilt from the view's own
        view._flat_layers = {}
        for name, arr in layers.items():
            if name not in _DTYPES:
                raise ValueError(f"expected one of {list(LAYERS)}, got {name!r}")
            a = np.asarray(arr, dtype=_DTYPES[name])
            if a.shape != self.shape:
                raise ValueError(f"layer {name!r}: expected shape {self.shape}, got {a.shape}")
            a.flags.writeable = False
            view._layers[name] = a
        return view

    @property
    def n_levels(self) -> int:
        lv = self._layers["level"]
        return int(lv.max() - lv.min() + 1)

    def area_by_class(self, layer: str) -> dict[str, float]:
        """Ground area in m² per class name of ``layer`` (move, cover or feature)."""
        legend = self.meta["legend"][layer]
        uniq, counts = np.unique(self._layers[layer], return_counts=True)
        cell = self.res * self.res
        return {legend.get(int(u), str(int(u))): float(c * cell) for u, c in zip(uniq, counts)}

    def summary(self) -> dict[str, Any]:
        """The facts written to ``battlefield.json`` besides the caller's meta."""
        lv = self._layers["level"]
        return {
            "format": FORMAT,
            "crs": self.crs.to_string(),
            "crs_wkt": self.crs.to_wkt(),
            "res": self.res,
            "step": self.step,
            "shape": list(self.shape),
            "transform": list(self.transform)[:6],
            "bounds": list(self.bounds),
            "bounds_lonlat": list(self.bounds_lonlat()),
            "levels": {"min": int(lv.min()), "max": int(lv.max()), "count": self.n_levels},
            "area_m2": {k: self.area_by_class(k) for k in ("move", "cover", "feature")},
        }

    # -- persistence ---------------------------------------------------------------------------
    def save(self, directory: str | Path, regions: Any = None, contours: Any = None) -> Path:
        """Write ``battlefield.tif``, ``battlefield.json`` and (given vectors) ``battlefield.gpkg``.

        Each file is written to a temporary name and renamed; callers writing a whole directory
        wrap this in :func:`scenario_builder.atomic.atomic_dir`.
        """
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        profile = {
            "driver": "GTiff",
            "height": self.shape[0],
            "width": self.shape[1],
            "count": len(LAYERS),
            # one sample format for every band (GeoTIFF has no other): elevation needs floats,
            # so the class bands are whole numbers stored as float32, named by their tables
            "dtype": "float32",
            # no cell is ever empty (voids are filled); GIS readers still ask for a NoData
            "nodata": NODATA,
            "crs": self.crs.to_wkt(),
            "transform": self.transform,
            # deflate at level 1 without a predictor: on Gettysburg (1.2 M cells, 7 bands) 0.5 s
            # against 1.7-2.4 s for level 6 with the floating-point predictor, and 10.2 MB
            # against 10.3 MB (the class bands are runs of a few codes; the predictor's byte
            # shuffling helps only elevation); 2-5 % larger on the SRTM sites
            "compress": "deflate",
            "zlevel": 1,
            "tiled": self.shape[0] >= 256 and self.shape[1] >= 256,
        }
        if profile["tiled"]:
            profile.update(blockxsize=256, blockysize=256)
        classes = self._class_tables()
        with atomic_path(directory / TIF) as tmp, rasterio.open(tmp, "w", **profile) as dst:
            for i, name in enumerate(LAYERS, start=1):
                dst.write(self._layers[name].astype(np.float32), i)
                dst.set_band_description(i, name)
                if name in UNITS:
                    dst.set_band_unit(i, UNITS[name])
                if name in classes:
                    # in the file itself (GDAL band metadata): what each code means; the colours
                    # are in the sidecar's attribute table
                    dst.update_tags(
                        i,
                        kind="categorical",
                        classes=json.dumps({str(c.code): c.name for c in classes[name]}),
                    )
                else:
                    dst.update_tags(i, kind="continuous")
            dst.update_tags(step=str(self.step), format=FORMAT)
        with atomic_path(directory / (TIF + ".aux.xml")) as tmp:
            tmp.write_text(_pam_xml(classes), encoding="utf-8")
        meta = {**self.meta, **self.summary()}
        meta["legend"] = {
            k: {str(code): name for code, name in v.items()} for k, v in self.meta["legend"].items()
        }
        with atomic_path(directory / JSON) as tmp:
            tmp.write_text(json.dumps(meta, indent=1, sort_keys=True, default=str) + "\n")
        if regions is not None or contours is not None:
            with atomic_path(directory / GPKG) as tmp:
                tmp.unlink()  # GDAL refuses to open an existing empty file as a GeoPackage
                for name, gdf in (("regions", regions), ("contours", contours)):
                    if gdf is not None:
                        gdf.to_file(tmp, layer=name, driver="GPKG")
        return directory

    def _class_tables(self) -> dict[str, list[ClassEntry]]:
        """Each class band's codes with their names and colours: the legend's names, the
        colours the maps draw them in (so QGIS and the HTML map agree)."""
        from maps.colours import COVER_COLOURS, MOVE_COLOURS, level_colour

        legend = self.meta.get("legend", {})
        colours = {"move": MOVE_COLOURS, "cover": COVER_COLOURS}
        tables: dict[str, list[ClassEntry]] = {}
        for name, default in (("move", MoveClass), ("cover", CoverClass)):
            names = legend.get(name) or {int(c): c.name.lower() for c in default}
            tables[name] = [
                ClassEntry(int(code), str(label), colours[name].get(int(code), "#808080"))
                for code, label in sorted(names.items(), key=lambda kv: int(kv[0]))
            ]
        feature = legend.get("feature", {})
        tables["feature"] = [
            ClassEntry(int(code), str(label), None)
            for code, label in sorted(feature.items(), key=lambda kv: int(kv[0]))
        ]
        lv = self._layers["level"]
        low, high = int(lv.min()), int(lv.max())
        tables["level"] = [
            ClassEntry(k, f"level {k}", level_colour(k - low, high - low))
            for k in range(low, high + 1)
        ]
        tables["blocks_sight"] = [
            ClassEntry(0, "clear", "#00000000"),
            ClassEntry(1, "blocks sight", "#37474f"),
        ]
        return tables

    @classmethod
    def load(cls, directory: str | Path) -> Battlefield:
        """Read a battlefield written by :meth:`save`; errors name the file and the problem."""
        directory = Path(directory)
        if not directory.is_dir():
            raise DataSourceError(directory, "not a directory (expected a built battlefield)")
        tif, js = directory / TIF, directory / JSON
        for path in (tif, js):
            if not path.is_file():
                raise DataSourceError(path, "missing; build the battlefield first")
        try:
            meta = json.loads(js.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise DataSourceError(js, f"not valid JSON ({exc})") from None
        try:
            with rasterio.open(tif) as src:
                names = list(src.descriptions)
                if sorted(n for n in names if n) != sorted(LAYERS):
                    raise DataSourceError(tif, f"expected bands {list(LAYERS)}, got {names}")
                data = {name: src.read(i + 1) for i, name in enumerate(names)}
                transform, crs = src.transform, src.crs
        except rasterio.errors.RasterioIOError as exc:
            raise DataSourceError(tif, f"cannot read raster ({exc})") from None
        if crs is None:
            raise CRSError(tif, "has no CRS")
        layers = {
            name: (arr > 0.5 if name == "blocks_sight" else arr.astype(_DTYPES[name]))
            for name, arr in data.items()
        }
        legend = meta.get("legend", {})
        meta["legend"] = {k: {int(c): n for c, n in v.items()} for k, v in legend.items()}
        step = float(meta.get("step", 0.0))
        for key in cls._summary_keys():
            meta.pop(key, None)
        bf = cls(layers, transform, pyproj.CRS.from_wkt(crs.to_wkt()), step, meta)
        bf.source_dir = directory
        return bf

    @staticmethod
    def _summary_keys() -> tuple[str, ...]:
        return (
            "format",
            "crs",
            "crs_wkt",
            "res",
            "step",
            "shape",
            "transform",
            "bounds",
            "bounds_lonlat",
            "levels",
            "area_m2",
        )

    def read_vectors(self, layer: str) -> Any:
        """The ``regions`` or ``contours`` layer of ``battlefield.gpkg`` as a GeoDataFrame."""
        import geopandas as gpd

        if self.source_dir is None or not (self.source_dir / GPKG).is_file():
            raise DataSourceError(self._name(), f"no {GPKG} to read layer {layer!r} from")
        return gpd.read_file(self.source_dir / GPKG, layer=layer)

    def __repr__(self) -> str:
        return (
            f"Battlefield({self.meta.get('slug', '?')!r}, {self.crs.to_string()}, "
            f"{self.shape[0]}x{self.shape[1]} @ {self.res:g} m, step {self.step:g} m)"
        )


@dataclass(frozen=True)
class ClassEntry:
    """One code of a class band: its name and colour (``#rrggbb`` or ``#rrggbbaa``; None: the
    maps give it none, as for features, drawn by their class)."""

    code: int
    name: str
    colour: str | None


def _rgba(colour: str) -> tuple[int, int, int, int]:
    c = colour.lstrip("#")
    return (
        int(c[0:2], 16),
        int(c[2:4], 16),
        int(c[4:6], 16),
        int(c[6:8], 16) if len(c) == 8 else 255,
    )


def _pam_xml(classes: Mapping[str, list[ClassEntry]]) -> str:
    """GDAL's PAM sidecar (``battlefield.tif.aux.xml``) for the class bands: category names
    (``gdalinfo``'s "Categories") and a thematic raster attribute table with each class's colour.
    GeoTIFF keeps colour tables only for an 8/16-bit first band, so a float32 band's colours
    travel in the table (QGIS >= 3.30, ArcGIS and GDAL read it).

    >>> print(_pam_xml({"move": [ClassEntry(0, "plain", "#00000000")]}).splitlines()[2])
        <CategoryNames>
    """
    from xml.sax.saxutils import escape

    # GDAL's field types (GFT_Integer 0, GFT_String 2) and usages (GFU_MinMax 5, GFU_Name 2,
    # GFU_Red..GFU_Alpha 6..9)
    fields = [("Value", 0, 5), ("Class", 2, 2), ("Red", 0, 6), ("Green", 0, 7)]
    fields += [("Blue", 0, 8), ("Alpha", 0, 9)]
    out = ["<PAMDataset>"]
    for i, name in enumerate(LAYERS, start=1):
        entries = classes.get(name)
        if not entries:
            continue
        out.append(f'  <PAMRasterBand band="{i}">')
        if min(e.code for e in entries) >= 0:  # GDAL's names are by code from 0
            by_code = {e.code: e.name for e in entries}
            out.append("    <CategoryNames>")
            for code in range(max(by_code) + 1):
                out.append(f"      <Category>{escape(by_code.get(code, ''))}</Category>")
            out.append("    </CategoryNames>")
        coloured = all(e.colour is not None for e in entries)
        out.append('    <GDALRasterAttributeTable tableType="thematic">')
        for k, (fname, ftype, usage) in enumerate(fields if coloured else fields[:2]):
            out.append(
                f'      <FieldDefn index="{k}"><Name>{fname}</Name><Type>{ftype}</Type>'
                f"<Usage>{usage}</Usage></FieldDefn>"
            )
        for row, e in enumerate(entries):
            values = (e.code, escape(e.name), *(_rgba(e.colour) if e.colour else ()))
            cells = "".join(f"<F>{v}</F>" for v in values)
            out.append(f'      <Row index="{row}">{cells}</Row>')
        out.append("    </GDALRasterAttributeTable>")
        out.append("  </PAMRasterBand>")
    out.append("</PAMDataset>")
    return "\n".join(out) + "\n"
