"""Land cover onto the Battlefield grid: rasters (WorldCover, CORINE, NLCD) and vectors (OSM
tags, GeoJSON/GeoPackage overlays) -> one ``feature`` code per cell.

Order of painting (later wins): land-cover raster, then land-cover vectors by feature priority
(``features.csv``), then historical overlays by priority. Categorical rasters are resampled with
``mode`` when the source is finer than the grid and ``nearest`` otherwise; codes missing from the
table are an error listing them with their cell counts, unless the build names a feature for them
(``--unknown-as CLASS``): then they become that feature with an
:class:`~scenario_builder.errors.UnknownCodeWarning`.

>>> from scenario_builder.sites import get_site
>>> from scenario_builder.codetables import CodeTables
>>> tables = CodeTables.load()
>>> path = get_site("north_bayreuth_pair").folder / "linear_osm.geojson"
>>> feats = vector_features(read_vector(path), tables, path)
>>> sorted(set(feats.loc[feats["width_m"] >= 20, "feature"]))
['river', 'road']
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import pyogrio.errors
import rasterio
import rasterio.errors
import rasterio.features
import rasterio.warp
import shapely
from pyproj import CRS

from scenario_builder.codetables import (
    DEFAULT_FEATURE,
    MOVE_CLASSES,
    CodeTables,
    RasterCodeTable,
    detect_raster_table,
)
from scenario_builder.dem import Grid, _open_checked, _short
from scenario_builder.errors import (
    CRSError,
    DataSourceError,
    NoOverlapError,
    ScenarioFileError,
    UnknownCodeWarning,
)

NONE = 255  # "no vector here" in a burn layer
# Line features that are water (7.2): narrower than a cell they do not replace woods, and every
# cell they touch is painted so the band has no corner-to-corner gap.
LINEAR_WATER: frozenset[str] = frozenset({"river", "stream", "brook"})
# OSM waterways underground (culverts, building passages) are not on the surface at all
_UNDERGROUND = {"tunnel": {"culvert", "yes", "building_passage"}, "location": {"underground"}}
RASTER_SUFFIXES = {".tif", ".tiff", ".img", ".vrt", ".asc", ".jp2"}
VECTOR_SUFFIXES = {".geojson", ".json", ".gpkg", ".shp", ".fgb", ".kml", ".gml"}
_HSTORE = re.compile(r'"((?:[^"\\]|\\.)*)"=>"((?:[^"\\]|\\.)*)"')


def is_raster(path: str | os.PathLike[str]) -> bool:
    """Whether a land-cover file is a raster (by extension; unknown ones are probed)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in RASTER_SUFFIXES:
        return True
    if suffix in VECTOR_SUFFIXES:
        return False
    try:
        with rasterio.open(path):
            return True
    except rasterio.errors.RasterioIOError:
        return False


def parse_other_tags(text: object) -> dict[str, str]:
    """OSM ``other_tags`` hstore text (as written by GDAL's OSM driver) -> dict.

    >>> parse_other_tags('"historic"=>"castle","name:de"=>"Burg"')
    {'historic': 'castle', 'name:de': 'Burg'}
    """
    if not isinstance(text, str):
        return {}
    return {k: v for k, v in _HSTORE.findall(text)}


def read_vector(path: str | os.PathLike[str]) -> gpd.GeoDataFrame:
    """Read a vector file (GeoJSON, GeoPackage, ...), checked: exists, not empty, has a CRS."""
    path = Path(path)
    if not path.exists():
        raise DataSourceError(path, "file not found")
    if path.stat().st_size == 0:
        raise DataSourceError(path, "expected vector data, got an empty file (0 bytes)")
    try:
        gdf = gpd.read_file(path)
    except (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError, ValueError) as exc:
        raise DataSourceError(
            path,
            f"expected a vector file (GeoJSON/GeoPackage), got unreadable data ({_short(exc)})",
        ) from exc
    if gdf.crs is None:
        raise CRSError(path, "expected a coordinate reference system, got none")
    return gdf[~gdf.geometry.isna() & ~gdf.geometry.is_empty]


def vector_features(
    gdf: gpd.GeoDataFrame,
    tables: CodeTables,
    path: str | os.PathLike[str],
    significant_streams: frozenset[str] = frozenset(),
) -> gpd.GeoDataFrame:
    """Rows with a ``feature`` and ``width_m``: from a ``feature`` column (overlay style) or from
    OSM tags (``osm.csv``). Rows matching nothing are dropped.

    7.2 "Wet applies to swamps, marshland, and significant streams. An isolated brook or puddle
    is just plain terrain": OSM streams, ditches and drains map to ``brook`` (plain) in
    ``osm.csv``; a stream whose OSM ``name`` is in ``significant_streams`` (the site's or the
    scenario's list) becomes ``stream`` (wet), as an overlay's ``feature: stream`` does.
    Waterways in a culvert or tunnel are left out: they are not on the ground.
    """
    if "feature" in gdf.columns:
        names = gdf["feature"].astype(str)
        for i, name in zip(gdf.index, names, strict=True):
            tables.vocab.check(name, path, f"feature #{i}")
        width = (
            pd.to_numeric(gdf["width_m"], errors="coerce") if "width_m" in gdf.columns else np.nan
        )
        return gpd.GeoDataFrame(
            {"feature": names.values, "width_m": width}, geometry=gdf.geometry.values, crs=gdf.crs
        )
    keys = tuple(dict.fromkeys([*tables.osm.keys, "name", "tunnel", "location"]))
    extra = gdf["other_tags"].map(parse_other_tags) if "other_tags" in gdf.columns else None
    features: list[str | None] = []
    widths: list[float] = []
    cols = [k for k in keys if k in gdf.columns]
    records = gdf[cols].to_dict("records")
    for i, rec in enumerate(records):
        tags: dict[str, str | None] = {
            k: (v if isinstance(v, str) else None) for k, v in rec.items()
        }
        if extra is not None:
            for k, v in extra.iloc[i].items():
                tags.setdefault(k, v)
        hit = tables.osm.match(tags)
        if hit and tags.get("waterway") and _underground(tags):
            hit = None
        elif hit and tags.get("waterway") == "stream" and tags.get("name") in significant_streams:
            hit = ("stream", hit[1])
        features.append(hit[0] if hit else None)
        widths.append(hit[1] if hit and hit[1] is not None else np.nan)
    out = gpd.GeoDataFrame(
        {"feature": features, "width_m": widths}, geometry=gdf.geometry.values, crs=gdf.crs
    )
    return out[out["feature"].notna()]


def _underground(tags: dict[str, str | None]) -> bool:
    return any(tags.get(k) in values for k, values in _UNDERGROUND.items())


def burn_vectors(
    feats: gpd.GeoDataFrame,
    grid: Grid,
    tables: CodeTables,
    out: np.ndarray | None = None,
    under: np.ndarray | None = None,
) -> np.ndarray:
    """Paint feature codes onto ``out`` (uint8, ``NONE`` where nothing) in priority order.

    Areas are burned by cell centre. Lines with a width of at least one cell are buffered to that
    width and burned as areas, plus their centre line through every cell it touches (a buffer
    burned by centres alone can meet itself only corner to corner, and a river must not leak
    diagonally). Narrower lines are burned through every cell they touch, but narrower water
    (``LINEAR_WATER``) does not replace woods, whether painted here or in ``under`` (the feature
    layer this burn goes over): a 4 m brook is a small part of a 25 m cell of forest. Points
    become one cell.
    """
    if out is None:
        out = np.full(grid.shape, NONE, dtype=np.uint8)
    if feats.empty:
        return out
    feats = feats.to_crs(grid.crs)
    vocab = tables.vocab
    prio = feats["feature"].map(vocab.priority).to_numpy()
    codes = feats["feature"].map(vocab.code).to_numpy()
    water = feats["feature"].isin(LINEAR_WATER).to_numpy()
    order = np.argsort(prio, kind="stable")  # low priority first; later shapes overwrite
    geoms = feats.geometry.values[order]
    widths = feats["width_m"].to_numpy(dtype=float)[order]
    codes = codes[order]
    water = water[order]
    kinds = shapely.get_type_id(geoms)
    is_line = np.isin(kinds, [1, 2, 5])  # LineString, LinearRing, MultiLineString
    is_point = np.isin(kinds, [0, 4])
    wide = is_line & np.isfinite(widths) & (widths >= grid.res)
    centre_lines = geoms.copy()
    geoms = geoms.copy()
    if wide.any():
        geoms[wide] = shapely.buffer(geoms[wide], widths[wide] / 2.0, cap_style="flat")
    if is_point.any():
        pw = np.where(np.isfinite(widths[is_point]), widths[is_point] / 2.0, grid.res / 2.0)
        geoms[is_point] = shapely.buffer(geoms[is_point], np.maximum(pw, grid.res / 2.0))
    valid = ~shapely.is_empty(geoms)
    thin = is_line & ~wide
    sorted_prio = prio[order]
    move_lut, _cover, _blocks = tables.ruleset.luts(vocab)
    woods = np.zeros(256, dtype=bool)
    woods[: len(move_lut)] = move_lut == MOVE_CLASSES.index("woods")

    def burn(sel: np.ndarray, shapes_of: np.ndarray, all_touched: bool, into: np.ndarray) -> None:
        if sel.any():
            rasterio.features.rasterize(
                list(zip(shapes_of[sel], codes[sel].astype(int), strict=True)),
                out=into,
                transform=grid.transform,
                all_touched=all_touched,
                dtype=np.uint8,
            )

    for p in np.unique(sorted_prio[valid]):
        at_p = valid & (sorted_prio == p)
        burn(at_p & ~thin, geoms, False, out)  # areas, buffered wide lines, points
        burn(at_p & wide, centre_lines, True, out)  # wide lines' centre lines: no gaps
        burn(at_p & thin & ~water, geoms, True, out)
        if (at_p & thin & water).any():
            lines = np.full(grid.shape, NONE, dtype=np.uint8)
            burn(at_p & thin & water, geoms, True, lines)
            below = out if under is None else np.where(out != NONE, out, under)
            paint = (lines != NONE) & ~woods[below]
            out[paint] = lines[paint]
    return out


def vector_overlaps(feats: gpd.GeoDataFrame, grid: Grid) -> bool:
    if feats.empty:
        return False
    x0, y0, x1, y1 = feats.to_crs(grid.crs).total_bounds
    gx0, gy0, gx1, gy1 = grid.bounds
    return bool(x0 < gx1 and x1 > gx0 and y0 < gy1 and y1 > gy0)


def read_landcover_raster(
    path: str | os.PathLike[str], grid: Grid, tables: CodeTables
) -> tuple[np.ndarray, RasterCodeTable]:
    """A categorical land-cover raster resampled onto ``grid`` and mapped to feature codes.

    Returns the feature layer (uint8, ``NONE`` where the raster has no data) and the code table
    used (``tables.raster`` or the shipped table whose codes cover most cells).
    """
    path = Path(path)
    with _open_checked(path) as src:
        if src.crs is None:
            raise CRSError(path, "expected a coordinate reference system, got none")
        if not np.issubdtype(np.dtype(src.dtypes[0]), np.integer):
            raise DataSourceError(
                path, f"expected integer land-cover codes, got {src.dtypes[0]} values"
            )
        gb = rasterio.warp.transform_bounds(grid.crs, src.crs, *grid.bounds, densify_pts=21)
        sb = src.bounds
        if not (gb[0] < sb.right and gb[2] > sb.left and gb[1] < sb.top and gb[3] > sb.bottom):
            raise NoOverlapError(path, "expected land cover overlapping the DEM, got none")
        src_res = _src_ground_res(src, grid)
        resampling = (
            rasterio.warp.Resampling.mode
            if src_res < grid.res / 1.5
            else rasterio.warp.Resampling.nearest
        )
        codes = np.full(grid.shape, -1, dtype=np.int32)
        try:
            rasterio.warp.reproject(
                source=rasterio.band(src, 1),
                destination=codes,
                dst_transform=grid.transform,
                dst_crs=grid.crs,
                dst_nodata=-1,
                resampling=resampling,
            )
        except (rasterio.errors.RasterioIOError, rasterio.errors.RasterioError) as exc:
            raise DataSourceError(
                path, f"expected readable raster data, got a corrupt file ({_short(exc)})"
            ) from exc
    covered = codes >= 0
    if not covered.any():
        raise NoOverlapError(path, "expected land-cover values over the DEM, got only nodata")
    present, counts = np.unique(codes[covered], return_counts=True)
    table = tables.raster or detect_raster_table(present, counts, tables.vocab)
    size = int(max(present.max(), max(table.mapping, default=0))) + 1
    lut, known = table.lut(tables.vocab, size)
    unknown = ~known[present]
    if unknown.any():
        detail = ", ".join(
            f"{int(c)}: {int(n)} cells"
            for c, n in zip(present[unknown], counts[unknown], strict=True)
        )
        share = counts[unknown].sum() / counts.sum()
        if tables.unknown_as is None:
            raise ScenarioFileError(
                path,
                f"expected land-cover codes of {Path(table.source).name}, got unknown codes "
                f"({detail}; {share:.0%} of the cells); name the right table with --codes, "
                f"or map them with --unknown-as CLASS (e.g. --unknown-as {DEFAULT_FEATURE})",
            )
        lut[~known] = tables.vocab.code(tables.unknown_as)
        warnings.warn(
            UnknownCodeWarning(
                f"{path}: land-cover codes not in {Path(table.source).name} ({detail}; "
                f"{share:.0%} of the cells); mapped to {tables.unknown_as!r} (--unknown-as)"
            ),
            stacklevel=2,
        )
    out = np.full(grid.shape, NONE, dtype=np.uint8)
    out[covered] = lut[codes[covered]]
    return out, table


def _src_ground_res(src: rasterio.DatasetReader, grid: Grid) -> float:
    crs = CRS.from_user_input(src.crs)
    if crs.is_projected:
        return float(min(src.res))
    return (
        float(min(src.res))
        * 111_320.0
        * float(np.cos(np.radians((src.bounds.top + src.bounds.bottom) / 2)))
    )


def check_vector_file(
    path: str | os.PathLike[str],
    tables: CodeTables,
    significant_streams: frozenset[str] = frozenset(),
) -> gpd.GeoDataFrame:
    """Read a land-cover or overlay vector file into feature rows, raising on unusable files."""
    gdf = read_vector(path)
    feats = vector_features(gdf, tables, path, significant_streams)
    if len(gdf) and feats.empty:
        raise ScenarioFileError(
            path, "expected features with a 'feature' property or OSM tags in osm.csv, got none"
        )
    return feats
