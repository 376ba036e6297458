"""A medieval-d10 scenario: which ground, which troop lists, where each unit stands.

.. code-block:: yaml

    id: flodden_1513_d10
    ruleset: medieval-d10
    battlefield: {slug: flodden}          # the same built ground every ruleset uses
    figure_scale: 25mm                    # 15mm | 25mm (engine.rulesets.medieval_d10.scale)
    weather: light_rain                   # dry | light_rain | heavy_rain
    optional_rules: {part_dice: true, automatic_kills: true}
    sides:
      - id: scots
        army: scots_1513                  # data/troops/medieval/<army>.yaml
        units:
          - {id: sc_home, position: {lonlat: [-2.1905, 55.6165]}, facing: 0, order: attack}

>>> sc = load_medieval_scenario("flodden_1513_d10")
>>> sc.ruleset, [s.id for s in sc.sides]
('medieval-d10', ['scots', 'english'])
"""

from __future__ import annotations

from dataclasses import replace as dc_replace
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from engine.dice import Dice
from engine.rulesets.medieval_d10.battle import MedievalBattle, deploy_unit
from engine.rulesets.medieval_d10.scale import FigureScale, ground_scale
from engine.rulesets.medieval_d10.terrain import Terrain, TerrainTable, load_terrain_table
from engine.rulesets.medieval_d10.units import TroopList, Unit, load_troop_list
from engine.scenario import BattlefieldRef
from engine.yamlio import read_yaml, validate
from scenario_builder.errors import ScenarioFileError
from scenario_builder.paths import data_dir

__all__ = ["MedievalScenario", "build_battle", "load_medieval_scenario"]


class LonLat(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    lonlat: tuple[float, float]


class Placement(BaseModel):
    """Where one unit of the side's troop list stands, and what it is told."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    position: LonLat
    facing: float = Field(0.0, ge=0.0, lt=360.0)
    order: Literal["attack", "hold"] = "hold"
    from_turn: int = Field(1, ge=1)
    commander: str | None = None  # a commander figure of the list standing with this unit


class SideSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    name: str = ""
    army: str
    colour: str = "#555555"
    home_edge: Literal["north", "south", "east", "west"] = "south"
    units: list[Placement] = Field(min_length=1)


class OptionalRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    part_dice: bool = False
    automatic_kills: bool = False


class MedievalScenario(BaseModel):
    """A scenario for ruleset ``medieval-d10``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    name: str = ""
    ruleset: Literal["medieval-d10"]
    battlefield: BattlefieldRef
    figure_scale: FigureScale = FigureScale.MM25
    date: str = ""
    time: str = "day"
    weather: Literal["dry", "light_rain", "heavy_rain"] = "dry"
    wind: str = ""
    max_turns: int = Field(30, ge=1)
    optional_rules: OptionalRules = OptionalRules()
    break_fraction: float = Field(0.5, gt=0.0, le=1.0)
    #: feature -> terrain for this battle only (a historical reading of the ground, justified in
    #: ``terrain_note``), over data/codes/medieval-d10.csv
    terrain_overrides: dict[str, Terrain] = Field(default_factory=dict)
    terrain_note: str = ""
    sides: list[SideSpec] = Field(min_length=2, max_length=2)
    historical_outcome: dict[str, Any] | None = None
    _path: Path | None = PrivateAttr(None)
    _armies: dict[str, TroopList] = PrivateAttr(default_factory=dict)

    @property
    def path(self) -> Path | None:
        return self._path

    @model_validator(mode="after")
    def _ids(self) -> Self:
        ids = [p.id for s in self.sides for p in s.units]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"units placed twice: {dupes}")
        return self

    def army(self, side: SideSpec) -> TroopList:
        return self._armies[side.id]


_HOME_BEARING = {"north": 0.0, "east": 90.0, "south": 180.0, "west": 270.0}


def _resolve(name_or_path: str | Path, folder: str) -> Path:
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml"):
        return p
    return data_dir() / folder / f"{name_or_path}.yaml"


def load_medieval_scenario(name_or_path: str | Path) -> MedievalScenario:
    """Read and validate a medieval-d10 scenario and its troop lists; every placed unit must be
    in its side's list (errors name the file and line)."""
    path = _resolve(name_or_path, "scenarios/medieval")
    data, lines = read_yaml(path)
    sc = validate(MedievalScenario, data, path, lines)
    sc._path = path
    for i, side in enumerate(sc.sides):
        army_path = _resolve(side.army, "troops/medieval")
        if not army_path.is_absolute() and not army_path.exists():
            army_path = path.parent / army_path
        army = load_troop_list(army_path)
        sc._armies[side.id] = army
        known = {u.id for u in army.units}
        commanders = {c.id for c in army.commanders}
        for j, place in enumerate(side.units):
            line = lines.get(("sides", i, "units", j))
            where = f"line {line}: " if line else ""
            if place.id not in known:
                raise ScenarioFileError(
                    path, f"{where}unit {place.id!r} is not in troop list {side.army}"
                )
            if place.commander is not None and place.commander not in commanders:
                raise ScenarioFileError(
                    path, f"{where}commander {place.commander!r} is not in {side.army}"
                )
    return sc


def build_battle(
    sc: MedievalScenario, battlefield: Any, dice: Dice, *, max_turns: int | None = None
) -> MedievalBattle:
    """Deploy ``sc`` on ``battlefield`` (a built Battlefield) for one fight with ``dice``."""
    import math

    units = []
    commanders = {}
    for side in sc.sides:
        army = sc.army(side)
        specs = {u.id: u for u in army.units}
        kinds = {c.id: c.kind for c in army.commanders}
        general = next(c for c in army.commanders if c.contingent is None)
        commanders[side.id] = general.kind
        for place in side.units:
            xy = battlefield.to_xy(*place.position.lonlat)
            if not bool(battlefield.contains(*xy)):
                raise ScenarioFileError(
                    sc.path or sc.id, f"unit {place.id} at {place.position.lonlat} is off the map"
                )
            units.append(
                deploy_unit(
                    Unit.from_spec(specs[place.id]), side.id, xy, place.facing,
                    order=place.order, from_turn=place.from_turn,
                    commander=kinds.get(place.commander) if place.commander else None,
                )
            )  # fmt: skip
    table = load_terrain_table()
    unknown = sorted(set(sc.terrain_overrides) - set(table.rows))
    if unknown:
        raise ScenarioFileError(sc.path or sc.id, f"terrain_overrides: unknown features {unknown}")
    rows = dict(table.rows)
    for feature, terrain in sc.terrain_overrides.items():
        rows[feature] = dc_replace(rows[feature], terrain=terrain, note=sc.terrain_note)
    header = {
        "scenario": sc.id,
        "ruleset": sc.ruleset,
        "seed": dice.seed,
        "figure_scale": sc.figure_scale.value,
        "weather": sc.weather,
        "home_bearing": {s.id: math.radians(_HOME_BEARING[s.home_edge]) for s in sc.sides},
    }
    return MedievalBattle(
        battlefield, units, commanders, dice, ground_scale(sc.figure_scale),
        weather=sc.weather, max_turns=max_turns or sc.max_turns,
        break_fraction=sc.break_fraction, part_dice=sc.optional_rules.part_dice,
        automatic_kills=sc.optional_rules.automatic_kills, header=header,
        terrain=TerrainTable(rows, f"{table.source} + {sc.id} terrain_overrides"),
    )  # fmt: skip
