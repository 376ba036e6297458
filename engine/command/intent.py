"""What a formation means to do: the command layer's word, before any rulebook's orders.

A plan (objectives, waypoints, steps, triggers, hold-fire, feints) is read into one
:class:`Intent` per formation (:mod:`engine.command.plan`); each ruleset turns an intent into
its own orders (2mm Earth: Advance, Attack, Hold, Retreat of 9.1; medieval-d10: its attack,
march and hold orders and the charges of its phases).

>>> i = Intent.from_text("attack sc_pikes on eng_bills")
>>> i.kind, i.target, str(i)
(<IntentKind.ATTACK: 'attack'>, 'eng_bills', 'attack sc_pikes on eng_bills')
>>> str(Intent(IntentKind.MARCH, "eng_left", (1200.5, 300.0), origin=IntentOrigin.PLAN))
'march eng_left to 1200.5,300.0'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.orders import order_text, parse_order_text

__all__ = ["Intent", "IntentKind", "IntentOrigin"]


class IntentKind(StrEnum):
    """What a formation means to do."""

    #: go to a place, taking it (a ``take`` objective, a step's advance): on the way it goes at
    #: the enemy as its troops fight; at an enemy formation, close with it
    ADVANCE = "advance"
    #: go to a place to stand there (a waypoint, a station on a held objective)
    MARCH = "march"
    #: strike an enemy formation (or whatever enemy is nearest): close with it or shoot at it,
    #: as the troops fight
    ATTACK = "attack"
    #: stand where it is (ranged troops holding their fire while the plan holds it)
    HOLD = "hold"
    #: fall back toward its own side (a feint's fall back, an ordered withdrawal)
    RETREAT = "retreat"


class IntentOrigin(StrEnum):
    """Where an intent comes from; a ruleset may carry them differently (2mm Earth 9.1: the
    pre-battle plan needs no messenger, a trigger's order is the General's later word)."""

    BRIEFING = "briefing"  # the formation's scenario order, given before the battle
    TRIGGER = "trigger"  # a plan trigger fired: the General's word in the battle
    PLAN = "plan"  # the formation's own plan (waypoints, steps, hold fire, feint)
    OBJECTIVE = "objective"  # the side's objectives: take it, or hold it
    DEFAULT = "default"  # the commander's own judgement (the ruleset's defaults)


@dataclass(frozen=True, slots=True)
class Intent:
    """One formation's intent: its kind, a place or an enemy formation, and its origin."""

    kind: IntentKind
    formation: str
    point: tuple[float, float] | None = None
    target: str | None = None
    origin: IntentOrigin = IntentOrigin.DEFAULT

    def __post_init__(self) -> None:
        if self.point is not None and self.target is not None:
            raise ValueError("expected a place or an enemy formation, not both")

    def __str__(self) -> str:
        return order_text(str(self.kind), self.formation, self.point, self.target)

    @classmethod
    def from_text(cls, text: str, origin: IntentOrigin = IntentOrigin.DEFAULT) -> Intent:
        """Parse ``kind formation [on enemy | to x,y]`` (what :meth:`__str__` prints)."""
        parts = parse_order_text(text)
        if parts is not None and parts[0] in IntentKind._value2member_map_:
            word, formation, point, target = parts
            return cls(IntentKind(word), formation, point, target, origin)
        raise ValueError(f"expected an intent like 'attack <formation> [on <enemy>]', got {text!r}")
