"""A ruleset's terrain vocabulary over one built battlefield, and what the engine asks of ground.

A built :class:`~scenario_builder.battlefield.Battlefield` keeps the ruleset-neutral layers:
``feature`` (forest, marsh, wall, ...), ``elevation``, ``slope`` and height ``level``. Each
ruleset names its own terrain classes and says, in its own code table (a CSV file, one row per
feature), which class every feature belongs to in each of the engine's three terrain roles:

- ``move``: the class the ruleset's speed chart reads (2mm Earth 7.3: plain, wet, debris, ...);
- ``cover``: the class its cover chart reads (2mm Earth 7.2: open, wet, debris, overhead);
- ``blocks_sight``: ``true``/``false``, terrain that blocks line of sight at or above the
  viewer's level (2mm Earth 6.2).

:meth:`TerrainTable.classify` turns the battlefield's feature raster into those three rasters
(and the ruleset may then reclassify by slope); :func:`ruleset_ground` gives the engine a
battlefield that answers with them, so one built battlefield serves every ruleset.

>>> from enum import IntEnum
>>> import numpy as np
>>> from scenario_builder.paths import data_dir
>>> from scenario_builder.battlefield import MoveClass, CoverClass
>>> t = TerrainTable(data_dir() / "codes" / "2mm-earth.csv", {"move": MoveClass,
...                                                            "cover": CoverClass})
>>> luts = t.luts({0: "open", 13: "forest"})
>>> int(luts["move"][13]), int(luts["cover"][13]), bool(luts["blocks_sight"][13])
(3, 3, True)
"""

from __future__ import annotations

import csv
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from shapely.geometry.base import BaseGeometry

from scenario_builder.errors import DataSourceError, ScenarioFileError

if TYPE_CHECKING:
    import pyproj

__all__ = ["CLASS_ROLES", "Ground", "TerrainTable", "ruleset_ground"]

#: the terrain roles the engine's mechanics read (movement sweeps, cover, line of sight)
CLASS_ROLES: tuple[str, ...] = ("move", "cover")


class Ground(Protocol):
    """What the engine asks of a battlefield (``scenario_builder.battlefield.Battlefield`` is
    one; a ruleset's view of it from :func:`ruleset_ground` is another)."""

    crs: pyproj.CRS
    res: float
    shape: tuple[int, int]
    meta: dict[str, Any]
    transform: Any

    @property
    def bounds(self) -> tuple[float, float, float, float]: ...

    def contains(self, x: Any, y: Any) -> Any: ...

    def codes_on_map(self, layer: str, x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]: ...

    def feature_at(self, x: Any, y: Any) -> Any: ...

    def level_at(self, x: Any, y: Any) -> Any: ...

    def layer(self, name: str) -> np.ndarray: ...

    def to_xy(self, lon: Any, lat: Any) -> tuple[Any, Any]: ...

    def fractions(self, polygon: BaseGeometry, layer: str = "move") -> dict[Any, float]: ...

    def line_of_sight(
        self,
        a: tuple[float, float],
        b: tuple[float, float],
        *,
        edge_m: float = ...,
        eye_a: int = 0,
        eye_b: int = 0,
    ) -> bool: ...

    def line_of_sight_many(
        self, a: np.ndarray, b: np.ndarray, *, edge_m: float = ..., eye_a: Any = 0, eye_b: Any = 0
    ) -> np.ndarray: ...

    def with_layers(self, layers: Mapping[str, np.ndarray]) -> Ground: ...


@dataclass(frozen=True)
class TerrainTable:
    """A ruleset's code table: ``feature`` then one column per role in ``classes`` (class
    names, lower case, of that role's IntEnum) and ``blocks_sight`` (true/false); other columns
    (``note``) are ignored."""

    path: Path
    classes: Mapping[str, type[IntEnum]]
    _rows: dict[str, dict[str, str]] = field(default_factory=dict, compare=False, repr=False)

    def rows(self) -> dict[str, dict[str, str]]:
        """feature -> {role: class name}, read once; bad files give a one-line error."""
        if self._rows:
            return self._rows
        path = Path(self.path)
        if not path.exists():
            raise DataSourceError(path, "terrain code table not found")
        want = ("feature", *self.classes, "blocks_sight")
        try:
            with path.open(newline="", encoding="utf-8") as fh:
                reader = csv.DictReader(fh)
                header = [h.strip() for h in reader.fieldnames or []]
                rows = [
                    {(k or "").strip(): (v or "").strip().lower() for k, v in r.items()}
                    for r in reader
                ]
        except (UnicodeDecodeError, csv.Error) as exc:
            raise ScenarioFileError(path, f"expected a UTF-8 CSV terrain table, got {exc}") from exc
        missing = [c for c in want if c not in header]
        if missing:
            raise ScenarioFileError(path, f"expected columns {list(want)}, missing {missing}")
        out: dict[str, dict[str, str]] = {}
        for i, r in enumerate(rows, start=2):
            for role, enum in self.classes.items():
                names = [m.name.lower() for m in enum]
                if r[role] not in names:
                    raise ScenarioFileError(
                        path, f"line {i}: expected {role} in {names}, got {r[role]!r}"
                    )
            if r["blocks_sight"] not in ("true", "false"):
                raise ScenarioFileError(
                    path, f"line {i}: expected blocks_sight true/false, got {r['blocks_sight']!r}"
                )
            out[r["feature"]] = r
        self._rows.update(out)
        return self._rows

    def class_names(self) -> dict[str, list[str]]:
        """Each role's class names, in code order (for ``scenario-builder rulesets``)."""
        return {role: [m.name.lower() for m in enum] for role, enum in self.classes.items()}

    def luts(self, legend: Mapping[int, str]) -> dict[str, np.ndarray]:
        """Lookup arrays indexed by feature code (``legend``: code -> feature name)."""
        rows = self.rows()
        size = max([256, *(int(k) + 1 for k in legend)])
        out: dict[str, np.ndarray] = {role: np.zeros(size, np.uint8) for role in self.classes}
        out["blocks_sight"] = np.zeros(size, bool)
        unknown = [name for name in legend.values() if name not in rows]
        if unknown:
            raise ScenarioFileError(
                Path(self.path), f"expected a row for every feature, missing {sorted(unknown)}"
            )
        for code, name in legend.items():
            row = rows[name]
            for role, enum in self.classes.items():
                out[role][int(code)] = int(enum[row[role].upper()])
            out["blocks_sight"][int(code)] = row["blocks_sight"] == "true"
        return out

    def classify(self, bf: Ground) -> dict[str, np.ndarray]:
        """The battlefield's feature raster through this table: one raster per role."""
        luts = self.luts(bf.meta["legend"]["feature"])
        feature = bf.layer("feature")
        return {role: lut[feature] for role, lut in luts.items()}


#: battlefield -> {ruleset class: its view}; weak, so a battlefield's views go with it
_VIEWS: weakref.WeakKeyDictionary[Any, dict[object, Ground]] = weakref.WeakKeyDictionary()

SlopeHook = Callable[[dict[str, np.ndarray], np.ndarray], dict[str, np.ndarray]]


def ruleset_ground(
    bf: Ground,
    key: object,
    table: TerrainTable,
    slope_hook: SlopeHook,
    info: Mapping[str, Any] | None = None,
) -> Ground:
    """``bf`` as a ruleset (``key``: its class) sees it: its ``move``/``cover``/``blocks_sight``
    layers from ``table`` over the feature layer, then ``slope_hook(layers, slope)`` (cached).

    The view's ``meta`` names the ruleset's classes (``legend``), the table they come from
    (``terrain_table``: the CSV's stem, e.g. ``medieval-d10``) and ``info`` (the ruleset's name
    and what else it tells readers of the ground, such as the maps: ``Ruleset.ground``)."""
    views = _VIEWS.setdefault(bf, {})
    view = views.get(key)
    if view is None:
        layers = slope_hook(table.classify(bf), bf.layer("slope"))
        view = bf.with_layers(layers)
        # the view's legend names the ruleset's classes (its own dict: bf's meta is untouched)
        legend = dict(bf.meta.get("legend", {}))
        for role, enum in table.classes.items():
            legend[role] = {int(m): m.name.lower() for m in enum}
        view.meta = {
            **bf.meta,
            **(info or {}),
            "legend": legend,
            "terrain_table": Path(table.path).stem,
        }
        views[key] = view
    return view
