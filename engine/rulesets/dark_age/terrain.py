"""Dark Age terrain (5.13, 5.14, 5.20) from the Battlefield's neutral ``feature`` layer, through the
code table ``data/codes/dark-age.csv`` (``feature,move,cover,blocks_sight,note``; a user may
override it like any code table).

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

__all__ = ["DarkAgeTable", "DarkAgeTerrain", "load_dark_age_table", "passable"]

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


def passable(terrain: DarkAgeTerrain, troop: Troop, *, on_road: bool) -> bool:
    """5.13-5.14: may this troop type enter the terrain?

    Impassable ground only to light infantry; difficult ground not to mounted troops unless on a
    road (all mounted troops may cross minor obstacles; camels' soft sand is not told apart in
    the vocabulary).

    >>> passable(DarkAgeTerrain.IMPASSABLE, Troop.LIGHT_INFANTRY, on_road=False)
    True
    >>> passable(DarkAgeTerrain.MINOR_OBSTACLE, Troop.HEAVY_CAVALRY, on_road=False)
    True
    """
    if terrain is DarkAgeTerrain.IMPASSABLE:
        return troop is Troop.LIGHT_INFANTRY
    if terrain is DarkAgeTerrain.DIFFICULT and is_mounted(troop):
        return on_road
    return True
