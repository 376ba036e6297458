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
        text = f"{self.kind} {self.formation}"
        if self.target is not None:
            text += f" on {self.target}"
        elif self.point is not None:
            text += f" to {float(self.point[0])},{float(self.point[1])}"
        return text

    @classmethod
    def from_text(cls, text: str, origin: IntentOrigin = IntentOrigin.DEFAULT) -> Intent:
        """Parse ``kind formation [on enemy | to x,y]`` (what :meth:`__str__` prints)."""
        words = text.split()
        try:
            kind = IntentKind(words[0])
            if len(words) == 2:
                return cls(kind, words[1], origin=origin)
            if len(words) == 4 and words[2] == "on":
                return cls(kind, words[1], target=words[3], origin=origin)
            if len(words) == 4 and words[2] == "to":
                x, y = (float(v) for v in words[3].split(","))
                return cls(kind, words[1], (x, y), origin=origin)
        except (IndexError, ValueError):
            pass
        raise ValueError(f"expected an intent like 'attack <formation> [on <enemy>]', got {text!r}")
