"""What every phase of a bound works on: ground, state, dice, ruleset, sight, and the bound's notes.

Kept apart from the battle loop so a ruleset's phase modules can take it without importing the
loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.dice import Dice
from engine.jams import JamWatch
from engine.log import Event
from engine.sight import Sight
from engine.special_rules import SpecialRules
from engine.state import BattleState
from engine.terrain import Ground

if TYPE_CHECKING:
    from engine.idle import IdleWatch
    from engine.orders import Commander, Delivery
    from engine.readiness import ReadinessWatch
    from engine.scenario import Scenario
    from engine.seam import Ruleset

__all__ = ["BoundContext"]


@dataclass(slots=True)
class BoundContext:
    """What every phase gets: the ground as the ruleset reads it, the state, the one dice, the
    ruleset, sight, the scenario, the commanders and the order delivery, and the bound's events.

    A ruleset that needs notes of its own across the phases of a bound subclasses this (a
    slotted dataclass) and returns it from ``Ruleset.new_context``.
    """

    bf: Ground
    state: BattleState
    dice: Dice
    ruleset: Ruleset
    sight: Sight
    scenario: Scenario | None = None
    commanders: dict[str, Commander] = field(default_factory=dict)
    delivery: Delivery | None = None
    events: list[Event] = field(default_factory=list)
    #: friendly jams: who was stuck behind whom, lanes taken, stalls (engine.jams)
    jams: JamWatch = field(default_factory=JamWatch)
    #: called with the context as each bound begins (engine.light's sky, engine.readiness)
    on_bound_start: list[Any] = field(default_factory=list)
    #: formations not yet ready to fight (None: all ready)
    readiness: ReadinessWatch | None = None
    #: who stood idle with an intent, and why (the commanders answer its reports)
    idle: IdleWatch | None = None
    #: after an army broke (victory.rout_fraction): the broken sides, while the winner's pursuit
    #: runs on (engine.battle); None while the battle is undecided
    aftermath: frozenset[str] | None = None
    #: the scenario's special rules in force and their state (engine.special_rules): the
    #: rulesets' seams ask it (``may_shoot`` ...); with none named it answers as the book
    special: SpecialRules = field(default_factory=SpecialRules)
    #: base ids the book removed as dispersed or fled off the table rather than killed (War &
    #: Conquest); ``Ruleset.casualties`` counts them dispersed (engine.casualties)
    dispersed: set[str] = field(default_factory=set)

    def emit(self, events: Event | list[Event]) -> None:
        if isinstance(events, list):
            self.events.extend(events)
        else:
            self.events.append(events)

    @property
    def phase(self) -> str:
        return self.state.phase
