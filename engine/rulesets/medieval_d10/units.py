"""Units of figures for the medieval d10 game, and this ruleset's troop-list schema.

A unit is a body of figures of one troop type (arm and weight: "Heavy, Medium or Light
Infantry"), one class (A-E, M), one order (close, loose, skirmish), in line or column, with its
melee weapon, optional missile weapon and armour grade; it loses figures. An artillery unit is a
number of gun models with a carriage (MOVEMENT CHART artillery row) and a gun (Firing Ranges
Chart row), limbered or unlimbered (and manhandled), and takes the chart's limber time.

A troop list (YAML) is validated with pydantic; a bad one is a :class:`ScenarioFileError` naming
the file, the line and the field:

>>> from pathlib import Path
>>> tl = load_troop_list(Path("data/troops/medieval/english_1513.yaml"))
>>> tl.ruleset, len(tl.profiles) > 3
('medieval-d10', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from pathlib import Path
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.rulesets.medieval_d10.charts import (
    ARTILLERY_MOVEMENT_CHART,
    MOVEMENT_CHART,
    ArmourGrade,
    ArtilleryCarriage,
    CommanderKind,
    MeleeRow,
    MissileWeapon,
    MovementCell,
    MovementRow,
    TerrainColumn,
    TroopClass,
)
from engine.yamlio import read_yaml, validate

__all__ = [
    "Arm",
    "CommanderSpec",
    "Formation",
    "InspirationalSpec",
    "MedievalProfile",
    "MeleeWeapon",
    "Order",
    "TroopList",
    "Unit",
    "UnitSpec",
    "load_troop_list",
    "movement_row",
]


class Arm(StrEnum):
    INFANTRY = "infantry"
    CAVALRY = "cavalry"
    ARTILLERY = "artillery"


class Order(StrEnum):
    """Close-order, loose-order or skirmish-order (MOVEMENT and TERRAIN CHART rows)."""

    CLOSE = "close"
    LOOSE = "loose"
    SKIRMISH = "skirmish"


class Formation(StrEnum):
    """Line or column (MOVEMENT CHART march-rate columns)."""

    LINE = "line"
    COLUMN = "column"


class MeleeWeapon(StrEnum):
    """Melee weapons by name; :data:`MELEE_ROW_OF` gives their MELEE CHART row."""

    TWO_HANDED_SWORD = "two_handed_sword"
    TWO_HANDED_AXE = "two_handed_axe"
    BILL = "bill"
    HALBERD = "halberd"
    POLEAXE = "poleaxe"
    FLAIL = "flail"
    ONE_HANDED_AXE = "one_handed_axe"
    MACE = "mace"
    BALL_AND_CHAIN = "ball_and_chain"
    SWORD = "sword"
    SPEAR = "spear"
    PIKE = "pike"
    KNIFE = "knife"
    CUDGEL = "cudgel"
    FARMING_TOOLS = "farming_tools"
    HEAVY_LANCE = "heavy_lance"
    LIGHT_LANCE = "light_lance"
    COUSTILLE = "coustille"
    DEMI_LANCE = "demi_lance"
    CAVALRY_POLEARM = "cavalry_polearm"


#: MELEE CHART row of each weapon. The book's "Two-handed Sword, Axe or Pole-arm" takes bills,
#: halberds, poleaxes and (two-handed) flails.
MELEE_ROW_OF: dict[MeleeWeapon, MeleeRow] = {
    MeleeWeapon.TWO_HANDED_SWORD: MeleeRow.TWO_HANDED,
    MeleeWeapon.TWO_HANDED_AXE: MeleeRow.TWO_HANDED,
    MeleeWeapon.BILL: MeleeRow.TWO_HANDED,
    MeleeWeapon.HALBERD: MeleeRow.TWO_HANDED,
    MeleeWeapon.POLEAXE: MeleeRow.TWO_HANDED,
    MeleeWeapon.FLAIL: MeleeRow.TWO_HANDED,
    MeleeWeapon.ONE_HANDED_AXE: MeleeRow.ONE_HANDED,
    MeleeWeapon.MACE: MeleeRow.ONE_HANDED,
    MeleeWeapon.BALL_AND_CHAIN: MeleeRow.ONE_HANDED,
    MeleeWeapon.SWORD: MeleeRow.SWORD_SPEAR_PIKE,
    MeleeWeapon.SPEAR: MeleeRow.SWORD_SPEAR_PIKE,
    MeleeWeapon.PIKE: MeleeRow.SWORD_SPEAR_PIKE,
    MeleeWeapon.KNIFE: MeleeRow.KNIFE_CUDGEL,
    MeleeWeapon.CUDGEL: MeleeRow.KNIFE_CUDGEL,
    MeleeWeapon.FARMING_TOOLS: MeleeRow.KNIFE_CUDGEL,
    MeleeWeapon.HEAVY_LANCE: MeleeRow.HEAVY_LANCE,
    MeleeWeapon.LIGHT_LANCE: MeleeRow.LIGHT_LANCE,
    MeleeWeapon.COUSTILLE: MeleeRow.CAVALRY_POLEARM,
    MeleeWeapon.DEMI_LANCE: MeleeRow.CAVALRY_POLEARM,
    MeleeWeapon.CAVALRY_POLEARM: MeleeRow.CAVALRY_POLEARM,
}

_CAVALRY_ONLY = frozenset(
    {
        MeleeWeapon.HEAVY_LANCE,
        MeleeWeapon.LIGHT_LANCE,
        MeleeWeapon.COUSTILLE,
        MeleeWeapon.DEMI_LANCE,
        MeleeWeapon.CAVALRY_POLEARM,
    }
)
_LANCES = frozenset({MeleeWeapon.HEAVY_LANCE, MeleeWeapon.LIGHT_LANCE})
#: The melee modifiers "Opponents are FORMED INFANTRY armed with Pike, Spear or Halberd".
PIKE_SPEAR_HALBERD = frozenset({MeleeWeapon.PIKE, MeleeWeapon.SPEAR, MeleeWeapon.HALBERD})

_SUPER_EXTRA = frozenset({ArmourGrade.SUPER_HEAVY, ArmourGrade.EXTRA_HEAVY})


def movement_row(arm: Arm, weight: ArmourGrade, order: Order) -> MovementRow:
    """The MOVEMENT CHART row of a troop type in an order.

    >>> movement_row(Arm.INFANTRY, ArmourGrade.HEAVY, Order.LOOSE).name
    'LOOSE_SKIRMISH_INFANTRY'
    """
    if arm is Arm.INFANTRY:
        if order is not Order.CLOSE:
            return MovementRow.LOOSE_SKIRMISH_INFANTRY
        return (
            MovementRow.SH_EH_CLOSE_INFANTRY
            if weight in _SUPER_EXTRA
            else MovementRow.HML_CLOSE_INFANTRY
        )
    if arm is Arm.CAVALRY:
        if order is Order.SKIRMISH:
            return MovementRow.SKIRMISH_CAVALRY
        if order is Order.LOOSE:
            raise ValueError("the MOVEMENT CHART has no loose-order cavalry (close or skirmish)")
        return MovementRow.SH_EH_CAVALRY if weight in _SUPER_EXTRA else MovementRow.HML_CAVALRY
    raise ValueError("artillery moves by its carriage row, not a troop-type row")


class CommanderSpec(BaseModel):
    """An army or contingent commander ("Commander and Inspirational Figures")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    name: str = ""
    kind: CommanderKind
    contingent: str | None = None  # None: the overall Army Commander


class InspirationalSpec(BaseModel):
    """An Inspirational Figure ("Commander and Inspirational Figures": "a religious saint, a
    group of monks, a portable holy shrine or standard ..."). It is never a Commander figure."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    name: str = ""
    #: the scenario formation it stands with when the scenario does not place it (a battle's
    #: own troop list; a scenario played under other rulesets need not name it)
    formation: str | None = None
    justification: str = ""


class UnitSpec(BaseModel):
    """One unit in a troop list; the validators reject combinations the charts do not print."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    id: str = Field(min_length=1)
    name: str = ""
    arm: Arm
    weight: ArmourGrade = Field(description="troop type: super heavy ... light")
    armour: ArmourGrade | None = Field(None, description="armour grade; default the weight")
    troop_class: TroopClass = Field(alias="class")
    order: Order = Order.CLOSE
    formation: Formation = Formation.LINE
    figures: int | None = Field(None, gt=0)  # a scenario's formation gives it (its bases)
    figures_lost: int = Field(0, ge=0)
    melee: MeleeWeapon | None = None
    sidearm: MeleeWeapon | None = None
    missile: MissileWeapon | None = None
    shields: bool = False
    barded: bool = False
    irregular: bool = False
    impetuous: bool = False
    mounted_infantry: bool = False
    local: bool = False  # skirmishers local to woods, marsh, built-up areas (TERRAIN CHART *)
    contingent: str | None = None
    carriage: ArtilleryCarriage | None = None
    guns: int | None = Field(None, gt=0)  # informational: gun models are the figures
    limbered: bool = True
    justification: str = ""

    @model_validator(mode="after")
    def _charts_print_it(self) -> Self:
        if self.figures is not None and self.figures_lost > self.figures:
            raise ValueError(f"figures_lost {self.figures_lost} exceeds figures {self.figures}")
        if self.arm is Arm.ARTILLERY:
            if self.carriage is None:
                raise ValueError("artillery needs carriage (MOVEMENT CHART row)")
            if self.missile is None or not self.missile.is_artillery:
                raise ValueError(
                    "artillery needs missile: light_field_artillery, medium_field_artillery or "
                    "heavy_handgonne_artillery (Firing Ranges Chart)"
                )
            return self
        if self.carriage is not None or self.guns is not None:
            raise ValueError("carriage and guns are for artillery only")
        if self.missile is not None and self.missile.is_artillery:
            raise ValueError(f"{self.missile.value} is an artillery gun; use arm: artillery")
        if self.melee is None:
            raise ValueError("expected a melee weapon (MELEE CHART row)")
        for weapon in (self.melee, self.sidearm):
            if weapon in _CAVALRY_ONLY and self.arm is not Arm.CAVALRY:
                raise ValueError(f"{weapon.value} is a cavalry weapon (MELEE CHART)")
        if self.sidearm is not None and self.melee not in _LANCES:
            raise ValueError("sidearm is the weapon of lancers when not charging")
        row = movement_row(self.arm, self.weight, self.order)
        if self.troop_class not in MOVEMENT_CHART[row]:
            printed = ", ".join(c.value for c in MOVEMENT_CHART[row])
            raise ValueError(
                f"the MOVEMENT CHART row {row.value!r} has no class "
                f"{self.troop_class.value} (printed: {printed})"
            )
        return self


class TroopList(BaseModel):
    """A medieval-d10 troop list: ``ruleset: medieval-d10``, commanders and units."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    army: str = Field(min_length=1)
    ruleset: str
    name: str = ""
    sources: list[str] = Field(default_factory=list)
    commanders: list[CommanderSpec] = Field(min_length=1)
    inspirational: list[InspirationalSpec] = Field(default_factory=list)
    profiles: list[UnitSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.ruleset != "medieval-d10":
            raise ValueError(f"expected ruleset medieval-d10, got {self.ruleset!r}")
        ids = (
            [u.id for u in self.profiles]
            + [c.id for c in self.commanders]
            + [i.id for i in self.inspirational]
        )
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"duplicate ids {dupes}")
        armies = [c.id for c in self.commanders if c.contingent is None]
        if len(armies) != 1:
            raise ValueError(f"expected one army commander (no contingent), got {armies}")
        contingents = {c.contingent for c in self.commanders if c.contingent}
        for u in self.profiles:
            if u.contingent is not None and u.contingent not in contingents:
                raise ValueError(
                    f"unit {u.id}: contingent {u.contingent!r} has no commander "
                    f"(expected one of {sorted(contingents)})"
                )
        return self


def load_troop_list(path: Path) -> TroopList:
    """Read and validate a medieval-d10 troop list; errors name the file, line and field."""
    data, lines = read_yaml(Path(path))
    return validate(TroopList, data, Path(path), lines)


# The unit in play ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit in play: its spec (with ``figures`` set) plus what changes (figures lost,
    formation, limbering, order).

    ``limber_progress`` counts Game Turns spent limbering or unlimbering (MOVEMENT CHART "Limber
    or Unlimber": 1 turn heavy/medium, 0.5 light/galloper).

    >>> u = Unit.from_spec(UnitSpec(id="x", arm="infantry", weight="medium", **{"class": "C"},
    ...                             figures=24, melee="bill"))
    >>> u.figures_left, u.dice, u.march_rate_cm(), u.with_losses(5).figures_left
    (24, 5, 16, 19)
    """

    spec: UnitSpec
    figures_lost: int = 0
    formation: Formation = Formation.LINE
    order: Order = Order.CLOSE
    limbered: bool = True
    limber_progress: Fraction = Fraction(0)
    disordered: bool = False

    @classmethod
    def from_spec(cls, spec: UnitSpec) -> Unit:
        return cls(spec, spec.figures_lost, spec.formation, spec.order, spec.limbered)

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def arm(self) -> Arm:
        return self.spec.arm

    @property
    def armour(self) -> ArmourGrade:
        return self.spec.armour or self.spec.weight

    @property
    def figures(self) -> int:
        if self.spec.figures is None:
            raise ValueError(f"{self.id}: no figure count (a formation's bases give it)")
        return self.spec.figures

    @property
    def figures_left(self) -> int:
        return self.figures - self.figures_lost

    @property
    def dice(self) -> int:
        """One d10 per five figures (rounded up), or per gun model (a gun model is a figure)."""
        if self.arm is Arm.ARTILLERY:
            return self.figures_left
        return math.ceil(self.figures_left / 5)

    def with_losses(self, kills: int) -> Unit:
        """The unit after ``kills`` more figures are lost (never below zero figures)."""
        if kills < 0:
            raise ValueError(f"expected kills >= 0, got {kills}")
        return replace(self, figures_lost=min(self.figures, self.figures_lost + kills))

    def movement(self) -> MovementCell:
        """This unit's MOVEMENT CHART line (not for artillery)."""
        row = movement_row(self.arm, self.spec.weight, self.order)
        return MOVEMENT_CHART[row][self.spec.troop_class]

    def march_rate_cm(self) -> int:
        """MOVEMENT CHART march rate for the formation (artillery: limbered or manhandled)."""
        if self.arm is Arm.ARTILLERY:
            row = ARTILLERY_MOVEMENT_CHART[self.spec.carriage]  # type: ignore[index]
            return (row.limbered if self.limbered else row.manhandled).cm
        cell = self.movement()
        return (cell.line if self.formation is Formation.LINE else cell.column).cm

    def bonus_cm(self) -> int:
        """The charge / evade / pursue / rout / road bonus."""
        if self.arm is Arm.ARTILLERY:
            return ARTILLERY_MOVEMENT_CHART[self.spec.carriage].road_bonus.cm  # type: ignore[index]
        return self.movement().bonus.cm

    def limber_turns(self) -> Fraction:
        if self.arm is not Arm.ARTILLERY:
            raise ValueError(f"{self.id} is not artillery")
        return ARTILLERY_MOVEMENT_CHART[self.spec.carriage].limber_turns  # type: ignore[index]

    def terrain_column(self) -> TerrainColumn:
        """The TERRAIN CHART column this unit moves by (artillery: the limbered column, also
        when manhandled; docs/rules-interpretations.md)."""
        if self.arm is Arm.ARTILLERY:
            return TerrainColumn.LIMBERED_ARTILLERY
        if self.order is Order.SKIRMISH:
            return TerrainColumn.SKIRMISH
        if self.arm is Arm.CAVALRY:
            return TerrainColumn.CLOSE_CAVALRY
        return TerrainColumn.CLOSE_LOOSE_INFANTRY

    def melee_row(self, charging: bool = False) -> MeleeRow:
        """The MELEE CHART row: lances only when charging ("Charging cavalry using ... Lance"),
        otherwise the sidearm (a sword if none is given)."""
        weapon = self.spec.melee
        if weapon in _LANCES and not charging:
            weapon = self.spec.sidearm or MeleeWeapon.SWORD
        if weapon is None:
            raise ValueError(f"{self.id} has no melee weapon")
        return MELEE_ROW_OF[weapon]


@dataclass(frozen=True)
class MedievalProfile:
    """A troop type of a medieval troop list, in the core's ``UnitProfile`` terms."""

    spec: UnitSpec

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def unit_type(self) -> str:
        return self.spec.arm.value

    @property
    def initiative(self) -> int:
        return 0

    @property
    def temperament(self) -> str:
        return "impetuous" if self.spec.impetuous else "steady"

    def has(self, flag: str) -> bool:
        return False
