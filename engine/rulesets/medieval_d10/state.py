"""The medieval-d10 game's state: each unit on the battlefield (:class:`UnitState`), each
Commander and Inspirational Figure (:class:`FigureState`) and what a unit is doing
(:class:`Mode`). The battle (:class:`~.game.MedievalBattle`) owns them; the phase modules read
and write them.

The reasons a unit keeps for phase 15 (``UnitState.pending``) are THE MORALE TEST CHART's
"REASONS TO TAKE A MORALE TEST", by priority (:data:`R_DRAWN_LOST` ...): the phases that give
them (melee, firing, a figure falling, a first sight) and the phase that tests them share them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from engine.rulesets.medieval_d10.charts import CommanderKind
from engine.rulesets.medieval_d10.units import Unit

__all__ = [
    "ARMY_CONTINGENT",
    "CONTACT_M",
    "FigureState",
    "Mode",
    "UnitState",
    "deploy_unit",
]

#: gap under which two units are in base-to-base contact (ground metres)
CONTACT_M = 1.0

# REASONS TO TAKE A MORALE TEST, by priority (1 highest)
R_COUNTER_CHARGE, R_DRAWN_LOST, R_FIGURE_KILLED, R_SEEN_ROUT, R_UNSEEN_ENEMY = 1, 4, 5, 6, 7
R_CASUALTIES, R_FIRST_FIRE, R_RALLY, R_HALF, R_CONTINGENT_LOST = 8, 9, 10, 11, 12


class Command(StrEnum):
    """A unit's standing orders in the game turn, from the scenario's plan (engine.command's
    intents): attack (declare charges when in reach, GAME TURN SEQUENCE phases 4-9), march to a
    place (no charge on the way, then hold) or hold."""

    ATTACK = "attack"
    MARCH = "march"
    HOLD = "hold"


class Mode(StrEnum):
    """What a unit is doing, from its orders and its last morale or control test."""

    OBEY = "act as ordered"
    HALF_SPEED = "half speed advance"
    NO_ADVANCE = "no advance"
    FALL_BACK = "fall back"
    ROUTING = "routing"
    PURSUING = "pursuing"
    DESTROYED = "destroyed"


#: what a unit's row in the battle's UnitTable depends on: its centre, its make-up (figures,
#: formation and order: its depth; figures: alive) and its mode (alive, routing)
_TABLE_WATCH = frozenset({"x", "y", "unit", "mode", "offstage"})
#: what ``UnitState.alive`` depends on
_LIFE = frozenset({"unit", "mode", "offstage"})


@dataclass
class UnitState:
    """One unit on the battlefield (mutable; the battle owns it)."""

    unit: Unit
    side: str
    x: float
    y: float
    #: bearing in degrees, 0 = north, clockwise: the core's ``Formation.facing`` (what the
    #: core deploys and the ruleset writes back), turned to radians where a sine is taken
    facing: float
    order: Command = Command.HOLD
    from_turn: int = 1
    #: the scenario's place to attack (an attack on a point, an objective to take): the unit
    #: advances on it first, until there or an enemy is within its move (engine.conditions)
    goal: tuple[float, float] | None = None
    #: the scenario's enemy unit to attack: advanced on instead of the nearest while it stands
    aim: str | None = None
    mode: Mode = Mode.OBEY
    mode_until: int = 0  # the turn a half-speed / no-advance result lasts to
    target: str | None = None
    charging: bool = False
    charged_this_turn: bool = False
    moved: bool = False
    moving_turn: int = -9  # last turn it moved
    fired_turn: int = -9
    under_fire_turn: int = -9
    under_fire_by: set[str] = field(default_factory=set)
    #: the enemy units that shot at it this Game Turn (CONTROL TEST reason 3, "Being shot at")
    shot_at_by: set[str] = field(default_factory=set)
    #: the turn it broke into a rout (CONTROL TEST reason 4, "seeing an enemy unit break")
    routed_turn: int = -9
    volleys: int = 0
    shots_fired: int = 0
    ever_under_fire: bool = False
    casualties_turn: int = 0
    melee_lost: bool = False
    #: the unit that beat it in this turn's melee (phase 13; a draw beats no one)
    beaten_by: str | None = None
    #: MELEE result: the winner that pushes it back in phase 3 of the next turn (declared in
    #: phase 15 when its morale test leaves it in the melee: "declare which units must ... be
    #: Pushed-back"); None: not pushed
    pushed_by: str | None = None
    #: the turn it was pushed back (MELEE CHART "being PUSHED-BACK"; THE MORALE TEST CHART
    #: "Being Pushed Back in good order")
    pushed_back_turn: int = -9
    #: the beaten unit it follows up in phase 3 of the next turn ("Following-up in an on-going
    #: Melee"): the player's wish, or a failed Control Test's "must Follow-Up"
    follow_up: str | None = None
    #: the loot-worthy place (a Built-up Area of the enemy's) mercenaries failing THE CONTROL
    #: TEST reason 7 run at, out of their player's orders; None: none
    loot: tuple[float, float] | None = None
    #: the turn it followed up (THE CONTROL TEST CHART "Pushing Forward in melee")
    followed_up_turn: int = -9
    pending: list[tuple[int, str]] = field(default_factory=list)  # (priority, reason) for phase 15
    control_reasons: list[str] = field(default_factory=list)
    reactions: set[str] = field(default_factory=set)  # this turn's reaction to a charge
    fall_back_disordered: bool = False
    commander: CommanderKind | None = None  # the kind of the Commander figure with the unit
    contingent: str | None = None  # its "contingent" (a medieval "Battle"): assign_contingents
    seen: set[str] | None = None  # enemy units it has seen (MORALE reason 7); None: not looked
    saw_inspirational_lost: bool = False  # "has seen an Inspirational Figure killed or wounded"
    counter_charge: bool = False  # its charge is a counter-charge (MORALE reason 1)
    #: off the table until it arrives (engine.reinforcements): no part of the battle, but its
    #: figures count in its side's strength for the break (as the core counts them)
    offstage: bool = False

    if TYPE_CHECKING:

        @property
        def alive(self) -> bool:
            """Not destroyed and with figures left: at run time a plain value, kept by
            :meth:`__setattr__` when ``mode`` or ``unit`` change (the battle asks it of every
            unit many times a phase), and no dataclass field (no argument, no default)."""

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        d[name] = value
        if name in _TABLE_WATCH:
            if name in _LIFE and "mode" in d:  # (``unit`` comes first in __init__)
                d["alive"] = (
                    d["mode"] is not Mode.DESTROYED
                    and d["unit"].figures_left > 0
                    and not d.get("offstage", False)
                )
            # the battle's UnitTable (engine.rulesets.medieval_d10.nearby) reads the row again
            table = d.get("_table")
            if table is not None:
                table.touch(self)

    @property
    def id(self) -> str:
        return self.unit.id

    @property
    def routing(self) -> bool:
        return self.mode is Mode.ROUTING

    def forward(self) -> tuple[float, float]:
        rad = math.radians(self.facing)
        return math.sin(rad), math.cos(rad)


#: the contingent of the army commander's own battle (his troop-list ``contingent`` is None)
ARMY_CONTINGENT = "army"


@dataclass
class FigureState:
    """A Commander figure (``kind`` set) or an Inspirational Figure (``kind`` None) standing in
    the front rank of ``unit`` ("Commander and Inspirational Figures"; the MELEE CHART's "any
    COMMANDER or INSPIRATIONAL figure in the front rank"). ``seniority`` 0 is the most senior
    (the army commander, then the troop list's order); ``general`` marks the army commander.
    An Inspirational Figure may stand alone on the field (``unit`` None) at ``x``, ``y``: it
    inspires the units that see it within 150 yds and walks to join a unit (``join``)."""

    id: str
    side: str
    unit: str | None
    kind: CommanderKind | None
    contingent: str | None = None
    seniority: int = 0
    general: bool = False
    alive: bool = True
    killed_turn: int = 0
    x: float = 0.0
    y: float = 0.0
    #: the unit a lone Inspirational Figure walks to join (None: the nearest friendly unit)
    join: str | None = None

    @property
    def inspirational(self) -> bool:
        return self.kind is None


def deploy_unit(
    unit: Unit, side: str, xy: tuple[float, float], facing_deg: float, **kw: Any
) -> UnitState:
    """A :class:`UnitState` at a battlefield point, facing a bearing in degrees."""
    return UnitState(unit, side, float(xy[0]), float(xy[1]), float(facing_deg), **kw)
