"""Readiness at the start of a battle: troops caught in camp, asleep or on the
march, and what rouses them.

A side or a formation of a scenario may start ``unready`` (in camp), ``asleep`` or
``on_the_march`` (``engine.scenario.ReadinessSpec``); every other formation is ``ready``. The
state ends at the first of the conditions the scenario gives (``until``): a bound, an enemy
within a distance, being attacked (hit or in melee contact with an enemy; on by default), an
order reaching the formation after the first bound (``order: true``: a messenger rouses it).
Then the formation forms up for :data:`FORM_UP_BOUNDS` bounds of its state and is ready.
A side's readiness is not that of its formations that arrive later in the battle (a plan's
``arrives``): they were sent for and marched to the field; their own ``readiness`` still holds.

The rulebook has no rule for surprise. Reading (docs/rules-interpretations.md, "Readiness"):
until it is ready a formation plans no move and no shot (1.1 planning: it has no plan to make);
it still fights a melee it is in (3.2, a formation in contact fights) and its morale is tested as
any other's (10.x); routing and retreating moves are not stopped (11.1). Forming up takes one
bound out of camp or off the march (arming and dressing ranks) and two from sleep.

>>> FORM_UP_BOUNDS[Readiness.ASLEEP], FORM_UP_BOUNDS[Readiness.UNREADY]
(2, 1)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from engine.state import BaseStatus, Formation, Morale

if TYPE_CHECKING:
    from engine.context import BoundContext

__all__ = ["FORM_UP_BOUNDS", "Readiness", "ReadinessWatch", "readiness_for"]


class Readiness(StrEnum):
    READY = "ready"
    UNREADY = "unready"  # in camp: arms piled, horses unsaddled
    ASLEEP = "asleep"
    ON_THE_MARCH = "on_the_march"  # in column of march, not deployed to fight


#: bounds from the end of the state to ready (arming, saddling, dressing ranks)
FORM_UP_BOUNDS: dict[Readiness, int] = {
    Readiness.UNREADY: 1,
    Readiness.ASLEEP: 2,
    Readiness.ON_THE_MARCH: 1,
}


@dataclass
class _Status:
    state: Readiness
    bound: int | None  # ends as this bound begins
    enemy_within_m: float | None
    attacked: bool
    order: bool
    friend_attacked_within_m: float | None = None
    ended: int | None = None  # the bound the state ended in
    ready_at: int | None = None  # the first bound it acts in
    seen: tuple[Any, ...] = ()  # base statuses as last seen (hits since)


def _signature(f: Any) -> tuple[Any, ...]:
    return (tuple(b.status for b in f.bases),)


class ReadinessWatch:
    """The bound-start hook (``BoundContext.on_bound_start``) that ends readiness states and
    says which formations may not act yet (:meth:`holds`)."""

    def __init__(self, statuses: dict[str, _Status]) -> None:
        self.statuses = statuses
        self.log: Any = None  # the battle's log: last bound's orders received (engine.battle)
        #: every formation's base statuses as last seen (who was hit since: the alarm)
        self._sigs: dict[str, tuple[Any, ...]] = {}
        self._attacked: set[str] = set()  # formations attacked since the last bound began

    def holds(self, fid: str) -> bool:
        """Whether ``fid`` may not plan a move or a shot this bound."""
        st = self.statuses.get(fid)
        return st is not None

    def state_of(self, fid: str) -> Readiness:
        st = self.statuses.get(fid)
        return Readiness.READY if st is None else st.state

    def __call__(self, ctx: BoundContext) -> None:
        from engine.log import ReadinessEnded

        state = ctx.state
        n = state.bound
        if any(st.friend_attacked_within_m is not None for st in self.statuses.values()):
            self._attacked = self._attacked_now(state)
        for fid in list(self.statuses):
            st = self.statuses[fid]
            f = state.formations.get(fid)
            if f is None:
                continue  # a reinforcement not yet on the table (engine.reinforcements)
            if st.ended is not None:
                if n >= (st.ready_at or 0):
                    del self.statuses[fid]  # formed up: ready from this bound
                continue
            cause = self._cause(ctx, f, st, n)
            st.seen = _signature(f)
            if cause is None:
                continue
            st.ended = n
            st.ready_at = n + FORM_UP_BOUNDS[st.state]
            ctx.emit(ReadinessEnded("orders", fid, str(st.state), cause))

    def _attacked_now(self, state: Any) -> set[str]:
        """Formations in contact with an enemy, or with a base hit since the last bound."""
        out: set[str] = set()
        for f in state.formations.values():
            sig = _signature(f)
            before = self._sigs.get(f.id)
            self._sigs[f.id] = sig
            if f.removed:
                continue
            if (before is not None and before != sig) or _in_enemy_contact(state, f):
                out.add(f.id)
        return out

    def _cause(self, ctx: BoundContext, f: Formation, st: _Status, n: int) -> str | None:
        state = ctx.state
        if f.removed or f.morale is not Morale.STEADY:
            return "morale"  # broken troops run whatever their state (11.1)
        sig = _signature(f)
        if st.attacked and n > 1:
            enemies = {g.id for g in state.formations.values() if g.side != f.side}
            if any(c in enemies for c in state.contacts.get(f.id, ())):
                return "attacked"
            if sig[0] != st.seen[0]:
                return "attacked"  # a base hit since the last bound
        if (
            st.order
            and self.log is not None
            and self.log.bounds[-1].bound > 1  # bound 1's orders are the briefing
            and any(
                e.type == "order_received" and e.formation == f.id
                for e in self.log.bounds[-1].events
            )
        ):
            return "order"  # an order reached it last bound (a messenger, 9.1-9.2)
        if st.friend_attacked_within_m is not None:
            for gid in sorted(self._attacked):
                g = state.formations.get(gid)
                if g is None or g is f or g.side != f.side or g.removed:
                    continue
                if math.dist(f.centre(), g.centre()) <= st.friend_attacked_within_m:
                    return f"alarm: {gid} attacked"  # the alarm spreads (surprise)
        if st.bound is not None and n >= st.bound:
            return "bound"
        if st.enemy_within_m is not None:
            for g in state.active():
                if g.side != f.side and ctx.sight.distance(f.id, g.id) <= st.enemy_within_m:
                    return "enemy_within"
        return None


def _in_enemy_contact(state: Any, f: Any) -> bool:
    return any(
        (g := state.formations.get(c)) is not None and g.side != f.side
        for c in state.contacts.get(f.id, ())
    )


def readiness_for(scenario: Any, state: Any) -> ReadinessWatch | None:
    """The watch for a scenario's readiness fields (None if every formation starts ready)."""
    statuses: dict[str, _Status] = {}
    for side in scenario.sides:
        plan = scenario.plan_of(side.id)
        # a formation that arrives later marched to the battle: the side's readiness is its
        # army as the battle began, not troops sent for (docs/rules-interpretations.md)
        arriving = {fp.formation for fp in (plan.formations if plan else ()) if fp.arrives}
        for fs in side.formations:
            spec = fs.readiness or (side.readiness if fs.id not in arriving else None)
            if spec is None or spec.state == Readiness.READY:
                continue
            u = spec.until
            st = _Status(
                Readiness(spec.state),
                u.bound,
                u.enemy_within_m,
                u.attacked,
                u.order,
                u.friend_attacked_within_m,
            )
            st.seen = _signature(state.formations[fs.id])
            statuses[fs.id] = st
    return ReadinessWatch(statuses) if statuses else None


def dead_or_hurt(f: Any) -> int:
    """Bases of ``f`` injured or killed (for tests and reports)."""
    return sum(1 for b in f.bases if b.status is not BaseStatus.OK)
