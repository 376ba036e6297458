"""Automatic commanders: a side's General following the scenario's ``plan`` (2mm Earth).

:class:`PlanCommander` implements :class:`engine.orders.Commander`. Each bound it works out the
order it wants every formation of its side to have and gives (through the delivery, so by
messenger when out of reach, 9.1) only the orders that changed. In bound 1 that is the
scenario's initial orders (the briefing). The plan - triggers, formation plans (waypoints,
steps, hold fire, feints) and objectives, in that order of precedence - is read by the core's
:class:`engine.command.PlanReader` into intents, which this module turns into 9.1 orders:

- a march or an advance is an Advance; an attack is an Attack, but an attack on a place (no
  enemy formation named) is an Advance to it for troops that close (:func:`_on_a_place`);
- an intent from a formation's own plan is its briefing (``engine.orders.BriefedOrder``: no
  messenger); a trigger's order is the General's later word, carried by messenger.

**Defaults**, for what the plan leaves to the General (never a formation whose own plan runs):
a formation advancing (or going for an objective) attacks the nearest enemy once one is within
striking distance (300 m; 400 m for an ``aggressive`` stance, 200 m ``defensive``) - by Advance
on it for troops with missiles that close (:func:`closes_on_advance`, 9.1); a formation holding
with missiles is ordered to attack (shoot, 9.1) an enemy that comes within its range; a
formation holding with no enemy within :data:`RESERVE_M` is a reserve and attacks the nearest
enemy when a friendly formation within :data:`RESERVE_M` of it routs.

Routing and retreating formations get no orders (10.3-10.4, they obey no one).

>>> from engine.scenario import Plan
>>> PlanCommander("scots", Plan()).strike_m
300.0
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from engine.command.enemies import Enemies, gap
from engine.command.intent import Intent, IntentKind, IntentOrigin
from engine.command.plan import REACHED_M, STATION_M, TAKEN_M, PlanReader
from engine.idle import IdleCause
from engine.log import Replanned
from engine.orders import BriefedOrder, CommanderView, Order
from engine.rulesets.two_mm_earth.charts import Order as OrderKind
from engine.rulesets.two_mm_earth.charts import UnitType
from engine.rulesets.two_mm_earth.profiles import Flag, profile_of
from engine.rulesets.two_mm_earth.wings import WingOrder
from engine.scenario import Plan, Scenario
from engine.state import BattleState, Formation, Morale

__all__ = [
    "REACHED_M",
    "RESERVE_M",
    "STATION_M",
    "STRIKE_M",
    "TAKEN_M",
    "PlanCommander",
    "plan_commanders",
]

#: striking distance by stance: an advancing formation attacks an enemy this close
STRIKE_M = {"aggressive": 400.0, "balanced": 300.0, "defensive": 200.0}
#: a holding formation with no enemy this close is a reserve; it commits when a friend this close
#: routs
RESERVE_M = 500.0

_Key = tuple[str, str | None, tuple[float, float] | None]


def _key(o: Order) -> _Key:
    return (o.kind, o.target_formation, o.target_point)


@dataclass(slots=True)
class PlanCommander:
    """A side's General following ``plan`` (see the module docstring): the plan read into
    intents by the core's :class:`engine.command.PlanReader`, each turned into a 9.1 order,
    and the General's own defaults for what the plan leaves to him."""

    side: str
    plan: Plan
    initial: dict[str, Order] = field(default_factory=dict)
    to_xy: Any = None
    issued: dict[str, _Key] = field(default_factory=dict)
    seen_routs: set[str] = field(default_factory=set)
    reader: PlanReader = field(init=False)

    def __post_init__(self) -> None:
        self.reader = PlanReader(self.side, self.plan, self.to_xy, reach=_range)

    @classmethod
    def from_scenario(cls, scenario: Scenario, side: str, to_xy: Any) -> PlanCommander:
        spec = scenario.side(side)
        initial: dict[str, Order] = {}
        for f in spec.formations:
            point = f.target.resolve(to_xy) if f.target is not None else None
            initial[f.id] = Order(f.order, f.id, point, f.target_formation)
        return cls(side, scenario.plan_of(side) or Plan(), initial, to_xy)

    @property
    def strike_m(self) -> float:
        return STRIKE_M[self.plan.stance]

    # -- the Commander protocol -----------------------------------------------------------
    def orders(self, view: CommanderView, bound: int) -> list[Order | WingOrder]:
        state, reader = view.state, self.reader
        reader.begin(state, view.battlefield.to_xy if view.battlefield is not None else None)
        mine = [f for f in state.active(self.side) if f.morale is Morale.STEADY]
        enemies = Enemies(state, self.side)
        want: dict[str, Order] = {}
        if bound <= 1:
            for f in mine:
                o = self.initial.get(f.id)
                if o is not None:
                    want[f.id] = _on_a_place(f, o)
        want.update(self._answer_idle(view, enemies))
        current = {f.id: self._current(f) for f in mine}
        routed_now = self._new_routs(state)
        reading = reader.read(
            state, bound, enemies, mine, lambda f: _intent(current[f.id]), held=set(want)
        )
        # 1. triggers: the General's word in the battle (a messenger carries it)
        for i in reading.triggered:
            f = state.formations[i.formation]
            if i.kind is IntentKind.ATTACK and i.point is None and i.target is None:
                near = enemies.nearest(f)  # the General names the nearest as the order goes
                i = replace(i, target=near[0].id if near is not None else None)
            want[i.formation] = _on_a_place(f, _order(i))
        # 2. formation plans: a plan step is the General's own word, no default overrides it
        for fid, i in reading.planned.items():
            want[fid] = _order(i)
        # 3. objectives and 4. defaults, for the formations no trigger or plan just ordered
        for fid, oi in reading.objectives.items():
            f = state.formations[fid]
            o = _order(oi) if oi is not None else None
            o = self._default_order(f, o or current[fid], enemies, routed_now) or o
            if o is not None:
                want[fid] = o
        out: list[Order | WingOrder] = []
        for f in state.formations.values():  # deployment order: deterministic
            o = want.get(f.id)
            if o is None or f.removed or f.morale is Morale.ROUTING:
                continue
            if self.issued.get(f.id) == _key(o) and bound > 1:
                continue
            self.issued[f.id] = _key(o)
            out.append(o)
        return out

    # -- answering the idle watcher ---------------------------------------------------------
    def _answer_idle(self, view: CommanderView, enemies: Enemies) -> dict[str, Order]:
        """The General's answer to each new idle report of his formations (engine.idle), logged
        as ``replanned``: a formation that cannot reach its place (a friend, terrain or the
        table edge in the way) passes its waypoint over or holds where it stands for its
        station (``PlanReader.settle``), or, sent to a place by no plan, holds there; one told
        to attack with no enemy in range or in sight advances on the nearest enemy if it
        closes or fights hand to hand (9.1: Advance "any way which isn't backwards"), else
        (skirmishers, guns) holds, to shoot what comes into range. Reports he cannot answer
        (not ready, a messenger on its way, no move planned) stand: he waits. The orders he
        gives here (a formation whose own plan runs gets its next step from the plan)."""
        out: dict[str, Order] = {}
        state, reader = view.state, self.reader
        for fid, rep in view.idle.items():
            f = state.formations.get(fid)
            if f is None or f.side != self.side:
                continue
            if f.removed or f.morale is not Morale.STEADY:
                continue
            cur = self._current(f)
            order: Order | None = None
            reason: str | None = None
            if rep.cause in (IdleCause.FRIEND, IdleCause.TERRAIN, IdleCause.EDGE):
                if cur.target_formation is not None and cur.kind in (
                    OrderKind.ADVANCE,
                    OrderKind.ATTACK,
                ):
                    # its way to that enemy is barred (engine.jams' side-step did not get it
                    # round): it goes at the nearest enemy instead, if another is nearer
                    near = enemies.nearest(f)
                    if reader.in_plan(fid) or near is None or near[0].id == cur.target_formation:
                        continue
                    order = Order(cur.kind, fid, None, near[0].id)
                    reason = (
                        f"its way to {cur.target_formation} is barred: it goes at the nearest "
                        f"enemy, {near[0].id}"
                    )
                    out[fid] = order
                    if view.emit is not None:
                        view.emit(Replanned("orders", fid, str(rep.cause), str(order), reason))
                    continue
                if cur.kind != OrderKind.ADVANCE:
                    continue
                planned = reader.in_plan(fid)
                reason = reader.settle(f)
                # a place no plan step or objective holds it to (a scenario or trigger order)
                free = fid in reader.committed or reader.objective_of(fid) is None
                if reason is None and not planned and free:
                    reason = "its place cannot be reached: it holds where it stands"
                if reason is not None and not planned:
                    order = Order("hold", fid)  # (its station is where it stands now)
            elif rep.cause is IdleCause.NO_TARGET and cur.kind == OrderKind.ATTACK:
                near = enemies.nearest(f)
                if reader.in_plan(fid) or near is None:
                    continue
                if closes_on_advance(f) or _melee_only(f):
                    order = Order("advance", fid, None, near[0].id)
                    reason = "no enemy in reach to attack: it advances on the nearest"
                else:
                    order = Order("hold", fid)
                    reason = "no enemy in range: it holds, to shoot what comes into range"
            if reason is None:
                continue
            if order is not None:
                out[fid] = order
            if view.emit is not None:
                said = str(order) if order is not None else "its plan's next step"
                view.emit(Replanned("orders", fid, str(rep.cause), said, reason))
        return out

    # -- pieces ---------------------------------------------------------------------------
    def _current(self, f: Formation) -> Order:
        """What the formation was last ordered (as far as the General knows)."""
        k = self.issued.get(f.id)
        if k is not None:
            return Order(k[0], f.id, k[2], k[1])
        kind = f.order if f.order != "none" else "hold"
        return Order(kind, f.id, f.target_point, f.target_formation)

    def _new_routs(self, state: BattleState) -> list[Formation]:
        out = []
        for f in state.side_formations(self.side):
            if f.morale in (Morale.ROUTING, Morale.DESTROYED) and f.id not in self.seen_routs:
                self.seen_routs.add(f.id)
                out.append(f)
        return out

    def _default_order(
        self, f: Formation, cur: Order, enemies: Enemies, routed_now: list[Formation]
    ) -> Order | None:
        found = enemies.nearest(f)
        if found is None:
            return None
        near, gap_m = found
        aim = enemies.by_id.get(cur.target_formation or "")
        if (
            aim is not None
            and cur.kind in (OrderKind.ADVANCE, OrderKind.ATTACK)
            and aim is not near
            and aim.morale is Morale.STEADY
            and gap(f, aim) <= self.strike_m
        ):
            return None  # going for an enemy still in reach: no new order (no new messenger)
        if cur.kind == OrderKind.ADVANCE and gap_m <= self.strike_m:
            if closes_on_advance(f):
                # 9.1: Attack would make these troops shoot; the General means them to close,
                # and Advance moves "any way which isn't backwards" while they may still shoot
                return Order("advance", f.id, None, near.id)
            return Order("attack", f.id, None, near.id)
        if cur.kind == OrderKind.HOLD:
            rng = _range(f)
            if rng > 0 and gap_m <= rng:
                return Order("attack", f.id, None, near.id)
            if gap_m > RESERVE_M and any(gap(f, r) <= RESERVE_M for r in routed_now):
                return Order("attack", f.id, None, near.id)
        return None


def _order(i: Intent) -> Order:
    """An intent as a 9.1 order: a march or an advance is an Advance; one from the formation's
    own plan is its briefing (``BriefedOrder``: no messenger)."""
    word = "advance" if i.kind in (IntentKind.ADVANCE, IntentKind.MARCH) else str(i.kind)
    cls = BriefedOrder if i.origin is IntentOrigin.PLAN else Order
    return cls(word, i.formation, i.point, i.target)


def _intent(o: Order) -> Intent:
    """A 9.1 order as the intent it carries out (what the General last told a formation)."""
    return Intent(IntentKind(o.kind), o.formation, o.target_point, o.target_formation)


def closes_on_advance(f: Formation) -> bool:
    """Whether an advancing formation with missiles goes on into contact (Advance aimed at
    the enemy) rather than stopping to shoot (Attack), when the General's default sends it at
    an enemy within striking distance (docs/rules-interpretations.md, "Who closes and who
    shoots"). 9.1: "Attack means to shoot for ranged troops, but to move into combat for
    melee-only troops", so melee-only troops are sent in by Attack (False here). Formed troops
    with missiles (bill-and-bow, musket lines) close by Advance; skirmishers (4.1) and war
    machines stand off and shoot.

    >>> from engine.state import Formation
    >>> closes_on_advance(Formation("f", "a", "F", 0.0, 0.0, 0.0, 1, []))  # no bases
    False
    """
    ps = [profile_of(b.profile) for b in f.alive_bases]
    if not ps or all(p.melee_only for p in ps):
        return False
    return not any(
        p.has(Flag.SKIRMISHER) or p.has(Flag.ORDNANCE_ONLY) or p.unit_type is UnitType.WAR_MACHINE
        for p in ps
    )


def _on_a_place(f: Formation, o: Order) -> Order:
    """An attack on a place (a point, no enemy formation named) is an Advance to it
    (docs/rules-interpretations.md, "Who closes and who shoots"): 9.1's Attack has troops with
    missiles shoot at whatever is in range and melee-only troops charge whatever enemy is
    nearest, and neither ever goes there. On the way the General's default sends the
    formation at an enemy within striking distance (Attack for melee-only troops, Advance on
    it for those that close). Skirmishers and war machines keep Attack (they shoot)."""
    if o.kind != OrderKind.ATTACK or o.target_point is None or o.target_formation is not None:
        return o
    if not (closes_on_advance(f) or _melee_only(f)):
        return o
    return type(o)("advance", o.formation, o.target_point, None)


def _melee_only(f: Formation) -> bool:
    ps = [profile_of(b.profile) for b in f.alive_bases]
    return bool(ps) and all(p.melee_only for p in ps)


def _range(f: Formation) -> float:
    """The formation's missile range (the shortest of its bases'; 0: none has missiles)."""
    ps = [profile_of(b.profile) for b in f.alive_bases]
    rs = [p.range_m for p in ps if p.arming.ranged]
    return float(min(rs)) if rs else 0.0


def plan_commanders(scenario: Scenario, to_xy: Any) -> dict[str, PlanCommander]:
    """A :class:`PlanCommander` for every side of ``scenario``."""
    return {s.id: PlanCommander.from_scenario(scenario, s.id, to_xy) for s in scenario.sides}
