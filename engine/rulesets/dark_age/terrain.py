"""Dark Age terrain (5.13, 5.14, 5.20) from the Battlefield's neutral ``feature`` layer, through the
code table ``data/codes/dark-age.csv`` (``feature,move,cover,blocks_sight,note``; a user may
override it like any code table), and 5.13's steep hill slopes from the DEM
(:func:`steep_slopes`).

``move`` is the chapter's terrain kind (:class:`DarkAgeTerrain`). The chapter has no cover or
sight rules (its combat chapter is absent), so ``cover`` and ``blocks_sight`` are those of the
complete game whose combat and sight a ``dark-age`` composition uses, *Battle for 2mm Earth*
v0.9 (charts 7.2 and 6.2, the same cells as ``2mm-earth.csv``; a test keeps them equal).

>>> table = load_dark_age_table()
>>> table.terrain["forest"], table.terrain["river"], table.terrain["orchard"]
(<DarkAgeTerrain.DIFFICULT: 'difficult'>, <DarkAgeTerrain.MAJOR_OBSTACLE: 'major_obstacle'>, \
<DarkAgeTerrain.LIGHT_COVER: 'light_cover'>)
>>> passable(DarkAgeTerrain.DIFFICULT, Troop.HEAVY_CAVALRY, on_road=False)
False
>>> table.terrain["sand"], passable(DarkAgeTerrain.SOFT_SAND, Troop.CAMELS, on_road=False)
(<DarkAgeTerrain.SOFT_SAND: 'soft_sand'>, True)
"""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.rulesets.dark_age.formations import Troop, is_mounted
from scenario_builder.codetables import FeatureVocabulary, _read_rows, codes_dir, load_features
from scenario_builder.errors import ScenarioFileError

__all__ = [
    "STEEP_SLOPE_DEG",
    "DarkAgeTable",
    "DarkAgeTerrain",
    "difficult",
    "load_dark_age_table",
    "passable",
    "steep_slopes",
]

HEADER = ("feature", "move", "cover", "blocks_sight")


class DarkAgeTerrain(enum.IntEnum):
    """The chapter's terrain kinds (codes are this table's own, stored in a lookup array)."""

    OPEN = 0
    LIGHT_COVER = 1  # 5.13: does not affect movement
    ROAD = 2  # 5.13: negates difficult terrain for columns (not steep slopes)
    MINOR_OBSTACLE = 3  # 5.13/5.20: crossed as difficult terrain
    DIFFICULT = 4  # 5.13: DP on a 4; impassable to mounted troops off roads
    MAJOR_OBSTACLE = 5  # 5.20: ½ move, 1 DP (2 mounted)
    IMPASSABLE = 6  # 5.14: light infantry only, 1 jt a phase, 1 DP
    SOFT_SAND = 7  # 5.13: difficult, but "troops mounted on camels are not affected"

    @property
    def label(self) -> str:
        return self.name.lower()

    def __repr__(self) -> str:
        return f"<{type(self).__name__}.{self.name}: {self.label!r}>"


_BY_LABEL = {t.label: t for t in DarkAgeTerrain}


@dataclass(frozen=True)
class DarkAgeTable:
    """feature name -> :class:`DarkAgeTerrain`, and the lookup array by feature code."""

    terrain: Mapping[str, DarkAgeTerrain]
    lut: np.ndarray  # uint8, indexed by the feature layer's codes
    source: str

    def classify(self, feature_codes: np.ndarray) -> np.ndarray:
        """The Dark Age terrain of each cell of a feature layer (same shape, uint8)."""
        return self.lut[np.asarray(feature_codes, dtype=np.intp)]


def load_dark_age_table(
    path: str | os.PathLike[str] | None = None, vocab: FeatureVocabulary | None = None
) -> DarkAgeTable:
    """Read and check the table: every feature of the vocabulary exactly once, known kinds."""
    vocab = vocab or load_features()
    p = Path(path) if path else codes_dir() / "dark-age.csv"
    header, rows = _read_rows(p)
    if any(col not in header for col in HEADER):
        raise ScenarioFileError(p, f"expected header {','.join(HEADER)}, got {','.join(header)}")
    out: dict[str, DarkAgeTerrain] = {}
    for i, r in enumerate(rows, start=2):
        name = vocab.check(r["feature"], p, f"line {i}")
        kind = _BY_LABEL.get(r["move"].lower())
        if kind is None:
            raise ScenarioFileError(
                p, f"line {i}: expected move in {sorted(_BY_LABEL)}, got {r['move']!r}"
            )
        if name in out:
            raise ScenarioFileError(p, f"line {i}: feature {name!r} given twice")
        out[name] = kind
    missing = [n for n in vocab.names() if n not in out]
    if missing:
        raise ScenarioFileError(p, f"expected a row for every feature, missing {missing}")
    lut = np.zeros(max(f.code for f in vocab.features) + 1, dtype=np.uint8)
    for f in vocab.features:
        lut[f.code] = int(out[f.name])
    return DarkAgeTable(out, lut, str(p))


def difficult(terrain: DarkAgeTerrain, troop: Troop) -> bool:
    """5.13: is this ground difficult terrain to this troop type (a DP on a 4 for formed units,
    closed to mounted troops off a road)? Minor obstacles are crossed as difficult terrain
    (5.20); soft sand is difficult to all but camels.

    >>> difficult(DarkAgeTerrain.SOFT_SAND, Troop.DARK_AGE_INFANTRY)
    True
    >>> difficult(DarkAgeTerrain.SOFT_SAND, Troop.CAMELS)
    False
    """
    if terrain is DarkAgeTerrain.SOFT_SAND:
        return troop is not Troop.CAMELS
    return terrain in (DarkAgeTerrain.DIFFICULT, DarkAgeTerrain.MINOR_OBSTACLE)


def passable(terrain: DarkAgeTerrain, troop: Troop, *, on_road: bool) -> bool:
    """5.13-5.14: may this troop type enter the terrain?

    Impassable ground only to light infantry; difficult ground (steep slopes among it) and soft
    sand not to mounted troops unless on a road, but camels go over sand; all mounted troops
    may cross minor obstacles.

    >>> passable(DarkAgeTerrain.IMPASSABLE, Troop.LIGHT_INFANTRY, on_road=False)
    True
    >>> passable(DarkAgeTerrain.MINOR_OBSTACLE, Troop.HEAVY_CAVALRY, on_road=False)
    True
    >>> passable(DarkAgeTerrain.SOFT_SAND, Troop.LIGHT_CAVALRY, on_road=False)
    False
    """
    if terrain is DarkAgeTerrain.IMPASSABLE:
        return troop is Troop.LIGHT_INFANTRY
    if terrain is DarkAgeTerrain.MINOR_OBSTACLE:
        return True
    if is_mounted(troop) and difficult(terrain, troop):
        return on_road
    return True


#: 5.13 "steep hill slopes" are difficult terrain. The chapter gives no gradient; the reading
#: is medieval-d10's (docs/rules-interpretations.md, "TERRAIN CHART slopes"): 10 degrees and over
#: (steeper than 1 in 6), where formed foot must climb rather than march and horses labour, up
#: to the build's cliff threshold (35 degrees; cells past it are ``cliff``, impassable 5.14), so
#: the same hillside is steep under both books.
STEEP_SLOPE_DEG = 10.0
#: the kinds a steep slope makes difficult: open going, light cover, minor obstacles (a brook
#: in a steep gully is closed to horse as the slope is) and sand (a steep dune slows camels
#: too). Roads stay roads: "All mounted troops ... may also negotiate steep hill slopes on a
#: road", and a column - the only troops a road helps - rolls no die, so 5.13's "except steep
#: hill slopes" leaves it nothing to lose; difficult ground, obstacles and impassable ground
#: are already what they are.
_MADE_STEEP = np.array(
    [
        int(k)
        for k in (
            DarkAgeTerrain.OPEN,
            DarkAgeTerrain.LIGHT_COVER,
            DarkAgeTerrain.MINOR_OBSTACLE,
            DarkAgeTerrain.SOFT_SAND,
        )
    ],
    dtype=np.uint8,
)


def steep_slopes(move: np.ndarray, slope_deg: np.ndarray) -> np.ndarray:
    """The ``move`` layer with 5.13's steep hill slopes: cells of ``slope_deg`` >=
    :data:`STEEP_SLOPE_DEG` whose kind a slope changes become difficult (a new array).

    >>> m = np.array([0, 0, 2, 1, 4, 7], dtype=np.uint8)
    >>> steep_slopes(m, np.array([9.9, 10.0, 20.0, 12.0, 12.0, 15.0])).tolist()
    [0, 4, 2, 4, 4, 4]
    """
    out = np.array(move, dtype=np.uint8, copy=True)
    steep = (np.asarray(slope_deg) >= STEEP_SLOPE_DEG) & np.isin(out, _MADE_STEEP)
    out[steep] = int(DarkAgeTerrain.DIFFICULT)
    return out
