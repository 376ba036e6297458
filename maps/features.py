"""Names on the ground: roads, tracks, walls, hedges, streams and named places for maps and prints.

The build burns these into classes (a wall is debris, a road plain going) and forgets their names
and lines. A player wants them back: "the Emmitsburg Road", "the wall of the Wheatfield". They are
read again here from the battlefield's own vector sources (``battlefield.json`` ``sources``:
historical overlays with a ``feature`` column, OSM land cover and lines through the shipped OSM
tag table), reprojected to the battlefield's grid and clipped to it. A source that has moved
since the build is skipped: names are a courtesy, never a reason to fail a map.
"""

from __future__ import annotations

import enum
import functools
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import shapely
from shapely.geometry.base import BaseGeometry

from scenario_builder.battlefield import Battlefield


class FeatureKind(enum.Enum):
    """How a ground feature is drawn (the build's vocabulary, ``data/codes/features.csv``)."""

    ROAD = "road"
    TRACK = "track"
    WALL = "wall"
    FIELD_WALL = "field_wall"
    HEDGE = "hedge"
    FENCE = "fence"
    RIVER = "river"
    STREAM = "stream"
    PLACE = "place"  # a named area or point: village, castle, wood, hill, field


#: vocabulary feature -> how it is drawn as a line (others are named areas when they have a name)
LINE_KINDS: dict[str, FeatureKind] = {
    "road": FeatureKind.ROAD,
    "track": FeatureKind.TRACK,
    "sunken_road": FeatureKind.TRACK,
    "wall": FeatureKind.WALL,
    "field_wall": FeatureKind.FIELD_WALL,
    "hedge": FeatureKind.HEDGE,
    "fence": FeatureKind.FENCE,
    "river": FeatureKind.RIVER,
    "stream": FeatureKind.STREAM,
    "brook": FeatureKind.STREAM,
}

#: (colour, width px, dash) on the web map; the print uses the same colours
LINE_STYLES: dict[FeatureKind, tuple[str, float, str | None]] = {
    FeatureKind.ROAD: ("#5d4037", 3.0, None),
    FeatureKind.TRACK: ("#8d6e63", 2.0, "6 4"),
    FeatureKind.WALL: ("#212121", 2.5, None),
    FeatureKind.FIELD_WALL: ("#616161", 2.0, None),
    FeatureKind.HEDGE: ("#33691e", 2.5, "2 3"),
    FeatureKind.FENCE: ("#795548", 1.5, "1 3"),
    FeatureKind.RIVER: ("#0d47a1", 3.0, None),
    FeatureKind.STREAM: ("#1565c0", 1.5, None),
}

VECTOR_KINDS = ("overlay", "landcover_vector")


@dataclass(frozen=True)
class GroundFeature:
    kind: FeatureKind
    name: str | None
    geometry: BaseGeometry  # battlefield CRS metres, clipped to the battlefield


_CACHE: weakref.WeakKeyDictionary[Battlefield, list[GroundFeature]] = weakref.WeakKeyDictionary()


@functools.cache
def _tables() -> Any:
    from scenario_builder.codetables import CodeTables

    return CodeTables.load()


def _source_paths(bf: Battlefield) -> list[Path]:
    out = []
    for src in bf.meta.get("sources") or []:
        if isinstance(src, dict) and src.get("kind") in VECTOR_KINDS and src.get("path"):
            p = Path(str(src["path"]))
            if not p.is_file() and bf.source_dir is not None:
                p = Path(bf.source_dir) / p.name  # a battlefield copied with its sources
            if p.is_file():
                out.append(p)
    return out


def ground_features(bf: Battlefield) -> list[GroundFeature]:
    """Every line feature (roads, tracks, walls, hedges, rivers, streams) and every named place
    of the battlefield's vector sources, in its CRS, clipped to its bounds (cached)."""
    if bf in _CACHE:
        return _CACHE[bf]
    from scenario_builder.errors import ScenarioError
    from scenario_builder.landcover import read_vector, vector_features

    frame = shapely.box(*bf.bounds)
    out: list[GroundFeature] = []
    for path in _source_paths(bf):
        try:
            gdf = read_vector(path)
            feats = vector_features(gdf, _tables(), path)
        except (ScenarioError, OSError, ValueError):
            continue  # a source the build read but that has changed since: no names, no error
        if feats.empty:
            continue
        names = gdf["name"].iloc[feats.index] if "name" in gdf.columns else None
        geoms = feats.to_crs(bf.crs).geometry
        for i, (feature, geom) in enumerate(zip(feats["feature"], geoms, strict=True)):
            name = names.iloc[i] if names is not None else None
            name = name if isinstance(name, str) and name.strip() else None
            kind = LINE_KINDS.get(str(feature))
            if geom is None or geom.is_empty:
                continue
            if kind is not None and geom.geom_type in ("LineString", "MultiLineString"):
                g = shapely.clip_by_rect(geom, *bf.bounds)
                if not g.is_empty:
                    out.append(GroundFeature(kind, name, g))
            elif name is not None and geom.intersects(frame):
                out.append(GroundFeature(FeatureKind.PLACE, name, geom.intersection(frame)))
    _CACHE[bf] = out
    return out


def label_point(g: BaseGeometry) -> shapely.Point:
    """Where a feature's name goes: a line's middle, an area's inside point."""
    if g.geom_type in ("LineString", "MultiLineString"):
        parts = list(getattr(g, "geoms", [g]))
        longest = max(parts, key=lambda p: p.length)
        return longest.interpolate(0.5, normalized=True)
    return g.representative_point()


def short_name(name: str, limit: int = 40) -> str:
    """A label, not a footnote: the part before a parenthesis or colon, cut at ``limit``.

    >>> short_name("Branxton Hill (Scottish position, 9 Sept 1513)")
    'Branxton Hill'
    >>> short_name("Wheatfield Road (Millerstown Road east of the Emmitsburg Road)")
    'Wheatfield Road'
    """
    for sep in (" (", ": ", "; "):
        if sep in name:
            name = name.split(sep, 1)[0]
    return name if len(name) <= limit else name[: limit - 1] + "\u2026"
