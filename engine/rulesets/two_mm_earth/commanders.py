"""Automatic commanders (issue 4): a side's General following the scenario's ``plan``.

:class:`PlanCommander` implements :class:`engine.orders.Commander`. Each bound it works out the
order it wants every formation of its side to have and gives (through the delivery, so by
messenger when out of reach, 9.1) only the orders that changed. In bound 1 that is the
scenario's initial orders (the briefing). Then, in this order of precedence:

1. **Triggers** (``plan.triggers``), each fires once, in file order, when all of its conditions
   hold: ``enemy_within_m`` of ``formation`` (else of any of the trigger's formations), from
   ``bound`` on, ``formation`` has lost ``losses_fraction`` of its bases, friendly formation
   ``routs`` is routing or destroyed, objective ``objective_taken`` is taken. The trigger's
   ``formations`` (default: the condition's ``formation``) get ``order`` with its target; an
   attack without a target goes at the nearest enemy.
2. **Objectives** (``plan.objectives``): ``take`` - the listed formations advance on the point
   until it is taken (a formation of the side within :data:`TAKEN_M` of it and no enemy as close),
   then hold it; ``hold``/``screen`` - formations farther than :data:`STATION_M` from the point
   advance to it, then hold.
3. **Defaults**, so a scenario with no plan plays: a formation advancing (or going for an
   objective) attacks the nearest enemy once one is within striking distance (300 m; 400 m for
   an ``aggressive`` stance, 200 m ``defensive``); a formation holding with missiles is ordered to
   attack (shoot, 9.1) an enemy that comes within its range; a formation holding with no enemy
   within :data:`RESERVE_M` is a reserve and attacks the nearest enemy when a friendly formation
   within :data:`RESERVE_M` of it routs.

**Formation plans** (``plan.formations``, issue 12) come between the triggers and the
objectives, for the formations they name; the rest of the side is the commander's own:

- ``hold_fire``: the formation is kept on Hold (9.1 "Hold means to Hold Fire for ranged
  troops") and is not sent to shoot at enemies in range (the default above, and 9.1's no-order
  fire) until its ``until`` conditions hold; then it shoots at the nearest enemy in range, or
  goes on with its plan. It neither moves nor shoots while held.
- ``feint``: advance to the point; on reaching it (within :data:`REACHED_M`), or when an enemy
  is within ``enemy_within_m``, Retreat (9.1; 10.2 "must retreat if ordered to", so it is
  retreating, -1R, 11.1) for ``fall_back_bounds`` bounds, then Hold to rally (11.2).
- ``waypoints``: advance to each in turn, the next once within :data:`REACHED_M`; then
- ``steps``: each in turn (advance to, attack, hold at an objective, a point or an enemy
  formation) until its ``until`` (reached, taken, a bound); then hold.

Orders from a formation's plan are its briefing (``engine.orders.BriefedOrder``: no messenger);
an order a trigger gives it ends its plan (the General's later word). The defaults (3.) still
apply to a planned formation on the move (it attacks an enemy within striking distance), but
not to one holding its fire or feinting.

The General knows where every formation is (no fog of war for the commander). Routing and
retreating formations get no orders (10.3-10.4, they obey no one).

>>> from engine.scenario import Plan
>>> PlanCommander("scots", Plan()).strike_m
300.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.conditions import condition_holds, trigger_formations
from engine.geometry import FewSeparation, bearing, obb_array, right, separation, separation_many
from engine.orders import BriefedOrder, CommanderView, Order
from engine.rulesets.two_mm_earth.charts import UnitType
from engine.rulesets.two_mm_earth.profiles import Flag, profile_of
from engine.rulesets.two_mm_earth.wings import WingOrder
from engine.scenario import FormationPlan, Plan, PlanStep, Scenario, Trigger, TriggerCondition
from engine.state import BattleState, Formation, Morale

if TYPE_CHECKING:
    from engine.terrain import Ground


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
#: an objective is taken by a formation whose centre is this close with no enemy as close
TAKEN_M = 100.0
#: a formation told to hold a point farther than this moves to it first
STATION_M = 150.0
#: a holding formation with no enemy this close is a reserve; it commits when a friend this close
#: routs
RESERVE_M = 500.0
#: a waypoint, a step's point or a feint's point is reached by a formation whose centre is this
#: close (a base is 40 m wide, 9.2's slowest messenger covers 200 m a bound)
REACHED_M = 60.0
#: a formation this close behind a friend on station at their objective is its second line
SECOND_LINE_M = 60.0
#: the gap between formations holding one objective side by side (half a base's frontage)
LINE_GAP_M = 20.0

_Key = tuple[str, str | None, tuple[float, float] | None]


def _key(o: Order) -> _Key:
    return (o.kind, o.target_formation, o.target_point)


@dataclass(slots=True)
class _Objective:
    id: str
    point: tuple[float, float]
    formations: tuple[str, ...]
    kind: str


@dataclass(slots=True)
class _Run:
    """Where a formation is in its plan."""

    plan: FormationPlan
    waypoint: int = 0  # the next waypoint
    step: int = 0  # the step under way
    feint: str = "out"  # out (advancing), back (falling back, since ``back_at``), done
    back_at: int = 0
    fire_held: bool = False  # hold_fire still in force
    ended: bool = False  # a trigger gave it an order: the General's word replaces the plan


@dataclass(slots=True)
class PlanCommander:
    """A side's General following ``plan`` (see the module docstring)."""

    side: str
    plan: Plan
    initial: dict[str, Order] = field(default_factory=dict)
    to_xy: Any = None
    fired: set[int] = field(default_factory=set)
    taken: set[str] = field(default_factory=set)
    issued: dict[str, _Key] = field(default_factory=dict)
    seen_routs: set[str] = field(default_factory=set)
    fired_ids: set[str] = field(default_factory=set)
    runs: dict[str, _Run] = field(default_factory=dict)
    #: formations a trigger has given an order: the General's later word, which their
    #: objectives no longer override (the defaults still aim it)
    committed: set[str] = field(default_factory=set)
    _objectives: list[_Objective] | None = None
    _state_forms: dict[str, Formation] = field(default_factory=dict)
    #: (objective, formation) -> its place in the line that holds the objective (_stations)
    _stations: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for fp in self.plan.formations:
            run = _Run(fp, fire_held=fp.hold_fire is not None)
            if not (fp.waypoints or fp.steps or fp.feint or fp.hold_fire):
                run.ended = True  # only an arrival: its scenario order stands
            self.runs[fp.formation] = run

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
        state = view.state
        self._state_forms = state.formations
        if self._objectives is None:
            self._objectives = self._resolve_objectives(view.battlefield)
            self._stations = _stations(self._objectives, state, self.side)
        mine = [f for f in state.active(self.side) if f.morale is Morale.STEADY]
        enemies = _Enemies(state, self.side)
        want: dict[str, Order] = {}
        if bound <= 1:
            for f in mine:
                o = self.initial.get(f.id)
                if o is not None:
                    want[f.id] = _on_a_place(f, o)
        current = {f.id: self._current(f) for f in mine}
        self._update_taken(state, mine, enemies.forms)
        routed_now = self._new_routs(state)
        triggered: set[str] = set()
        # 1. triggers
        for i, trig in enumerate(self.plan.triggers):
            if i in self.fired or not self._holds(trig, state, bound, enemies):
                continue
            self.fired.add(i)
            if trig.id is not None:
                self.fired_ids.add(trig.id)
            for fid in trigger_formations(trig):
                tgt = state.formations.get(fid)
                if tgt is None or tgt.side != self.side or tgt.removed:
                    continue
                point = trig.target.resolve(self.to_xy) if trig.target is not None else None
                tf = trig.target_formation
                if trig.order == "attack" and point is None and tf is None:
                    near = enemies.nearest(tgt)
                    tf = near[0].id if near is not None else None
                want[fid] = _on_a_place(tgt, Order(trig.order, fid, point, tf))
                triggered.add(fid)
                self.committed.add(fid)
                if fid in self.runs:
                    self.runs[fid].ended = True
        # formation plans (issue 12), for formations no trigger just ordered
        planned: set[str] = set()
        for f in state.active(self.side):
            run = self.runs.get(f.id)
            if run is None or run.ended or f.id in triggered or f.morale is Morale.ROUTING:
                continue
            if f.morale is Morale.RETREATING and not (run.plan.feint and run.feint == "back"):
                continue  # 10.3: broken troops obey no plan (a feint's own fall-back aside)
            o = self._plan_order(f, run, state, bound, enemies)
            if o is None:
                continue
            want[f.id] = o  # a plan step is the General's own word: no default overrides it
            planned.add(f.id)
        # 2. objectives and 3. defaults, for formations no trigger or plan just ordered
        for f in mine:
            if f.id in want or f.id in planned:
                continue
            run = self.runs.get(f.id)
            if run is not None and not run.ended:
                continue  # its plan is done for this bound (it holds what it has)
            o = self._objective_order(f, current[f.id], enemies)
            o = self._default_order(f, o or current[f.id], enemies, routed_now) or o
            if o is not None:
                want[f.id] = o
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

    # -- formation plans (issue 12) --------------------------------------------------------
    def _plan_order(
        self, f: Formation, run: _Run, state: BattleState, bound: int, enemies: _Enemies
    ) -> Order | None:
        """The order ``f``'s plan wants this bound (None: the plan is done)."""
        fp = run.plan
        if run.fire_held:
            assert fp.hold_fire is not None
            if not self._condition(fp.hold_fire.until, [f], state, bound, enemies):
                return BriefedOrder("hold", f.id)  # 9.1: Hold Fire
            run.fire_held = False  # released: shoot at what is in range, or go on with the plan
            rng = _range(f)
            near = enemies.nearest(f)
            if rng > 0 and near is not None and near[1] <= rng:
                return BriefedOrder("attack", f.id, None, near[0].id)
        if fp.feint is not None:
            return self._feint_order(f, run, bound, enemies)
        to_xy = self.to_xy
        while run.waypoint < len(fp.waypoints):
            wp = self.plan.place(fp.waypoints[run.waypoint], to_xy)
            if math.dist(f.centre(), wp) > REACHED_M:
                return BriefedOrder("advance", f.id, wp)
            run.waypoint += 1
        while run.step < len(fp.steps):
            step = fp.steps[run.step]
            point = self._step_point(step)
            if not self._step_over(f, step, point, bound, state):
                return self._step_order(f, step, point)
            run.step += 1
        if fp.steps or fp.waypoints:
            return BriefedOrder("hold", f.id)  # the route walked, every step done
        run.ended = True  # fire released and nothing more planned: the commander's own again
        return None

    def _feint_order(self, f: Formation, run: _Run, bound: int, enemies: _Enemies) -> Order:
        fe = run.plan.feint
        assert fe is not None
        point = self.plan.place(fe.point, self.to_xy)
        if run.feint == "out":
            close = fe.enemy_within_m is not None and enemies.within(f, fe.enemy_within_m)
            if math.dist(f.centre(), point) > REACHED_M and not close:
                return BriefedOrder("advance", f.id, point)
            run.feint, run.back_at = "back", bound
        if run.feint == "back" and bound < run.back_at + fe.fall_back_bounds:
            return BriefedOrder("retreat", f.id)  # 9.1 Retreat: straight back toward home
        run.feint = "done"
        run.ended = True
        return BriefedOrder("hold", f.id)  # 11.2: stand, to rally

    def _step_point(self, step: PlanStep) -> tuple[float, float] | None:
        if step.objective is not None:
            ob = next(o for o in self._objectives or [] if o.id == step.objective)
            return ob.point
        if step.point is not None:
            return self.plan.place(step.point, self.to_xy)
        return None

    def _step_over(
        self,
        f: Formation,
        step: PlanStep,
        point: tuple[float, float] | None,
        bound: int,
        state: BattleState,
    ) -> bool:
        u = step.until
        reached = point is not None and math.dist(f.centre(), point) <= REACHED_M
        if u.given():
            return (
                (u.reached and reached)
                or (u.taken and step.objective in self.taken)
                or (u.bound is not None and bound >= u.bound)
            )
        # the default end: an objective to take is taken, an enemy formation attacked is broken,
        # an advance reaches its point; a hold (or an attack on whatever is near) goes on
        if step.objective is not None and self._kind(step.objective) == "take":
            return step.objective in self.taken
        if step.target_formation is not None:
            g = state.formations.get(step.target_formation)
            return g is None or g.removed or g.morale is not Morale.STEADY
        return reached and str(step.order) == "advance"

    def _kind(self, objective: str) -> str:
        return next((o.kind for o in self._objectives or [] if o.id == objective), "take")

    def _step_order(self, f: Formation, step: PlanStep, point: tuple[float, float] | None) -> Order:
        kind = str(step.order)
        if step.target_formation is not None:
            return BriefedOrder(kind, f.id, None, step.target_formation)
        if point is not None and math.dist(f.centre(), point) > REACHED_M and kind != "retreat":
            return BriefedOrder("advance", f.id, point)  # to the place first, then the order
        return BriefedOrder(kind, f.id, point if kind == "advance" else None)

    def _condition(
        self,
        w: TriggerCondition,
        who: list[Formation],
        state: BattleState,
        bound: int,
        enemies: _Enemies,
    ) -> bool:
        """A trigger condition (engine.conditions, the one reading for every ruleset), the
        enemy's distance by this call's table of enemies."""
        return condition_holds(
            w, who, state, bound, fired=self.fired_ids, taken=self.taken, within=enemies.within
        )

    # -- pieces ---------------------------------------------------------------------------
    def _resolve_objectives(self, bf: Ground) -> list[_Objective]:
        to_xy = self.to_xy or (bf.to_xy if bf is not None else None)
        self.to_xy = to_xy
        return [
            _Objective(o.id, o.point.resolve(to_xy), tuple(o.formations), o.kind)
            for o in self.plan.objectives
        ]

    def _current(self, f: Formation) -> Order:
        """What the formation was last ordered (as far as the General knows)."""
        k = self.issued.get(f.id)
        if k is not None:
            return Order(k[0], f.id, k[2], k[1])
        kind = f.order if f.order != "none" else "hold"
        return Order(kind, f.id, f.target_point, f.target_formation)

    def _update_taken(
        self, state: BattleState, mine: list[Formation], enemies: list[Formation]
    ) -> None:
        for ob in self._objectives or []:
            if ob.id in self.taken:
                continue
            px, py = ob.point
            d_mine = min((math.dist(f.centre(), (px, py)) for f in mine), default=math.inf)
            d_enemy = min((math.dist(g.centre(), (px, py)) for g in enemies), default=math.inf)
            if d_mine <= TAKEN_M and d_enemy > d_mine:
                self.taken.add(ob.id)

    def _new_routs(self, state: BattleState) -> list[Formation]:
        out = []
        for f in state.side_formations(self.side):
            if f.morale in (Morale.ROUTING, Morale.DESTROYED) and f.id not in self.seen_routs:
                self.seen_routs.add(f.id)
                out.append(f)
        return out

    def _holds(self, trig: Trigger, state: BattleState, bound: int, enemies: _Enemies) -> bool:
        who = [state.formations[x] for x in trig.formations if x in state.formations]
        return self._condition(trig.when, who, state, bound, enemies)

    def _objective_order(self, f: Formation, cur: Order, enemies: _Enemies) -> Order | None:
        if cur.kind in ("attack", "retreat") or _closing(cur, enemies) or f.id in self.committed:
            return None  # engaged, told to go, or sent by a trigger: objectives wait
        for ob in self._objectives or []:
            if f.id not in ob.formations:
                continue
            d = math.dist(f.centre(), ob.point)
            if ob.kind == "take" and ob.id not in self.taken:
                if cur.kind == "advance" and cur.target_point == ob.point:
                    return None
                return Order("advance", f.id, ob.point)
            station = TAKEN_M if ob.kind == "take" else STATION_M
            place = ob.point if ob.kind == "take" else self._stations.get((ob.id, f.id), ob.point)
            d = math.dist(f.centre(), place)
            if d > station and ob.kind != "take" and self._second_line(f, ob):
                d = station  # behind the friend that holds the point: on station there
            if d > station:
                if cur.kind == "advance" and cur.target_point == place:
                    return None
                return Order("advance", f.id, place)
            if cur.kind != "hold":
                return Order("hold", f.id)
            return None
        return None

    def _second_line(self, f: Formation, ob: _Objective) -> bool:
        """Whether ``f`` stands close behind (within :data:`SECOND_LINE_M`) another steady
        formation of its side that is on station at the objective's point: the place is held,
        and ``f`` holds it as its second line rather than crowd onto it (engine.jams would
        stop it there, behind the friend)."""
        for g in self._state_forms.values():
            if g is f or g.side != self.side or g.removed or g.morale is not Morale.STEADY:
                continue
            if math.dist(g.centre(), ob.point) <= STATION_M and _gap(f, g) <= SECOND_LINE_M:
                return True
        return False

    def _default_order(
        self, f: Formation, cur: Order, enemies: _Enemies, routed_now: list[Formation]
    ) -> Order | None:
        found = enemies.nearest(f)
        if found is None:
            return None
        near, gap = found
        aim = enemies.by_id.get(cur.target_formation or "")
        if (
            aim is not None
            and cur.kind in ("advance", "attack")
            and aim is not near
            and aim.morale is Morale.STEADY
            and _gap(f, aim) <= self.strike_m
        ):
            return None  # going for an enemy still in reach: no new order (no new messenger)
        if cur.kind == "advance" and gap <= self.strike_m:
            if closes_on_advance(f):
                # 9.1: Attack would make these troops shoot; the General means them to close,
                # and Advance moves "any way which isn't backwards" while they may still shoot
                return Order("advance", f.id, None, near.id)
            return Order("attack", f.id, None, near.id)
        if cur.kind == "hold":
            rng = _range(f)
            if rng > 0 and gap <= rng:
                return Order("attack", f.id, None, near.id)
            if gap > RESERVE_M and any(_gap(f, r) <= RESERVE_M for r in routed_now):
                return Order("attack", f.id, None, near.id)
        return None


def _stations(
    objectives: list[_Objective], state: BattleState, side: str
) -> dict[tuple[str, str], tuple[float, float]]:
    """Where each formation of a ``hold`` or ``screen`` objective with several stands: side by
    side in one line through the point, square to the enemy army (as the battle began), in the
    order they stand across it now (none crosses another to get there), :data:`LINE_GAP_M`
    apart; a table deploys the battles of a held ridge in line, not on top of one another
    (docs/rules-interpretations.md, "Plans carried out")."""
    out: dict[tuple[str, str], tuple[float, float]] = {}
    foes = [g for g in state.enemies_of(side) if not g.removed]
    if not foes:
        return out
    ex = sum(g.cx for g in foes) / len(foes)
    ey = sum(g.cy for g in foes) / len(foes)
    for ob in objectives:
        if ob.kind == "take":
            continue
        forms = [
            f for fid in ob.formations if (f := state.formations.get(fid)) is not None and f.bases
        ]
        if len(forms) < 2:
            continue
        px, py = ob.point
        rx, ry = right(bearing(px, py, ex, ey))  # along the line, facing the enemy
        forms.sort(key=lambda f: ((f.cx - px) * rx + (f.cy - py) * ry, f.id))
        widths = [2.0 * f.obb().hw for f in forms]
        total = sum(widths) + LINE_GAP_M * (len(forms) - 1)
        at = -total / 2.0
        for f, w in zip(forms, widths, strict=True):
            mid = at + w / 2.0
            out[(ob.id, f.id)] = (px + rx * mid, py + ry * mid)
            at += w + LINE_GAP_M
    return out


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
    if o.kind != "attack" or o.target_point is None or o.target_formation is not None:
        return o
    if not (closes_on_advance(f) or _melee_only(f)):
        return o
    return type(o)("advance", o.formation, o.target_point, None)


def _melee_only(f: Formation) -> bool:
    ps = [profile_of(b.profile) for b in f.alive_bases]
    return bool(ps) and all(p.melee_only for p in ps)


def _closing(cur: Order, enemies: _Enemies) -> bool:
    """An Advance aimed at an enemy formation: the formation is going in."""
    return cur.kind == "advance" and cur.target_formation in enemies.by_id


def _range(f: Formation) -> float:
    ps = [profile_of(b.profile) for b in f.alive_bases]
    rs = [p.range_m for p in ps if p.arming.ranged]
    return float(min(rs)) if rs else 0.0


def _gap(f: Formation, g: Formation) -> float:
    return max(0.0, float(separation(f.obb(), obb_array([g.obb()]))[0]))


#: from this many enemies on, the General's questions are culled by the bound of _Enemies
#: (below it, separation of a formation from them all is a few plain-float sums)
_CULL_AFTER = 24


class _Enemies:
    """A side's enemies on the table (``state.enemies_of``, in its order) for one call of
    :meth:`PlanCommander.orders` (nothing moves while orders are given), their rectangles the
    state's columns. A separation is never less than the centres' distance over root 2 less the
    two circumradii (the larger of the gaps along two square axes takes that much of the
    distance; no projection radius exceeds a circumradius) and never more than the centres'
    distance, so only the enemies that bound lets through are measured
    (``geometry.separation``, the value :func:`_gap` gives the pair)."""

    __slots__ = ("_few", "_mine", "_nearest", "_state", "arr", "by_id", "few", "forms", "radius")

    def __init__(self, state: BattleState, side: str) -> None:
        self.forms = state.enemies_of(side)
        self.by_id = {g.id: g for g in self.forms}
        self._state, self._mine = state, side
        t = state.table()
        rows = [t.rows[g.id] for g in self.forms]
        self.arr = t.arr[rows] if rows else np.zeros((0, 5))
        self.radius = np.hypot(self.arr[:, 2], self.arr[:, 3])
        #: a few enemies: their part of every separation worked out once (at the first
        #: question that needs it), the sums in plain floats (``geometry.FewSeparation``: the
        #: same numbers as ``separation``)
        self.few = 0 < len(self.forms) <= _CULL_AFTER
        self._few: FewSeparation | None = None
        #: fid -> :meth:`nearest` (a formation is asked more than once per call of orders)
        self._nearest: dict[str, tuple[Formation, float] | None] = {}

    def _bounds(self, f: Formation) -> tuple[Any, np.ndarray, np.ndarray]:
        """``f``'s rectangle, its centre distance to each enemy and the lower bound of each
        separation."""
        o = f.obb()
        d = np.hypot(self.arr[:, 0] - o.cx, self.arr[:, 1] - o.cy)
        return o, d, d / math.sqrt(2.0) - math.hypot(o.hw, o.hd) - self.radius

    def nearest(self, f: Formation) -> tuple[Formation, float] | None:
        """The enemy of least separation from ``f`` (the first on ties) and its :func:`_gap`."""
        if f.id in self._nearest:
            return self._nearest[f.id]
        if self.few and not self._nearest:
            self._nearest_of_side()
            if f.id in self._nearest:
                return self._nearest[f.id]
        out = self._nearest[f.id] = self._find_nearest(f)
        return out

    def _few_separation(self) -> FewSeparation:
        if self._few is None:
            self._few = FewSeparation(self.arr)
        return self._few

    def _nearest_of_side(self) -> None:
        """:meth:`nearest` of every formation of the asking side at once (a few enemies: one
        ``separation_many``, whose rows are ``separation``'s numbers): asked of most of them
        in one call of orders."""
        t = self._state.table()
        mine = t.side_forms(self._mine)
        if not mine:
            return
        sep = separation_many(t.arr[[t.rows[f.id] for f in mine]], self.arr)
        best = np.argmin(sep, axis=1).tolist()  # the first of the least, as min over (gap, k)
        for f, k, row in zip(mine, best, sep.tolist(), strict=True):
            self._nearest[f.id] = (self.forms[k], max(0.0, row[k]))

    def _find_nearest(self, f: Formation) -> tuple[Formation, float] | None:
        if not self.forms:
            return None
        if self.few:  # a few: measuring them all costs less
            gaps = self._few_separation().gaps(f.obb())
            k = min(range(len(gaps)), key=gaps.__getitem__)  # the first of the least
            return self.forms[k], max(0.0, gaps[k])
        o, d, low = self._bounds(f)
        c = int(np.argmin(d))
        s_c = float(separation(o, self.arr[[c]])[0])  # the least is no more than this
        # the margin is far above rounding: whoever is left out has a separation above s_c
        cand = np.flatnonzero(low <= s_c + 1e-6 * (1.0 + abs(s_c)))
        s = separation(o, self.arr[cand])
        k = int(np.argmin(s))  # the first of the least (cand ascending), as min over (gap, k)
        return self.forms[int(cand[k])], max(0.0, float(s[k]))

    def within(self, f: Formation, m: float) -> bool:
        """``any(_gap(f, g) <= m for g in enemies)``."""
        if not self.forms or m < 0.0:
            return False  # a gap is never below 0
        if self.few:
            return any(max(0.0, g) <= m for g in self._few_separation().gaps(f.obb()))
        o, _d, low = self._bounds(f)
        cand = np.flatnonzero(low <= m + 1e-6 * (1.0 + m))
        if not cand.size:
            return False
        return bool((np.maximum(separation(o, self.arr[cand]), 0.0) <= m).any())


def plan_commanders(scenario: Scenario, to_xy: Any) -> dict[str, PlanCommander]:
    """A :class:`PlanCommander` for every side of ``scenario``."""
    return {s.id: PlanCommander.from_scenario(scenario, s.id, to_xy) for s in scenario.sides}
