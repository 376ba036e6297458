"""Troop profiles: the national lists (``data/troops/<army>.yaml``), as pydantic models.

A profile is one kind of base: unit type (the row of charts 7.2/7.3), initiative (2.1), arming
(2.2, dice in melee and at range), resilience (2.3), range, speed (6.1) and flags. The schema is
in docs/architecture.md ("Troop profiles").

Flags (``Profile.flags``):

- ``nmf``: "not allowed to both move and fire in the same bound" (2.2).
- ``skirmisher``: may form a Loose Formation (4.1); no moving penalty when shooting (1.1);
  screens sight only within 100 m (6.2).
- ``ordnance``: may fire as Ordnance (8.1). ``ordnance_only``: artillery that can only fire
  Ordnance (8.1).
- ``volleys``: flintlock troops firing volleys as 2-rank Ordnance (8.2).
- ``throwing``: throwing weapons: cannot shoot in melee but strike first as missile troops (3.4).
- ``ladders``: may climb walls from the ground (8.3).
- ``indirect``: may shoot Ordnance at targets out of sight (6.2: "Longbow-men or Artillery
  commanded to fire ordnance").
- ``locality_bonus``: counts as local troops on any battlefield (6.3).
- ``wings``: an ordinary formation allowed to split into wings without a character (4.2: "Exceptions
  may be included in the National Lists").

>>> army = Army.model_validate({"army": "t", "name": "T", "locality": "x", "profiles": [
...     {"id": "bill", "name": "Bills", "unit_type": "infantry", "initiative": 2,
...      "arming": {"melee": 3, "ranged": None}, "resilience": {"melee": 4, "ranged": 4}}],
...     "characters": [{"id": "g", "name": "G", "profile": "bill", "leadership": 2,
...                     "general": True}]})
>>> army.profile("bill").plain_speed_m
100.0
>>> army.general.id
'g'
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.rulesets.two_mm_earth.charts import MoveClass, Temperament, UnitType, speed_m
from engine.yamlio import read_yaml, validate
from scenario_builder.errors import DataSourceError
from scenario_builder.paths import data_dir

if TYPE_CHECKING:
    from engine.state import UnitProfile

__all__ = [
    "Arming",
    "Army",
    "Character",
    "Flag",
    "Profile",
    "Resilience",
    "load_army",
    "profile_of",
]


class Flag(StrEnum):
    """Special rules of a profile (see the module docstring)."""

    NMF = "nmf"
    SKIRMISHER = "skirmisher"
    ORDNANCE = "ordnance"
    ORDNANCE_ONLY = "ordnance_only"
    VOLLEYS = "volleys"
    THROWING = "throwing"
    LADDERS = "ladders"
    INDIRECT = "indirect"
    LOCALITY_BONUS = "locality_bonus"
    WINGS = "wings"


_STRICT = ConfigDict(extra="forbid", frozen=True)


class Arming(BaseModel):
    """Dice rolled in melee and at range (2.2); ``None`` = cannot."""

    model_config = _STRICT
    melee: int | None = Field(ge=0, le=12)
    ranged: int | None = Field(default=None, ge=0, le=12)


class Resilience(BaseModel):
    """Score needed to hit the unit in melee and at range (2.3)."""

    model_config = _STRICT
    melee: int = Field(ge=1, le=7)
    ranged: int = Field(ge=1, le=7)


class Profile(BaseModel):
    """One kind of base in a national list."""

    model_config = _STRICT
    id: str = Field(pattern=r"^[A-Za-z0-9_\-]+$")
    name: str
    unit_type: UnitType
    initiative: int = Field(ge=1, le=6)
    arming: Arming
    resilience: Resilience
    range_m: float = Field(default=0.0, ge=0)
    speed_m: float | None = Field(default=None, gt=0)
    flags: tuple[Flag, ...] = ()
    temperament: Temperament = Temperament.NORMAL
    justification: str = ""

    @model_validator(mode="after")
    def _ranged_needs_range(self) -> Profile:
        if self.arming.ranged and self.range_m <= 0:
            raise ValueError(f"profile {self.id}: ranged arming needs range_m > 0")
        return self

    def has(self, flag: Flag | str) -> bool:
        return Flag(flag) in self.flags

    @property
    def plain_speed_m(self) -> float:
        """Speed on plain terrain (6.1; chart 7.3 unless the list gives one)."""
        if self.speed_m is not None:
            return self.speed_m
        return float(speed_m(self.unit_type, MoveClass.PLAIN) or 0.0)

    def speed_in(self, move_class: int) -> float | None:
        """Chart 7.3 speed in ``move_class``, scaled when the list gives its own plain speed."""
        chart = speed_m(self.unit_type, move_class)
        if chart is None or self.speed_m is None:
            return chart
        plain = speed_m(self.unit_type, MoveClass.PLAIN) or 1.0
        return chart * self.speed_m / plain

    @property
    def mounted(self) -> bool:
        """Foot/mounted status (1.1 strike order)."""
        return self.unit_type in (
            UnitType.CAVALRY,
            UnitType.LIGHT_CAVALRY,
            UnitType.WHEEL_CAVALRY,
            UnitType.MONSTER,
        )

    @property
    def missile(self) -> bool:
        """Armed with missiles for the strike order (1.1, 3.4)."""
        return bool(self.arming.ranged) or self.has(Flag.THROWING)

    @property
    def melee_only(self) -> bool:
        """9.1: "Attack" moves these into combat; light troops with missiles are not melee-only."""
        return not self.arming.ranged


class Character(BaseModel):
    """A named leader (5.1) riding or standing with a base of ``profile``."""

    model_config = _STRICT
    id: str = Field(pattern=r"^[A-Za-z0-9_\-]+$")
    name: str
    profile: str
    leadership: int = Field(ge=1, le=3)
    general: bool = False


class Army(BaseModel):
    """A national list: profiles and characters of one army."""

    model_config = _STRICT
    army: str
    name: str
    locality: str
    sources: tuple[str, ...] = ()
    profiles: tuple[Profile, ...] = Field(min_length=1)
    characters: tuple[Character, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> Army:
        ids = [p.id for p in self.profiles]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"duplicate profile id {dup[0]!r}")
        for c in self.characters:
            if c.profile not in ids:
                raise ValueError(f"character {c.id}: expected a profile id, got {c.profile!r}")
        generals = [c.id for c in self.characters if c.general]
        if self.characters and len(generals) != 1:
            raise ValueError(f"expected exactly one general, got {len(generals)}")
        return self

    def profile(self, profile_id: str) -> Profile:
        for p in self.profiles:
            if p.id == profile_id:
                return p
        raise KeyError(profile_id)

    def character(self, character_id: str) -> Character:
        for c in self.characters:
            if c.id == character_id:
                return c
        raise KeyError(character_id)

    @property
    def general(self) -> Character | None:
        return next((c for c in self.characters if c.general), None)


def army_path(name_or_path: str | Path) -> Path:
    """``data/troops/<name>.yaml`` for a bare name, else the path as given."""
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml") or p.parent != Path("."):
        return p
    return data_dir() / "troops" / f"{p}.yaml"


def load_army(name_or_path: str | Path) -> Army:
    """Load a troop list by army id (``data/troops/<id>.yaml``) or path.

    Errors name the file, the line and the field (:class:`ScenarioFileError`).
    """
    path = army_path(name_or_path)
    if not path.exists():
        raise DataSourceError(path, "troop list not found")
    data, lines = read_yaml(path)
    return validate(Army, data, path, lines)


if TYPE_CHECKING:

    def profile_of(unit: UnitProfile) -> Profile:
        """A base's profile as 2mm Earth's own model (the core types it as a ``UnitProfile``)."""
        ...

else:

    def profile_of(unit):  # the identity at run time: no typing.cast call in the hot paths
        return unit
