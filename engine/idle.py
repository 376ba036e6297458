"""The idle watcher: formations that mean to act and do not, named with their cause.

A steady formation with an *intent* (its order is to advance or to attack) that for
:data:`IDLE_BOUNDS` bounds running neither moves more than :data:`MOVED_M`, shoots nor fights
is idle. The watcher logs an :class:`Idle` event naming why (from what the bound left behind:
readiness, a messenger on its way, a friend in the way, terrain, the table edge, no target in
range, no move planned), once per streak and again every :data:`IDLE_BOUNDS` bounds it lasts,
and counts them in the result (``idle``). It reads every ruleset's formations and events
(``order``, ``morale``; ``moved``, ``shot``, ``melee``); it changes nothing in the battle, so a
battle's dice and moves are the same with it.

>>> w = IdleWatch()
>>> w.streaks
{}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from engine.log import Event, Idle, Melee, Moved, PlannedMove, Shot
from engine.state import Formation, Morale

if TYPE_CHECKING:
    from engine.context import BoundContext

__all__ = ["IDLE_BOUNDS", "MOVED_M", "IdleCause", "IdleReport", "IdleView", "IdleWatch"]

#: bounds running a formation with an intent must be idle before it is reported
IDLE_BOUNDS = 5
#: a move of this much or less is no move (a turn in place, a creep against a friend)
MOVED_M = 1.0
#: the orders that mean a formation intends to move or strike
_INTENT = frozenset({"advance", "attack"})


class IdleCause(StrEnum):
    """Why a formation with an intent stood (what the commander can answer)."""

    NOT_READY = "not_ready"
    MESSENGER = "messenger"
    FRIEND = "friend"  # a friend in the way (named, or its move halted on one)
    TERRAIN = "terrain"
    EDGE = "edge"
    NO_TARGET = "no_target"  # an attack with no enemy in range or in sight
    NO_MOVE = "no_move"  # no move planned: its goal reached or held by a friend
    UNMADE = "unmade"  # a move planned but not made
    SHAKEN = "shaken"  # its last morale or control test holds it (a ruleset's own)


@dataclass(frozen=True, slots=True)
class IdleView:
    """A ruleset's own reading for the watcher (``Ruleset.idle_view``), for a book whose units
    and events are not the core's: the order word each formation means to carry out this bound
    (those that mean to move or strike), the formations that moved more than :data:`MOVED_M`,
    shot or fought (or stand in contact), and the cause it knows for one that stood."""

    intents: Mapping[str, str]
    acted: frozenset[str]
    causes: Mapping[str, tuple[IdleCause, str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class IdleReport:
    """The last idle event of a formation: its bound, cause and the words the log gave."""

    bound: int
    cause: IdleCause
    text: str


@dataclass
class IdleWatch:
    """Per battle: each formation's idle streak and the last halt of its moves."""

    streaks: dict[str, int] = field(default_factory=dict)
    #: each formation's last halt (engine.movement) and the order it moved under
    halted: dict[str, tuple[str | None, tuple[Any, ...]]] = field(default_factory=dict)
    reported: int = 0
    #: the idle events of the last bound observed, by formation: each new once, so the
    #: commander answers each once, as the next bound begins (engine.command)
    reports: dict[str, IdleReport] = field(default_factory=dict)
    #: the formations that meant to move or strike in the last bound observed
    intending: list[str] = field(default_factory=list)

    def observe(self, ctx: BoundContext, events: Iterable[Event]) -> list[Idle]:
        """The bound's events seen; the idle events this bound adds (after the bound's own)."""
        acted: set[str] = set()
        planned: set[str] = set()
        forms = ctx.state.formations
        for e in events:
            if isinstance(e, Moved):
                # the halt and the order it was made under (an arrival counts for that order)
                self.halted[e.formation] = (e.halted, _order_key(forms[e.formation]))
                if e.distance_m > MOVED_M:
                    acted.add(e.formation)
            elif isinstance(e, Shot):
                acted.add(e.formation)
            elif isinstance(e, Melee):
                acted.update((e.formation, e.target))
            elif isinstance(e, PlannedMove):
                planned.add(e.formation)
        state = ctx.state
        view: IdleView | None = ctx.ruleset.idle_view(ctx)
        if view is not None:
            acted |= view.acted
        out: list[Idle] = []
        self.intending = []
        self.reports = {}
        for f in state.active():
            steady = f.morale is Morale.STEADY
            if view is not None:
                word = view.intents.get(f.id)
                intent = steady and word is not None
            else:
                word = getattr(f, "order", None)
                intent = steady and word in _INTENT and not self._arrived(f)
                # (an advance to a place it reached: it stands there by order)
            if intent:
                self.intending.append(f.id)
            if not intent or f.id in acted or state.contacts.get(f.id):
                self.streaks.pop(f.id, None)
                continue
            n = self.streaks.get(f.id, 0) + 1
            self.streaks[f.id] = n
            if n % IDLE_BOUNDS == 0:
                known = view.causes.get(f.id) if view is not None else None
                cause, text = known if known is not None else self._cause(ctx, f, planned)
                self.reports[f.id] = IdleReport(state.bound, cause, text)
                out.append(Idle("end", f.id, str(word), n, text))
        self.reported += len(out)
        return out

    def undecided(self, state: Any) -> str:
        """Why a battle that ran out of bounds is undecided, as the last bound left it: both
        sides holding by choice (no formation means to move or strike), the armies still in
        contact, or the formations whose intent stood idle (those reported, by name)."""
        if not self.intending:
            return "both sides hold"
        if any(state.contacts.get(f.id) for f in state.active()):
            return "the armies still fighting"
        idle = sorted(fid for fid in self.intending if self.streaks.get(fid, 0) >= IDLE_BOUNDS)
        if idle:
            return "intents not carried out: " + ", ".join(idle)
        return "the armies still closing"

    def _arrived(self, f: Any) -> bool:
        """Whether ``f``'s last move ended at its goal under the order it still has (9.1:
        melee-only troops told to Hold keep their Advance, standing where it took them)."""
        return self.halted.get(f.id) == ("goal", _order_key(f))

    def _cause(self, ctx: BoundContext, f: Formation, planned: set[str]) -> tuple[IdleCause, str]:
        """Why ``f`` stood, as far as the bound tells."""
        if ctx.readiness is not None and ctx.readiness.holds(f.id):
            return IdleCause.NOT_READY, "not ready (engine.readiness)"
        # messengers are the delivery's own (9.2): a delivery without them carries none
        in_flight = getattr(ctx.delivery, "in_flight", ())
        if any(getattr(m, "to", None) == f.id for m in in_flight):
            return IdleCause.MESSENGER, "waiting for a messenger"
        friend = ctx.jams.stuck_by.get(f.id)
        if friend is not None:
            busy = " (in combat)" if ctx.state.contacts.get(friend) else ""
            return IdleCause.FRIEND, f"blocked by friend {friend}{busy}"
        halt = self.halted.get(f.id, (None, ()))[0]
        if halt == "blocked":
            return IdleCause.FRIEND, "blocked by a friend in the way"
        if halt == "edge":
            return IdleCause.EDGE, "stopped by the table edge"
        if halt == "terrain":
            return IdleCause.TERRAIN, "stopped by terrain"
        if f.id not in planned:
            if f.order == "attack":
                return IdleCause.NO_TARGET, "no enemy in range or in sight to attack"
            return IdleCause.NO_MOVE, "no move planned (its goal reached or held by a friend)"
        return IdleCause.UNMADE, "a move planned but not made"


def _order_key(f: Any) -> tuple[Any, ...]:
    return (
        getattr(f, "order", None),
        getattr(f, "target_point", None),
        getattr(f, "target_formation", None),
    )
