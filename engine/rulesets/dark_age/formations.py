"""Dark Age formations (``003_e8e36df29227b52b.txt`` 5.1-5.7): who is unformed, who may take which
unit formation, the shapes, and the command formations.

>>> may_form(Troop.FOOT_ARCHERS, Formation.SHIELDWALL, stationary=True)
True
>>> may_form(Troop.FOOT_ARCHERS, Formation.CUNEUS)
False
>>> cuneus_ranks(5)                  # 5.3: the smaller number in front
(1, 2, 2)
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "CUNEUS_TROOPS",
    "CommandFormation",
    "Formation",
    "Grade",
    "Status",
    "Troop",
    "cuneus_ranks",
    "default_formation_of_four",
    "deploy_rate",
    "forced_unformed",
    "is_light",
    "is_mounted",
    "may_form",
    "valid_battle_line",
    "valid_march_column",
    "valid_shape",
]


class Grade(enum.Enum):
    A = "A"
    B = "B"
    C = "C"


class Troop(enum.Enum):
    """Troop types the chapter names (5.2, 5.3, 5.9, 5.13)."""

    HEAVY_INFANTRY = "heavy infantry"
    SHOCK_INFANTRY = "shock troops"
    DARK_AGE_INFANTRY = "dark age infantry"
    ROMAN_INFANTRY = "roman infantry"
    FOOT_ARCHERS = "foot archers"
    JAVELINMEN = "javelinmen"
    ARMED_RABBLE = "armed rabble"
    LIGHT_INFANTRY = "light infantry"  # skirmishers
    HEAVY_CAVALRY = "heavy cavalry"
    LIGHT_CAVALRY = "light cavalry"
    CAMELS = "camel-mounted"
    ELEPHANTS = "elephants"
    ARTILLERY = "artillery"
    PACK_ANIMALS = "pack animals"
    WAGONS = "wagons"
    HORSE_HOLDERS = "horse-holders"


class Formation(enum.Enum):
    """5.1 unformed; 5.3 the three unit formations; single models have none."""

    UNFORMED = "unformed"
    SHIELDWALL = "shieldwall"  # "Line" for cavalry and light troops
    COLUMN = "column"
    CUNEUS = "cuneus"
    SINGLE_MODEL = "single model"  # 5.3: artillery, elephants, pack animals, wagons


class CommandFormation(enum.Enum):
    """5.5."""

    BATTLE_LINE = "battle line"
    MARCH_COLUMN = "march column"


class Status(enum.Enum):
    """5.2: states that make any unit unformed while they last."""

    SHAKEN = "shaken"
    EVADING = "evading"
    RETIRING = "retiring"
    ROUTING = "routing"
    PURSUING = "pursuing"


#: 5.3: "Cuneus may only be formed by Shock troops, Dark Age Infantry and Roman Infantry"
CUNEUS_TROOPS = frozenset({Troop.SHOCK_INFANTRY, Troop.DARK_AGE_INFANTRY, Troop.ROMAN_INFANTRY})
_SINGLE_MODELS = frozenset({Troop.ARTILLERY, Troop.ELEPHANTS, Troop.PACK_ANIMALS, Troop.WAGONS})
_LIGHT = frozenset(
    {
        Troop.FOOT_ARCHERS,
        Troop.JAVELINMEN,
        Troop.ARMED_RABBLE,
        Troop.LIGHT_INFANTRY,
        Troop.LIGHT_CAVALRY,
    }
)
_MOUNTED = frozenset({Troop.HEAVY_CAVALRY, Troop.LIGHT_CAVALRY, Troop.CAMELS})


def is_light(troop: Troop) -> bool:
    """5.2 "Light troops": archers, javelinmen, rabble, light infantry and light cavalry."""
    return troop in _LIGHT


def is_mounted(troop: Troop) -> bool:
    """5.9 "Cavalry and camel-mounted troops" (elephants move as infantry, 5.9)."""
    return troop in _MOUNTED


def forced_unformed(statuses: Sequence[Status]) -> bool:
    """5.2: shaken, evading, retiring, routing or pursuing troops are unformed meanwhile.

    >>> forced_unformed([Status.PURSUING]), forced_unformed([])
    (True, False)
    """
    return bool(statuses)


def may_form(
    troop: Troop,
    formation: Formation,
    *,
    stationary: bool = False,
    in_heavy_battle_line: bool = False,
    stands: int = 2,
) -> bool:
    """5.2-5.4: may this troop type be in this formation now?

    Light troops are normally unformed: foot archers may join a Shieldwall (and stay in it only
    while moving with a heavy infantry Battle Line, or stationary); javelinmen and armed rabble
    may form Shieldwall only while stationary; skirmishers (light infantry) and light cavalry
    are always unformed. Single models have no formation. A one-stand unit is in shieldwall
    (5.4), never cuneus.

    >>> may_form(Troop.JAVELINMEN, Formation.SHIELDWALL, stationary=False)
    False
    >>> may_form(Troop.DARK_AGE_INFANTRY, Formation.CUNEUS, stands=1)
    False
    >>> may_form(Troop.HEAVY_CAVALRY, Formation.SHIELDWALL)
    True
    >>> may_form(Troop.WAGONS, Formation.COLUMN)          # a single model
    False
    """
    if troop in _SINGLE_MODELS:
        return formation is Formation.SINGLE_MODEL
    if formation is Formation.SINGLE_MODEL:
        return False
    if formation is Formation.UNFORMED:
        return True  # every formed unit can be made unformed by events (5.2)
    if troop is Troop.FOOT_ARCHERS:
        return formation is Formation.SHIELDWALL and (stationary or in_heavy_battle_line)
    if troop in (Troop.JAVELINMEN, Troop.ARMED_RABBLE):
        return formation is Formation.SHIELDWALL and stationary
    if troop in (Troop.LIGHT_INFANTRY, Troop.LIGHT_CAVALRY):
        return False
    if formation is Formation.CUNEUS:
        return troop in CUNEUS_TROOPS and stands >= 2
    return True


def valid_shape(formation: Formation, ranks: Sequence[int]) -> bool:
    """5.3: is ``ranks`` (stands per rank, front first) a legal layout for the formation?

    Shieldwall: one or two ranks, at least as wide as deep. Column: single file. Cuneus: 2-3
    ranks, at most 2 stands a rank, ranks as equal as possible, the smaller in front.

    >>> valid_shape(Formation.SHIELDWALL, [3, 3]), valid_shape(Formation.SHIELDWALL, [1, 1])
    (True, False)
    >>> valid_shape(Formation.CUNEUS, [2, 2]), valid_shape(Formation.CUNEUS, [2, 1])
    (True, False)
    """
    if not ranks or any(r < 1 for r in ranks):
        return False
    n = sum(ranks)
    if formation is Formation.SHIELDWALL:
        if n == 1:
            return True  # 5.4: a lone stand counts as shieldwall
        return len(ranks) <= 2 and ranks[0] >= len(ranks) and ranks[-1] <= ranks[0]
    if formation is Formation.COLUMN:
        return all(r == 1 for r in ranks)
    if formation is Formation.CUNEUS:
        depth = len(ranks)
        if not (2 <= depth <= 3 and n <= 2 * depth):
            return False
        return tuple(ranks) == cuneus_ranks(n, depth)
    return formation in (Formation.UNFORMED, Formation.SINGLE_MODEL)


def cuneus_ranks(stands: int, depth: int | None = None) -> tuple[int, ...]:
    """5.3: stands per rank of a cuneus, front first (2-3 deep, <= 2 a rank, smaller in front).

    >>> cuneus_ranks(4), cuneus_ranks(3), cuneus_ranks(6)
    ((2, 2), (1, 2), (2, 2, 2))
    """
    if depth is None:
        depth = 2 if stands <= 4 else 3
    if not 2 <= stands <= 2 * depth or not 2 <= depth <= 3:
        raise ValueError(f"expected 2..6 stands in a 2-3 deep cuneus, got {stands} in {depth}")
    base, extra = divmod(stands, depth)
    # the larger ranks go to the rear so the smaller number is in front
    return tuple(base + (1 if i >= depth - extra else 0) for i in range(depth))


def default_formation_of_four(troop: Troop) -> Formation:
    """5.4: four stands two deep look alike; they are cuneus for cuneus troops unless the player
    says otherwise, shieldwall for everyone else."""
    return Formation.CUNEUS if troop in CUNEUS_TROOPS else Formation.SHIELDWALL


@dataclass(frozen=True, slots=True)
class LineUnit:
    """A unit as a member of a command formation: its formation, facing (deg), ranks of units
    it stands in (0 front, 1 second line) and how many stands wide it is."""

    formation: Formation
    facing: float
    line_rank: int
    width_stands: int


def valid_battle_line(units: Sequence[LineUnit]) -> bool:
    """5.5 Battle Line: all in Shieldwall or Cuneus, facing the same or the opposite way (a
    refused flank's end units may face a flank: +-90), up to two units deep, at least as wide
    as deep (both counted in units).

    >>> valid_battle_line([LineUnit(Formation.SHIELDWALL, 0.0, 0, 3),
    ...                    LineUnit(Formation.CUNEUS, 180.0, 0, 2)])
    True
    >>> valid_battle_line([LineUnit(Formation.COLUMN, 0.0, 0, 1)])
    False
    """
    if not units:
        return False
    if any(u.formation not in (Formation.SHIELDWALL, Formation.CUNEUS) for u in units):
        return False
    if any(u.line_rank not in (0, 1) for u in units):
        return False
    # the line's facing is the commonest one (modulo the about-faced units); units turned to a
    # flank must be a run at one end or both ends ("turning one or more units on the end")
    axes = [round(u.facing % 180.0, 6) for u in units]
    ref = max(set(axes), key=axes.count)
    flank = []
    for u in units:
        d = abs((u.facing - ref + 180.0) % 360.0 - 180.0)
        if d < 1e-6 or abs(d - 180.0) < 1e-6:
            flank.append(False)
        elif abs(d - 90.0) < 1e-6:
            flank.append(True)
        else:
            return False
    inner = "".join("f" if f else "a" for f in flank).strip("f")
    if "f" in inner or not inner:
        return False
    depth = max(u.line_rank for u in units) + 1
    width = sum(1 for u in units if u.line_rank == 0)  # in units, as the depth is
    return width >= depth


def valid_march_column(units: Sequence[LineUnit]) -> bool:
    """5.5 March Column: every unit in column, all facing the same direction.

    >>> valid_march_column([LineUnit(Formation.COLUMN, 90.0, 0, 1)] * 3)
    True
    """
    return bool(units) and all(
        u.formation is Formation.COLUMN and u.width_stands == 1 and u.facing == units[0].facing
        for u in units
    )


def deploy_rate(grades: Sequence[Grade]) -> int:
    """5.6-5.7: stands a March Column deploys into Battle Line per movement phase: 5, +2 if
    more than half are A Grade, -2 if at least half are C Grade.

    >>> deploy_rate([Grade.A] * 3 + [Grade.B] * 2), deploy_rate([Grade.C, Grade.B])
    (7, 3)
    """
    n = len(grades)
    if n == 0:
        raise ValueError("expected at least one stand")
    rate = 5
    if 2 * sum(g is Grade.A for g in grades) > n:
        rate += 2
    if 2 * sum(g is Grade.C for g in grades) >= n:
        rate -= 2
    return rate


def ranks_after_doubling(stands: int, ranks: int) -> tuple[int, ...]:
    """5.22: shieldwall only, one rank <-> two; the odd stand goes to the second rank.

    >>> ranks_after_doubling(3, 1), ranks_after_doubling(3, 2)
    ((2, 1), (3,))
    """
    if ranks == 1:
        if stands < 2:
            raise ValueError("a single stand cannot double its ranks")
        front = math.ceil(stands / 2)
        return (front, stands - front)
    if ranks == 2:
        return (stands,)
    raise ValueError(f"expected a shieldwall of 1 or 2 ranks, got {ranks}")
