"""The Dark Age movement chapter on the engine's battle state: what a formation is in the
chapter's terms, its move roll each bound, and its disorder points.

The troop lists a ``dark-age`` battle reads are the complete game's (2mm Earth profiles; its
combat is 2mm Earth's). The chapter's own categories come from them by these readings
(docs/rules-interpretations.md, "Dark Age on the engine"):

- troop type from the unit type: infantry -> Dark Age infantry (may form cuneus, 5.3), light
  infantry -> foot archers if they shoot, else light infantry; cavalry -> heavy cavalry, light
  cavalry -> light cavalry, war machines -> artillery, baggage -> wagons, monsters -> elephants;
- grade from melee resilience: R5+ A, R4 B, R3 or less C;
- formation from the formation's shape: loose or skirmishing bases unformed; one base wide and
  several deep a column; cuneus troops one or two bases wide and two or three deep a cuneus;
  a single model (artillery, wagons, elephants) none; otherwise shieldwall.

>>> from engine.rulesets.dark_age.formations import Troop, Grade
>>> troop_of("infantry", has_ranged=False, skirmisher=False), grade_of(5), grade_of(3)
(<Troop.DARK_AGE_INFANTRY: 'dark age infantry'>, <Grade.A: 'A'>, <Grade.C: 'C'>)
>>> formation_of(Troop.DARK_AGE_INFANTRY, stands=4, frontage=2, loose=False)
<Formation.CUNEUS: 'cuneus'>
>>> formation_of(Troop.HEAVY_CAVALRY, stands=6, frontage=3, loose=False)
<Formation.SHIELDWALL: 'shieldwall'>
"""

from __future__ import annotations

import math

from engine.rulesets.dark_age.formations import (
    CUNEUS_TROOPS,
    Formation,
    Grade,
    Troop,
    is_light,
)

__all__ = ["formation_of", "grade_of", "troop_of"]

_BY_UNIT_TYPE: dict[str, Troop] = {
    "infantry": Troop.DARK_AGE_INFANTRY,
    "light_infantry": Troop.LIGHT_INFANTRY,
    "cavalry": Troop.HEAVY_CAVALRY,
    "wheel_cavalry": Troop.HEAVY_CAVALRY,
    "light_cavalry": Troop.LIGHT_CAVALRY,
    "war_machine": Troop.ARTILLERY,
    "baggage": Troop.WAGONS,
    "monster": Troop.ELEPHANTS,
}
_SINGLE = frozenset({Troop.ARTILLERY, Troop.WAGONS, Troop.ELEPHANTS, Troop.PACK_ANIMALS})


def troop_of(unit_type: str, *, has_ranged: bool, skirmisher: bool) -> Troop:
    """The chapter's troop type for a 2mm Earth unit type (module docstring)."""
    try:
        troop = _BY_UNIT_TYPE[unit_type]
    except KeyError:
        raise ValueError(
            f"expected a unit type in {sorted(_BY_UNIT_TYPE)}, got {unit_type!r}"
        ) from None
    if troop is Troop.LIGHT_INFANTRY and has_ranged and not skirmisher:
        return Troop.FOOT_ARCHERS
    return troop


def grade_of(melee_resilience: float) -> Grade:
    """A, B or C from melee resilience (R5+ A, R4 B, else C)."""
    r = round(melee_resilience)
    return Grade.A if r >= 5 else (Grade.B if r == 4 else Grade.C)


def formation_of(troop: Troop, *, stands: int, frontage: int, loose: bool) -> Formation:
    """The chapter's formation for a block of ``stands`` bases ``frontage`` wide."""
    if troop in _SINGLE:
        return Formation.SINGLE_MODEL
    if loose or troop in (Troop.LIGHT_INFANTRY, Troop.LIGHT_CAVALRY):
        return Formation.UNFORMED
    if stands <= 1:
        return Formation.SHIELDWALL  # 5.4
    frontage = max(1, min(frontage, stands))
    depth = math.ceil(stands / frontage)
    if frontage == 1:
        return Formation.COLUMN
    if troop in CUNEUS_TROOPS and frontage <= 2 and 2 <= depth <= 3:
        return Formation.CUNEUS
    if is_light(troop) and troop is not Troop.FOOT_ARCHERS:
        return Formation.UNFORMED
    return Formation.SHIELDWALL
