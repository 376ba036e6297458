"""The rulebook's charts as data, with their section numbers (*Battle for 2mm Earth* v0.9).

- 7.3 movement chart: :data:`SPEED_CHART` and :func:`speed_m`
- 7.2 cover chart: :data:`COVER_CHART` and :func:`cover_modifier`
- 9.2 messenger distance per bound: :data:`MESSENGER_RATE_M`
- 9.3 order chart: :data:`ORDER_CHART`, :func:`order_needs_roll`, :func:`order_outcome`
- 6.3 weather and local knowledge: :func:`sight_limit_m`

Monsters are not in the charts; they use the cavalry rows (docs/rules-interpretations.md).

>>> speed_m(UnitType.CAVALRY, MoveClass.WOODS)
150.0
>>> speed_m("war_machine", MoveClass.IMPRACTICAL) is None      # "Cannot travel"
True
>>> cover_modifier(UnitType.INFANTRY, CoverClass.DEBRIS, "ranged")   # "-1/+1": ranged +1
1
>>> order_outcome("reluctant", "retreat", 1)
'rout'
>>> sight_limit_m("fog", "night", local=False)
500.0
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from scenario_builder.battlefield import CoverClass, MoveClass

__all__ = [
    "COVER_CHART",
    "MESSENGER_RATE_M",
    "ORDER_CHART",
    "SPEED_CHART",
    "CoverClass",
    "MoveClass",
    "Order",
    "OrderRule",
    "Temperament",
    "UnitType",
    "cover_modifier",
    "order_needs_roll",
    "order_outcome",
    "sees_over",
    "sight_limit_m",
    "speed_m",
]


class UnitType(StrEnum):
    """The rows of charts 7.2 and 7.3 (plus ``monster``, which the charts leave out)."""

    INFANTRY = "infantry"
    LIGHT_INFANTRY = "light_infantry"
    CAVALRY = "cavalry"
    LIGHT_CAVALRY = "light_cavalry"
    WHEEL_CAVALRY = "wheel_cavalry"
    WAR_MACHINE = "war_machine"
    BAGGAGE = "baggage"
    MONSTER = "monster"


# The Battlefield's enums are the chart columns (docs/architecture.md), re-exported here.
# 7.3 movement chart, metres per bound: plain, wet/debris, through woods, impractical.
# None = "Cannot travel".
_SPEEDS_7_3: dict[UnitType, tuple[float, float, float, float | None]] = {
    UnitType.INFANTRY: (100.0, 75.0, 50.0, 50.0),
    UnitType.LIGHT_INFANTRY: (150.0, 150.0, 150.0, 100.0),
    UnitType.CAVALRY: (300.0, 150.0, 150.0, 50.0),
    UnitType.LIGHT_CAVALRY: (350.0, 300.0, 300.0, 100.0),
    UnitType.WHEEL_CAVALRY: (250.0, 125.0, 50.0, None),
    UnitType.WAR_MACHINE: (50.0, 10.0, 10.0, None),
    UnitType.BAGGAGE: (75.0, 25.0, 25.0, None),
}
_SPEEDS_7_3[UnitType.MONSTER] = _SPEEDS_7_3[UnitType.CAVALRY]  # not in the chart: as cavalry

#: Chart 7.3 by ``MoveClass``: wet and debris share the "Wet/debris" column.
SPEED_CHART: dict[UnitType, dict[MoveClass, float | None]] = {
    unit: {
        MoveClass.PLAIN: row[0],
        MoveClass.WET: row[1],
        MoveClass.DEBRIS: row[1],
        MoveClass.WOODS: row[2],
        MoveClass.IMPRACTICAL: row[3],
    }
    for unit, row in _SPEEDS_7_3.items()
}

# 7.2 cover chart as printed: open ground, wet, debris, overheads. Each cell is
# "melee/ranged" (the order of the rulebook's R values, e.g. R3/4); "R" = no change.
_COVER_7_2_TEXT: dict[UnitType, tuple[str, str, str, str]] = {
    UnitType.INFANTRY: ("R/R", "-1/-1", "-1/+1", "+1/+1"),
    UnitType.LIGHT_INFANTRY: ("R/R", "R/-1", "R/+1", "+1/+2"),
    UnitType.CAVALRY: ("R/R", "-1/-1", "-1/R", "R/+1"),
    UnitType.LIGHT_CAVALRY: ("R/R", "-1/-1", "R/R", "+1/+1"),
    UnitType.WHEEL_CAVALRY: ("R/R", "-1/R", "-1/R", "R/+1"),
    UnitType.WAR_MACHINE: ("R/R", "R/-1", "-1/+1", "R/+1"),
    UnitType.BAGGAGE: ("R/-1", "-1/-1", "-1/+1", "R/+1"),
}
_COVER_7_2_TEXT[UnitType.MONSTER] = _COVER_7_2_TEXT[UnitType.CAVALRY]


def parse_cover_cell(cell: str) -> tuple[int, int]:
    """Read one chart 7.2 cell ``"melee/ranged"`` as R modifiers; ``"R"`` is no change.

    >>> parse_cover_cell("-1/+1"), parse_cover_cell("R/R"), parse_cover_cell("R/+2")
    ((-1, 1), (0, 0), (0, 2))
    """
    melee, ranged = cell.strip().split("/")
    return tuple(0 if part.strip() == "R" else int(part) for part in (melee, ranged))  # type: ignore[return-value]


#: Chart 7.2: ``COVER_CHART[unit][cover] == (melee R modifier, ranged R modifier)``.
COVER_CHART: dict[UnitType, dict[CoverClass, tuple[int, int]]] = {
    unit: {cover: parse_cover_cell(row[cover]) for cover in CoverClass}
    for unit, row in _COVER_7_2_TEXT.items()
}


def _unit(unit_type: UnitType | str) -> UnitType:
    try:
        return UnitType(unit_type)
    except ValueError:
        expected = ", ".join(u.value for u in UnitType)
        raise ValueError(f"expected a unit type ({expected}), got {unit_type!r}") from None


def speed_m(unit_type: UnitType | str, move_class: int) -> float | None:
    """Chart 7.3: metres a base of ``unit_type`` may move per bound in ``move_class``.

    ``None`` means "Cannot travel" (wheels, war machines and baggage in impractical terrain).
    """
    # asked for every move: the chart's keys are a StrEnum and an IntEnum, which a plain
    # unit-type string and class number find as they are; anything else (an unknown unit or
    # class) takes the checked path below, which names it
    row = SPEED_CHART.get(unit_type)  # type: ignore[arg-type]
    if row is not None and move_class in row:
        return row[move_class]  # type: ignore[index]
    return SPEED_CHART[_unit(unit_type)][MoveClass(int(move_class))]


def cover_modifier(unit_type: UnitType | str, cover_class: int, kind: str) -> int:
    """Chart 7.2: change to the target's R for its cover; ``kind`` is ``"melee"`` or ``"ranged"``.

    >>> cover_modifier("light_infantry", CoverClass.OVERHEAD, "ranged")
    2
    >>> cover_modifier("baggage", CoverClass.OPEN, "ranged")   # baggage in the open: R/-1
    -1
    """
    melee, ranged = COVER_CHART[_unit(unit_type)][CoverClass(int(cover_class))]
    if kind == "melee":
        return melee
    if kind == "ranged":
        return ranged
    raise ValueError(f"expected kind 'melee' or 'ranged', got {kind!r}")


#: 9.2 distance a message travels per bound, by age or technology.
MESSENGER_RATE_M: dict[str, float] = {"prehistoric": 200.0, "ancients": 500.0, "modern": 1000.0}


# 9.3 order chart --------------------------------------------------------------------------------


class Temperament(StrEnum):
    """Rows of chart 9.3. ``random`` troops (11.3) act as rash or reluctant at any moment."""

    NORMAL = "normal"
    RELUCTANT = "reluctant"
    RASH = "rash"
    RANDOM = "random"


class Order(StrEnum):
    """Columns of chart 9.3 (9.1)."""

    ATTACK = "attack"
    HOLD = "hold"
    ADVANCE = "advance"
    RETREAT = "retreat"


@dataclass(frozen=True, slots=True)
class OrderRule:
    """One cell of chart 9.3: a die below ``threshold`` gives ``low``, otherwise ``high``.

    ``threshold is None`` is "Always": no roll, the order is obeyed as given (``high``).

    >>> str(OrderRule("hold", 2, "retreat"))
    '(1) hold (2+) retreat'
    >>> OrderRule.from_text(str(OrderRule("hold", 3, "attack")))
    OrderRule(low='hold', threshold=3, high='attack')
    >>> str(OrderRule(None, None, "advance"))
    'always advance'
    """

    low: str | None
    threshold: int | None
    high: str

    def __str__(self) -> str:
        if self.threshold is None:
            return f"always {self.high}"
        low = "(1)" if self.threshold == 2 else f"(1-{self.threshold - 1})"
        return f"{low} {self.low} ({self.threshold}+) {self.high}"

    @classmethod
    def from_text(cls, text: str) -> OrderRule:
        words = text.split()
        if len(words) == 2 and words[0] == "always":
            return cls(None, None, words[1])
        if len(words) == 4 and words[2].startswith("(") and words[2].endswith("+)"):
            return cls(words[1], int(words[2][1:-2]), words[3])
        raise ValueError(f"expected an order rule like '(1) hold (2+) retreat', got {text!r}")

    def outcome(self, die: int | None) -> str:
        if self.threshold is None:
            return self.high
        if die is None:
            raise ValueError(f"order chart 9.3 cell '{self}' needs a die roll, got None")
        if not 1 <= die <= 6:
            raise ValueError(f"expected a die 1..6, got {die}")
        return self.low if die < self.threshold else self.high  # type: ignore[return-value]


def _always(order: Order) -> OrderRule:
    return OrderRule(None, None, order.value)


# 9.3 as printed. Rash "(<2) Holds (3+) Attacks" leaves a 2 unassigned; we read "<2" as "2 or
# less" so the printed "3+" stands (docs/rules-interpretations.md, 9.3).
ORDER_CHART: dict[tuple[Temperament, Order], OrderRule] = {
    (Temperament.NORMAL, Order.ATTACK): _always(Order.ATTACK),
    (Temperament.NORMAL, Order.HOLD): _always(Order.HOLD),
    (Temperament.NORMAL, Order.ADVANCE): _always(Order.ADVANCE),
    (Temperament.NORMAL, Order.RETREAT): OrderRule("hold", 2, "retreat"),
    (Temperament.RELUCTANT, Order.ATTACK): OrderRule("hold", 2, "attack"),
    (Temperament.RELUCTANT, Order.HOLD): _always(Order.HOLD),
    (Temperament.RELUCTANT, Order.ADVANCE): _always(Order.ADVANCE),
    (Temperament.RELUCTANT, Order.RETREAT): OrderRule("rout", 2, "retreat"),
    (Temperament.RASH, Order.ATTACK): _always(Order.ATTACK),
    (Temperament.RASH, Order.HOLD): OrderRule("hold", 3, "attack"),
    (Temperament.RASH, Order.ADVANCE): _always(Order.ADVANCE),
    (Temperament.RASH, Order.RETREAT): OrderRule("hold", 3, "retreat"),
}


def _order_rule(temperament: Temperament | str, order: Order | str) -> OrderRule:
    try:
        t = Temperament(temperament)
        o = Order(order)
    except ValueError as exc:
        raise ValueError(f"order chart 9.3: {exc}") from None
    if t is Temperament.RANDOM:
        raise ValueError(
            "order chart 9.3: 'random' troops act as 'rash' or 'reluctant' (11.3); "
            "pass the temperament they currently have"
        )
    return ORDER_CHART[t, o]


def order_needs_roll(temperament: Temperament | str, order: Order | str) -> bool:
    """Whether chart 9.3 asks for a die for this temperament and order.

    >>> order_needs_roll("normal", "attack"), order_needs_roll("rash", "hold")
    (False, True)
    """
    return _order_rule(temperament, order).threshold is not None


def order_outcome(temperament: Temperament | str, order: Order | str, die: int | None) -> str:
    """What a formation does with ``order`` per chart 9.3: attack, hold, advance, retreat or rout.

    ``die`` may be ``None`` only where :func:`order_needs_roll` is false.

    >>> [order_outcome("rash", "hold", d) for d in range(1, 7)]
    ['hold', 'hold', 'attack', 'attack', 'attack', 'attack']
    >>> order_outcome("normal", "advance", None)
    'advance'
    """
    return _order_rule(temperament, order).outcome(die)


# 6.3 weather and local knowledge ----------------------------------------------------------------

WEATHERS = ("clear", "fog", "rain", "bright")
TIMES = ("day", "night")


def sight_limit_m(weather: str, time: str, local: bool) -> float | None:
    """6.3: how far troops can see, or ``None`` for no limit beyond line of sight.

    Fog, bright sun or heavy rain limit NON-local troops to 1500 m; night to 1000 m; night with
    fog or rain to 500 m. Local troops are not limited (the section is about local knowledge;
    docs/rules-interpretations.md, 6.3).

    >>> sight_limit_m("clear", "day", local=False) is None
    True
    >>> sight_limit_m("rain", "day", local=False), sight_limit_m("clear", "night", local=False)
    (1500.0, 1000.0)
    >>> sight_limit_m("fog", "night", local=True) is None
    True
    """
    if weather not in WEATHERS:
        raise ValueError(f"expected weather one of {', '.join(WEATHERS)}, got {weather!r}")
    if time not in TIMES:
        raise ValueError(f"expected time one of {', '.join(TIMES)}, got {time!r}")
    if local:
        return None
    if time == "night":
        return 500.0 if weather in ("fog", "rain") else 1000.0
    return 1500.0 if weather in ("fog", "rain", "bright") else None


_FOOT = {UnitType.INFANTRY, UnitType.LIGHT_INFANTRY, UnitType.WAR_MACHINE, UnitType.BAGGAGE}
_CAV = {UnitType.CAVALRY, UnitType.LIGHT_CAVALRY}


def sees_over(observer: UnitType | str, blocker: UnitType | str) -> bool:
    """6.2: "Monsters can see over anything ... Chariots see over cavalry and foot, and cavalry
    only see over foot."

    >>> sees_over("monster", "monster"), sees_over("wheel_cavalry", "cavalry")
    (True, True)
    >>> sees_over("cavalry", "infantry"), sees_over("cavalry", "light_cavalry")
    (True, False)
    >>> sees_over("infantry", "infantry")
    False
    """
    o, b = UnitType(observer), UnitType(blocker)
    if o is UnitType.MONSTER:
        return True
    if o is UnitType.WHEEL_CAVALRY:
        return b in _FOOT or b in _CAV
    if o in _CAV:
        return b in _FOOT
    return False
