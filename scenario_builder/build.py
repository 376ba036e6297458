"""The terrain pipeline: DEM + land cover + overlays -> Battlefield (+ region and contour vectors).

Stages (each reported to ``progress`` if given):

1. read the DEM (voids filled; voids that are sea become ``water``), choose the local UTM grid,
   reproject (bilinear);
2. land cover: a raster (WorldCover / CORINE / NLCD) resampled onto the grid, then land-cover
   vectors (OSM tags) painted by feature priority, dense buildings promoted to ``built_up``;
3. historical overlays painted last (they win over everything);
4. slope; cells steeper than ``cliff_deg`` become ``cliff`` unless water/river;
5. classification through the ruleset table (7.1–7.3, 6.2);
6. height levels (6.2) and contour lines;
7. class regions as polygons.

>>> bf, regions, contours = build_site("minden", resolution=100.0)
>>> bf.crs.to_epsg(), bf.res, bf.meta["slug"]
(32632, 100.0, 'minden')
>>> sorted(regions.columns)
['blocks_sight', 'cover', 'feature', 'geometry', 'move']
>>> bool((contours["elevation"] == bf.meta["level_base_m"] + contours["level"] * bf.step).all())
True
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import geopandas as gpd
import numpy as np
import pandas as pd
import rasterio.features
import shapely

from scenario_builder.battlefield import Battlefield
from scenario_builder.build_defaults import BYTES_PER_CELL, MAX_CELLS
from scenario_builder.build_defaults import STAGES as STAGES  # the stages progress reports
from scenario_builder.classify import (
    CLIFF_DEG,
    DENSE_FRACTION,
    DENSE_WINDOW_M,
    apply_cliffs,
    classify,
    promote_dense_buildings,
    slope_degrees,
)
from scenario_builder.codetables import COVER_CLASSES, DEFAULT_FEATURE, MOVE_CLASSES, CodeTables
from scenario_builder.dem import (
    BBox,
    Grid,
    planned_grid,
    read_dem,
    reproject_dem,
    reproject_sea,
    target_grid,
)
from scenario_builder.errors import NoOverlapError, ScenarioWarning, TooLargeError
from scenario_builder.landcover import (
    NONE,
    burn_vectors,
    check_vector_file,
    is_raster,
    read_landcover_raster,
    vector_overlaps,
)
from scenario_builder.levels import MIN_AREA_M2, SMOOTH_M, STEP_M, contour_set, make_levels
from scenario_builder.sites import get_site

RULESET = "2mm-earth-v0.9"
Progress = Callable[[str], None]

PathLike = str | os.PathLike[str]


class BuildResult(NamedTuple):
    """What a build returns; unpacks as ``bf, regions, contours``."""

    battlefield: Battlefield
    regions: gpd.GeoDataFrame
    contours: gpd.GeoDataFrame

    def save(self, directory: PathLike) -> Path:
        """Write battlefield.tif/.json/.gpkg into ``directory`` (call inside ``atomic_dir``)."""
        with warnings.catch_warnings():
            # GDAL notes that the temporary name (atomic write) does not end in .gpkg
            warnings.filterwarnings(
                "ignore", message=".*(extension|GPKG).*", category=RuntimeWarning
            )
            return self.battlefield.save(
                Path(directory), regions=self.regions, contours=self.contours
            )


def _as_paths(items: PathLike | Iterable[PathLike] | None) -> list[Path]:
    if items is None:
        return []
    if isinstance(items, (str, os.PathLike)):
        return [Path(items)]
    return [Path(p) for p in items]


def build_from_paths(
    dem: PathLike,
    landcover: PathLike | Sequence[PathLike] | None = None,
    overlays: Sequence[PathLike] = (),
    bbox: BBox | None = None,
    *,
    bbox_crs: str | None = None,
    resolution: float | None = None,
    step: float = STEP_M,
    smooth_m: float | None = None,
    min_area_m2: float = MIN_AREA_M2,
    cliff_deg: float = CLIFF_DEG,
    dense_window_m: float = DENSE_WINDOW_M,
    dense_fraction: float = DENSE_FRACTION,
    codes: Sequence[PathLike] = (),
    significant_streams: Iterable[str] = (),
    unknown_as: str | None = None,
    skip_outside_overlays: bool = False,
    meta: dict[str, Any] | None = None,
    progress: Progress | None = None,
    max_cells: int | None = MAX_CELLS,
) -> BuildResult:
    """Build a Battlefield from files: a DEM, land cover (rasters and/or vector files), overlays.

    ``bbox`` is W,S,E,N in WGS84 degrees, or in ``bbox_crs`` (map metres); ``resolution``
    metres (default from the DEM); ``codes`` are user code tables replacing shipped ones of the
    same kind (see ``data/codes``).
    ``step`` and ``smooth_m`` shape the height levels (6.2); ``smooth_m`` None means
    :func:`default_smooth_m` of the DEM. OSM streams are plain brooks (7.2) unless their name is
    in ``significant_streams`` (then wet). Land-cover raster codes missing from the table are an
    error unless ``unknown_as`` names the feature they become. An overlay outside the area is an
    error, or with ``skip_outside_overlays`` (a shipped site's own overlay, built for any
    ``bbox``) skipped with a :class:`ScenarioWarning`; overlays are clipped to the area by
    rasterising them on its grid. A grid of more than ``max_cells`` cells is refused before
    anything is read (:func:`check_size`; None: no limit). Nothing is written; call
    ``.save(dir)`` on the result.
    """
    if max_cells is not None:
        check_size(
            dem,
            resolution=resolution,
            bbox=bbox,
            bbox_crs=bbox_crs,
            max_cells=max_cells,
            option="resolution",
            limit_name="max_cells=",
        )
    tell = progress or (lambda _stage: None)
    tables = CodeTables.load(codes, unknown_as=unknown_as)
    wet_names = frozenset(significant_streams)
    vocab = tables.vocab
    sources: list[dict[str, Any]] = []

    tell("dem")
    src = read_dem(dem, bbox, bbox_crs)
    grid = target_grid(src, resolution=resolution, bbox=bbox, bbox_crs=bbox_crs)
    elevation = reproject_dem(src, grid)
    sources.append(
        {
            "kind": "dem",
            "path": str(src.path),
            "crs": src.crs.to_string(),
            "voids_filled": src.voids,
            "sea_cells": src.sea_cells,
            "ground_res_m": round(src.ground_res, 3),
        }
    )

    tell("landcover")
    feature = np.full(grid.shape, vocab.code(DEFAULT_FEATURE), dtype=np.uint8)
    vector_feats = []
    for path in _as_paths(landcover):
        if is_raster(path):
            painted, table = read_landcover_raster(path, grid, tables)
            feature = np.where(painted != NONE, painted, feature)
            sources.append(
                {"kind": "landcover_raster", "path": str(path), "table": Path(table.source).name}
            )
        else:
            feats = check_vector_file(path, tables, wet_names)
            _require_overlap(feats, grid, path, "land cover")
            vector_feats.append(feats)
            sources.append({"kind": "landcover_vector", "path": str(path), "features": len(feats)})
    if vector_feats:
        burned = burn_vectors(_concat(vector_feats), grid, tables, under=feature)
        feature = np.where(burned != NONE, burned, feature)
    feature = promote_dense_buildings(feature, vocab, grid.res, dense_window_m, dense_fraction)
    sea = reproject_sea(src, grid)
    if sea is not None:
        # The DEM has no ground there: whatever the land cover says, it is sea (7.2 impractical
        # water); historical overlays below may still put a causeway or a pier on it.
        feature = np.where(sea, vocab.code("water"), feature).astype(feature.dtype)

    tell("overlays")
    overlay_feats = []
    for path in _as_paths(overlays):
        feats = check_vector_file(path, tables)
        if skip_outside_overlays and not vector_overlaps(feats, grid):
            warnings.warn(
                ScenarioWarning(f"{path}: the overlay lies outside the area built; skipped"),
                stacklevel=2,
            )
            sources.append({"kind": "overlay", "path": str(path), "skipped": "outside the area"})
            continue
        _require_overlap(feats, grid, path, "overlay")
        overlay_feats.append(feats)
        sources.append({"kind": "overlay", "path": str(path), "features": len(feats)})
    if overlay_feats:
        burned = burn_vectors(_concat(overlay_feats), grid, tables, under=feature)
        feature = np.where(burned != NONE, burned, feature)

    tell("classify")
    slope = slope_degrees(elevation, grid.res)
    feature = apply_cliffs(feature, slope, vocab, cliff_deg)
    classes = classify(feature, tables)

    tell("levels")
    if smooth_m is None:
        smooth_m = default_smooth_m(src.ground_res)
    levels, _smoothed, base = make_levels(
        elevation, grid.res, step=step, smooth_m=smooth_m, min_area_m2=min_area_m2
    )
    info = {
        "ruleset": RULESET,
        "legend": {"feature": vocab.legend()},
        "level_base_m": base,
        "step_m": step,
        "smooth_m": smooth_m,
        "min_area_m2": min_area_m2,
        "cliff_deg": cliff_deg,
        "significant_streams": sorted(wet_names),
        "sources": sources,
        "code_tables": {
            "features": Path(vocab.source).name,
            "ruleset": Path(tables.ruleset.source).name,
            "osm": Path(tables.osm.source).name,
        },
        **(meta or {}),
    }
    layers = {
        "elevation": elevation,
        "slope": slope,
        "level": levels,
        "feature": feature,
        **classes,
    }
    bf = Battlefield(layers, grid.transform, grid.crs, step, info)

    tell("contours")
    contours = contours_frame(levels, grid, base, step)
    tell("regions")
    regions = regions_frame(feature, grid, tables)
    return BuildResult(bf, regions, contours)


def check_size(
    dem: PathLike,
    *,
    resolution: float | None,
    bbox: BBox | None = None,
    bbox_crs: str | None = None,
    max_cells: int = MAX_CELLS,
    option: str = "--resolution",
    limit_name: str = "--max-cells",
) -> Grid:
    """The grid a build would make, from the DEM's header; a :class:`TooLargeError` naming
    ``option`` if it has more than ``max_cells`` cells.

    >>> from scenario_builder.sites import get_site
    >>> check_size(get_site("flodden").dem, resolution=25.0).shape
    (395, 395)
    >>> check_size(get_site("flodden").dem, resolution=0.5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scenario_builder.errors.TooLargeError: --resolution: 0.5 m cells ... would make 391,980,512 \
cells (~35.3 GB), over the limit of 16,000,000; raise it with --max-cells
    """
    grid = planned_grid(dem, resolution=resolution, bbox=bbox, bbox_crs=bbox_crs)
    cells = grid.width * grid.height
    if cells > max_cells:
        gb = cells * BYTES_PER_CELL / 1e9
        km = f"{grid.width * grid.res / 1000:.3g} x {grid.height * grid.res / 1000:.3g} km"
        raise TooLargeError(
            option,
            f"{grid.res:g} m cells over {km} would make {cells:,} cells (~{gb:.1f} GB), over "
            f"the limit of {max_cells:,}; raise it with {limit_name}",
        )
    return grid


def default_smooth_m(dem_ground_res: float) -> float:
    """Gaussian sigma for a DEM: 20 m, or half a source cell (its finer axis on the ground) when
    the DEM is coarser than 40 m.

    A 3-arc-second SRTM cell (about 90 x 52 m at 55 N) resampled to 25 m is a bilinear facet;
    smoothing by less than half a source cell leaves the facets' creases as one-level terraces
    that follow the source grid, not the ground.

    >>> default_smooth_m(7.32), default_smooth_m(52.49)
    (20.0, 26.2)
    """
    return max(SMOOTH_M, round(dem_ground_res / 2.0, 1))


def build_site(
    slug: str,
    *,
    resolution: float | None = None,
    step: float | None = None,
    smooth_m: float | None = None,
    significant_streams: Iterable[str] | None = None,
    bbox: BBox | None = None,
    progress: Progress | None = None,
    **options: Any,
) -> BuildResult:
    """Build a shipped battlefield (``data/battlefields/<slug>``) with its land cover, overlay.

    ``step`` and ``smooth_m`` default to the site's ``site.json`` ``levels`` section
    (``{"step_m": ..., "smooth_m": ...}``), then to 2 m and :func:`default_smooth_m`;
    ``significant_streams`` (OSM stream names that are wet, 7.2) to ``site.json``'s list.
    """
    site = get_site(slug)
    if significant_streams is None:
        significant_streams = site.significant_streams()
    site_levels = site.level_options()
    step = step if step is not None else site_levels.get("step_m", STEP_M)
    smooth_m = smooth_m if smooth_m is not None else site_levels.get("smooth_m")
    meta: dict[str, Any] = {"slug": site.slug, "name": site.battle, "year": site.year}
    attribution = [site.info[k] for k in ("landcover", "attribution") if site.info.get(k)]
    if attribution:
        meta["attribution"] = attribution
    return build_from_paths(
        site.dem,
        landcover=site.landcover_paths(),
        overlays=site.overlay_paths(),
        bbox=bbox,
        resolution=resolution,
        step=step,
        smooth_m=smooth_m,
        significant_streams=significant_streams,
        meta=meta,
        progress=progress,
        skip_outside_overlays=True,
        **options,
    )


def _concat(frames: list[gpd.GeoDataFrame]) -> gpd.GeoDataFrame:
    crs = frames[0].crs
    frames = [f.to_crs(crs) for f in frames]
    return gpd.GeoDataFrame(pd.concat(frames, ignore_index=True), geometry="geometry", crs=crs)


def _require_overlap(feats: gpd.GeoDataFrame, grid: Grid, path: Path, what: str) -> None:
    if not vector_overlaps(feats, grid):
        raise NoOverlapError(path, f"expected {what} overlapping the DEM, got none")


def contours_frame(levels: np.ndarray, grid: Grid, base: float, step: float) -> gpd.GeoDataFrame:
    """Contour lines between height levels: columns ``level`` (the level above the line) and
    ``elevation`` (its lower edge in metres)."""
    cs = contour_set(levels, grid.transform)
    line_of_point = np.repeat(np.arange(len(cs.level)), np.diff(cs.offsets))
    geoms = shapely.linestrings(cs.xy, indices=line_of_point) if len(cs.level) else []
    return gpd.GeoDataFrame(
        {"level": cs.level, "elevation": base + cs.level.astype(np.float64) * step},
        geometry=list(geoms) if len(cs.level) else [],
        crs=grid.crs,
    )


def regions_frame(feature: np.ndarray, grid: Grid, tables: CodeTables) -> gpd.GeoDataFrame:
    """Polygons of equal feature (hence equal move/cover/sight class) with class columns."""
    move_lut, cover_lut, blocks_lut = tables.ruleset.luts(tables.vocab)
    geoms, codes = [], []
    for geom, value in rasterio.features.shapes(feature, transform=grid.transform, connectivity=4):
        geoms.append(shapely.geometry.shape(geom))
        codes.append(int(value))
    code = np.asarray(codes, dtype=np.int64)
    return gpd.GeoDataFrame(
        {
            "feature": [tables.vocab.name(c) for c in codes],
            "move": [MOVE_CLASSES[i] for i in move_lut[code]],
            "cover": [COVER_CLASSES[i] for i in cover_lut[code]],
            "blocks_sight": blocks_lut[code].astype(bool),
        },
        geometry=geoms,
        crs=grid.crs,
    )
