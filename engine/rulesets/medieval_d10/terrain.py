"""This ruleset's terrain from the Battlefield: the ``feature`` vocabulary through
``data/codes/medieval-d10.csv``, and slopes from the DEM.

The code table maps every feature of ``data/codes/features.csv`` to a TERRAIN CHART terrain
(:class:`Terrain`), a cover class (soft / hard, used by the firing, melee, morale and control
charts) and whether it blocks sight. Slopes come from the Battlefield's slope layer (degrees):
:data:`GENTLE_MIN_DEG` and :data:`STEEP_MIN_DEG` split it into flat, "Gentle hill slopes" and
"Steep hill slopes"; cells past the build's cliff threshold (35 deg) are already ``cliff``.

>>> table = load_terrain_table()
>>> table.rows["forest"].terrain, table.rows["forest"].cover
(<Terrain.WOOD: 'wood'>, <Cover.SOFT: 'soft'>)
>>> slope_class(2.0), slope_class(6.0), slope_class(14.0)
(<SlopeClass.FLAT: 'flat'>, <SlopeClass.GENTLE: 'gentle'>, <SlopeClass.STEEP: 'steep'>)
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from engine.rulesets.medieval_d10.charts import (
    LOCAL_SKIRMISHER_FRACTION,
    TERRAIN_CHART,
    TerrainColumn,
    TerrainRow,
)
from scenario_builder.codetables import codes_dir, load_features
from scenario_builder.errors import DataSourceError, ScenarioFileError

__all__ = [
    "GENTLE_MIN_DEG",
    "STEEP_MIN_DEG",
    "Cover",
    "SlopeClass",
    "Terrain",
    "TerrainTable",
    "load_terrain_table",
    "march_fraction",
    "slope_class",
    "slope_classes",
]

TABLE_NAME = "medieval-d10"


class Terrain(StrEnum):
    """This ruleset's terrain types: the TERRAIN CHART rows split into their named features,
    plus open ground, roads and tracks, and ground no troops enter."""

    OPEN = "open"
    BUILT_UP = "built_up"
    BROKEN_GROUND = "broken_ground"
    WOOD = "wood"
    ORCHARD_COPSE = "orchard_copse"
    STREAM_FORD = "stream_ford"
    MARSH = "marsh"
    WALL_FENCE_HEDGE = "wall_fence_hedge"
    ROAD_TRACK = "road_track"
    IMPASSABLE = "impassable"

    @property
    def chart_row(self) -> TerrainRow | None:
        """The TERRAIN CHART row (None: flat going, or impassable)."""
        return _ROW.get(self)


_ROW: dict[Terrain, TerrainRow] = {
    Terrain.BUILT_UP: TerrainRow.BUILT_UP_BROKEN_WOOD,
    Terrain.BROKEN_GROUND: TerrainRow.BUILT_UP_BROKEN_WOOD,
    Terrain.WOOD: TerrainRow.BUILT_UP_BROKEN_WOOD,
    Terrain.ORCHARD_COPSE: TerrainRow.ORCHARD_COPSE,
    Terrain.STREAM_FORD: TerrainRow.STREAM_FORD,
    Terrain.MARSH: TerrainRow.MARSH,
    Terrain.WALL_FENCE_HEDGE: TerrainRow.WALL_FENCE_HEDGE,
}

#: Where the TERRAIN CHART's "*" note lets local skirmishers move at 0.75 M.R.
_LOCAL_GROUND = frozenset({Terrain.WOOD, Terrain.MARSH, Terrain.BUILT_UP})


class TerrainCode(IntEnum):
    """:class:`Terrain` as raster codes (the ``move`` layer of this ruleset's ground)."""

    OPEN = 0
    BUILT_UP = 1
    BROKEN_GROUND = 2
    WOOD = 3
    ORCHARD_COPSE = 4
    STREAM_FORD = 5
    MARSH = 6
    WALL_FENCE_HEDGE = 7
    ROAD_TRACK = 8
    IMPASSABLE = 9

    @property
    def terrain(self) -> Terrain:
        return Terrain(self.name.lower())


class Cover(StrEnum):
    """ "Soft Cover" / "Hard Cover" of the firing, melee, morale and control charts."""

    NONE = "none"
    SOFT = "soft"
    HARD = "hard"


class CoverCode(IntEnum):
    """:class:`Cover` as raster codes (the ``cover`` layer)."""

    NONE = 0
    SOFT = 1
    HARD = 2

    @property
    def cover(self) -> Cover:
        return Cover(self.name.lower())


class SlopeClass(StrEnum):
    FLAT = "flat"
    GENTLE = "gentle"
    STEEP = "steep"


#: Slope thresholds (docs/rules-interpretations.md, "TERRAIN CHART slopes"): below 3 deg
#: (1 in 19) is flat going - the book's hills are features a player places, and a 25-30 m DEM
#: shows 1-2 deg of noise and plough ridges on level fields; 3 deg to under 10 deg (up to 1 in
#: 6) is a gentle slope that halves formed troops' pace uphill; 10 deg and over (steeper than
#: 1 in 6, where formed foot must climb rather than march and horses labour) is steep, up to the
#: build's 35 deg cliff threshold.
GENTLE_MIN_DEG = 3.0
STEEP_MIN_DEG = 10.0


def slope_class(degrees: float) -> SlopeClass:
    """The slope class of one slope in degrees."""
    if degrees >= STEEP_MIN_DEG:
        return SlopeClass.STEEP
    if degrees >= GENTLE_MIN_DEG:
        return SlopeClass.GENTLE
    return SlopeClass.FLAT


def slope_classes(slope_deg: np.ndarray) -> np.ndarray:
    """Vectorised :func:`slope_class`: 0 flat, 1 gentle, 2 steep (uint8), same shape.

    >>> slope_classes(np.array([0.0, 2.99, 3.0, 9.99, 10.0, 40.0])).tolist()
    [0, 0, 1, 1, 2, 2]
    """
    return np.digitize(slope_deg, [GENTLE_MIN_DEG, STEEP_MIN_DEG]).astype(np.uint8)


_SLOPE_CODE = {0: SlopeClass.FLAT, 1: SlopeClass.GENTLE, 2: SlopeClass.STEEP}
_SLOPE_ROW = {SlopeClass.GENTLE: TerrainRow.GENTLE_SLOPE, SlopeClass.STEEP: TerrainRow.STEEP_SLOPE}


@dataclass(frozen=True, slots=True)
class TerrainRowSpec:
    """One line of the code table."""

    feature: str
    terrain: Terrain
    cover: Cover
    blocks_sight: bool
    note: str = ""


@dataclass(frozen=True)
class TerrainTable:
    """The feature -> terrain table, with lookup arrays by feature code for whole rasters."""

    rows: dict[str, TerrainRowSpec]
    source: str

    def for_codes(self, codes: np.ndarray, legend: dict[int, str]) -> np.ndarray:
        """The :class:`Terrain` name of every cell of a ``feature`` raster (object array)."""
        lut = {code: self.rows[name].terrain for code, name in legend.items() if name in self.rows}
        return np.vectorize(lambda c: lut.get(int(c), Terrain.OPEN), otypes=[object])(codes)


def _bool(text: str, path: Path, line: int) -> bool:
    value = text.strip().lower()
    if value not in ("true", "false"):
        raise ScenarioFileError(
            path, f"line {line}: expected blocks_sight true/false, got {text!r}"
        )
    return value == "true"


def _enum(enum: type[Any], text: str, path: Path, line: int, column: str) -> Any:
    try:
        return enum(text.strip().lower())
    except ValueError:
        expected = ", ".join(e.value for e in enum)
        raise ScenarioFileError(
            path, f"line {line}: expected {column} one of {expected}, got {text!r}"
        ) from None


def load_terrain_table(path: str | os.PathLike[str] | None = None) -> TerrainTable:
    """Read a ``feature,move,cover,blocks_sight,note`` table (``move``: the terrain class; the
    shipped one by default); every feature of the vocabulary needs a row, every row a known
    feature."""
    if path is None:
        return _shipped()
    return _load(Path(path))


@lru_cache(maxsize=1)
def _shipped() -> TerrainTable:
    return _load(codes_dir() / f"{TABLE_NAME}.csv")


def _load(path: Path) -> TerrainTable:
    vocab = load_features()
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            header = [h.strip() for h in reader.fieldnames or []]
            rows = list(reader)
    except OSError as exc:
        raise DataSourceError(path, f"cannot read: {exc.strerror or exc}") from None
    # the seam's TerrainTable columns: ``move`` holds this ruleset's terrain class
    needed = ("feature", "move", "cover", "blocks_sight")
    if any(col not in header for col in needed):
        raise ScenarioFileError(path, f"expected header {','.join(needed)},note; got {header}")
    out: dict[str, TerrainRowSpec] = {}
    for line, r in enumerate(rows, start=2):
        name = vocab.check(r["feature"].strip(), path, f"line {line}")
        if name in out:
            raise ScenarioFileError(path, f"line {line}: feature {name!r} appears twice")
        out[name] = TerrainRowSpec(
            name,
            _enum(Terrain, r["move"], path, line, "move"),
            _enum(Cover, r["cover"], path, line, "cover"),
            _bool(r["blocks_sight"], path, line),
            (r.get("note") or "").strip(),
        )
    missing = [n for n in vocab.names() if n not in out]
    if missing:
        raise ScenarioFileError(path, f"expected a row for every feature, missing {missing}")
    return TerrainTable(out, str(path))


def march_fraction(
    column: TerrainColumn,
    terrain: Terrain,
    slope: SlopeClass = SlopeClass.FLAT,
    *,
    uphill: bool = True,
    cavalry: bool = False,
    local: bool = False,
) -> Fraction | None:
    """TERRAIN CHART: the share of the March Rate a unit moving by ``column`` keeps in
    ``terrain`` on ``slope``; None where it may not go (impassable; marsh off a track).

    Slopes count ascending only, except for limbered artillery ("Up / Down"). Where terrain and
    slope both slow a unit the slower applies; on a road the road column's entry replaces the
    terrain's (slopes still apply: the road column is blank for them). Skirmishers local to
    woods, marsh or built-up areas move there at 0.75 M.R. (the "*" note).

    >>> march_fraction(TerrainColumn.CLOSE_LOOSE_INFANTRY, Terrain.WOOD)
    Fraction(1, 2)
    >>> march_fraction(TerrainColumn.SKIRMISH, Terrain.WOOD, local=True)
    Fraction(3, 4)
    >>> march_fraction(TerrainColumn.CLOSE_CAVALRY, Terrain.OPEN, SlopeClass.STEEP)
    Fraction(1, 4)
    >>> march_fraction(TerrainColumn.CLOSE_CAVALRY, Terrain.MARSH) is None
    True
    """
    if terrain is Terrain.IMPASSABLE:
        return None
    fractions: list[Fraction] = []
    row = terrain.chart_row
    if terrain is Terrain.ROAD_TRACK:
        fractions.append(Fraction(1))
    elif row is not None:
        cell = TERRAIN_CHART[row][column]
        if cell.track_only or cell.track_road_or_gap:
            return None
        fraction = cell.fraction
        if cavalry and cell.cavalry_fraction is not None:
            if cell.cavalry_track_road_or_gap:
                return None
            fraction = cell.cavalry_fraction
        if fraction is None:
            return None
        if column is TerrainColumn.SKIRMISH and local and terrain in _LOCAL_GROUND:
            fraction = max(fraction, LOCAL_SKIRMISHER_FRACTION)
        fractions.append(fraction)
    if slope is not SlopeClass.FLAT:
        cell = TERRAIN_CHART[_SLOPE_ROW[slope]][column]
        if uphill or cell.downhill:
            fractions.append(cell.fraction or Fraction(1))
    return min(fractions, default=Fraction(1))


def disorders(column: TerrainColumn, terrain: Terrain) -> bool:
    """TERRAIN CHART "Disordered": entering ``terrain`` disorders a unit moving by ``column``.

    >>> disorders(TerrainColumn.CLOSE_CAVALRY, Terrain.STREAM_FORD)
    True
    >>> disorders(TerrainColumn.SKIRMISH, Terrain.WOOD)
    False
    >>> disorders(TerrainColumn.SKIRMISH, Terrain.WALL_FENCE_HEDGE)
    False

    The Wall, Fence, Hedge row prints one "0.5 M.R. Disordered" across the four troop
    columns; its "Disordered" falls on formed troops only (:data:`FORMED_COLUMNS`), as in the
    Wood and Stream rows, which print it for those two columns and never for skirmishers or
    limbered guns (docs/rules-interpretations.md, "TERRAIN CHART: a wall disorders formed
    troops").
    """
    row = terrain.chart_row
    if row is TerrainRow.WALL_FENCE_HEDGE and column not in FORMED_COLUMNS:
        return False
    return row is not None and TERRAIN_CHART[row][column].disordered


#: the TERRAIN CHART columns its "Disordered" cells fall on (every row that prints it
#: separately prints it for these two only)
FORMED_COLUMNS = frozenset({TerrainColumn.CLOSE_LOOSE_INFANTRY, TerrainColumn.CLOSE_CAVALRY})


def slope_class_of_code(code: int) -> SlopeClass:
    """The :class:`SlopeClass` of a :func:`slope_classes` code."""
    return _SLOPE_CODE[int(code)]
