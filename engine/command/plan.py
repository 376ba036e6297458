"""A side's plan read into intents, bound by bound: one plan reader for every ruleset.

:class:`PlanReader` keeps where a side is in its plan (triggers fired, objectives taken, each
formation's place in its own plan) and answers, each bound, in this order of precedence:

1. **Triggers** (``plan.triggers``, :meth:`PlanReader.fire_triggers`): each fires once, in file
   order, when all of its conditions hold (:mod:`engine.conditions`). Its formations (default:
   the condition's formation) get its order as an intent with its target; an attack without a
   target is on the nearest enemy, as the ruleset judges it. A trigger's order is the
   General's later word: it ends the formation's own plan, and its objectives no longer move
   it.
2. **Formation plans** (``plan.formations``, :meth:`PlanReader.plan_intents`), for the
   formations no trigger just ordered:

   - ``hold_fire``: Hold until its ``until`` conditions hold; then attack the nearest enemy in
     the formation's reach (``reach(f)``: the ruleset's missile range, 0 for none), or go on;
   - ``feint``: advance to the point; on reaching it (within :data:`REACHED_M`), or when an
     enemy is within ``enemy_within_m``, retreat for ``fall_back_bounds`` bounds, then hold;
   - ``waypoints``: march to each in turn, the next once within :data:`REACHED_M`; then
   - ``steps``: each in turn (advance to, attack, hold at an objective, a point or an enemy
     formation) until its ``until`` (reached, taken, a bound); then hold.

   While a formation's plan runs, nothing else moves it: the ruleset's defaults never override
   a plan step (:meth:`PlanReader.in_plan`).
3. **Objectives** (``plan.objectives``, :meth:`PlanReader.objective_intent`): ``take`` - the
   listed formations advance on the point until it is taken (a formation of the side within
   :data:`TAKEN_M` of it and no enemy as close); ``hold``/``screen`` - formations farther than
   :data:`STATION_M` from their place (side by side in one line through the point) march to
   it, all the way (within :data:`REACHED_M`), then hold; one that stands nearer holds where
   it is.

What is left (no trigger, no plan, no objective) is the ruleset's own commander's: its
defaults (2mm Earth: attack what comes within striking distance, shoot what comes in range).
The General knows where every formation is (no fog of war for the commander).

>>> from engine.scenario import Plan
>>> PlanReader("scots", Plan()).in_plan("sc_pikes")
False
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from engine.command.enemies import Enemies, gap
from engine.command.intent import Intent, IntentKind, IntentOrigin
from engine.conditions import condition_holds, trigger_formations
from engine.geometry import bearing, right
from engine.scenario import FormationPlan, Plan, PlanStep, Trigger, TriggerCondition
from engine.state import BattleState, Formation, Morale

__all__ = [
    "LINE_GAP_M",
    "REACHED_M",
    "SECOND_LINE_M",
    "STATION_M",
    "TAKEN_M",
    "PlanReader",
    "Reach",
    "Reading",
]

#: an objective is taken by a formation whose centre is this close with no enemy as close
TAKEN_M = 100.0
#: a formation told to hold a point farther than this moves to it first
STATION_M = 150.0
#: a waypoint, a step's point or a feint's point is reached by a formation whose centre is this
#: close (a 2mm Earth base is 40 m wide, 9.2's slowest messenger covers 200 m a bound)
REACHED_M = 60.0
#: a formation this close behind a friend on station at their objective is its second line
SECOND_LINE_M = 60.0
#: the gap between formations holding one objective side by side (half a base's frontage)
LINE_GAP_M = 20.0

#: a formation's missile reach in metres (0: it has none): the ruleset's answer
Reach = Callable[[Formation], float]

_GOING = (IntentKind.ADVANCE, IntentKind.MARCH)


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


@dataclass(frozen=True, slots=True)
class Reading:
    """One bound's reading of a side's plan, by precedence: the intents of the triggers that
    fired (in file order), those of the formations whose own plan runs, and, for the rest of
    the formations asked about, what their objective wants (None: nothing; the ruleset's own
    commander has them)."""

    triggered: list[Intent]
    planned: dict[str, Intent]
    objectives: dict[str, Intent | None]


@dataclass(slots=True)
class PlanReader:
    """Where ``side`` is in ``plan``, and the intents it gives (the module docstring).

    ``to_xy`` turns a plan's places into metres (the battlefield's); ``reach`` answers a
    formation's missile range for a released hold-fire.
    """

    side: str
    plan: Plan
    to_xy: Any = None
    reach: Reach = field(default=lambda f: 0.0)
    fired: set[int] = field(default_factory=set)
    fired_ids: set[str] = field(default_factory=set)
    taken: set[str] = field(default_factory=set)
    runs: dict[str, _Run] = field(default_factory=dict)
    #: formations a trigger has given an order: the General's later word, which their
    #: objectives no longer override
    committed: set[str] = field(default_factory=set)
    _objectives: list[_Objective] | None = None
    _forms: dict[str, Formation] = field(default_factory=dict)
    #: (objective, formation) -> its place in the line that holds the objective (_stations)
    _stations: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for fp in self.plan.formations:
            run = _Run(fp, fire_held=fp.hold_fire is not None)
            if not (fp.waypoints or fp.steps or fp.feint or fp.hold_fire):
                run.ended = True  # only an arrival: its scenario order stands
            self.runs[fp.formation] = run

    # -- each bound -------------------------------------------------------------------------
    def read(
        self,
        state: BattleState,
        bound: int,
        enemies: Enemies,
        mine: list[Formation],
        current: Callable[[Formation], Intent],
        held: Collection[str] = (),
    ) -> Reading:
        """This bound's intents (the module docstring's order of precedence), after
        :meth:`begin`: objectives taken are marked from ``mine`` (the side's steady
        formations), the triggers fire, the formation plans run for the formations no trigger
        just ordered, and the objectives answer for the rest of ``mine`` - bar those in
        ``held`` (already ordered this bound by the ruleset's commander) and those whose own
        plan runs - given what each was last told (``current``)."""
        self.update_taken(mine, enemies.forms)
        triggered = self.fire_triggers(state, bound, enemies)
        told = {i.formation for i in triggered}
        planned = self.plan_intents(state, bound, enemies, told)
        objectives: dict[str, Intent | None] = {}
        for f in mine:
            if f.id in held or f.id in told or f.id in planned or self.in_plan(f.id):
                continue
            objectives[f.id] = self.objective_intent(f, current(f), enemies)
        return Reading(triggered, planned, objectives)

    def begin(self, state: BattleState, to_xy: Any) -> None:
        """Before the bound's questions: the objectives resolved (once), taken ones marked."""
        self._forms = state.formations
        if self._objectives is None:
            self.to_xy = self.to_xy or to_xy
            self._objectives = [
                _Objective(o.id, o.point.resolve(self.to_xy), tuple(o.formations), o.kind)
                for o in self.plan.objectives
            ]
            self._stations = _stations(self._objectives, state, self.side)

    def update_taken(self, mine: list[Formation], enemies: list[Formation]) -> None:
        """Objectives taken this bound: a formation of the side within :data:`TAKEN_M` of the
        point and no enemy as close."""
        for ob in self._objectives or []:
            if ob.id in self.taken:
                continue
            px, py = ob.point
            d_mine = min((math.dist(f.centre(), (px, py)) for f in mine), default=math.inf)
            d_enemy = min((math.dist(g.centre(), (px, py)) for g in enemies), default=math.inf)
            if d_mine <= TAKEN_M and d_enemy > d_mine:
                self.taken.add(ob.id)

    def fire_triggers(self, state: BattleState, bound: int, enemies: Enemies) -> list[Intent]:
        """The intents of the triggers that fire this bound, in file order."""
        out: list[Intent] = []
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
                kind = IntentKind(str(trig.order))
                # an attack with no target is on the nearest enemy: which one, and when it is
                # judged, is the ruleset's (2mm Earth's General names the nearest as the order
                # goes; medieval-d10's unit goes at whoever is nearest each turn)
                out.append(Intent(kind, fid, point, trig.target_formation, IntentOrigin.TRIGGER))
                self.committed.add(fid)
                if fid in self.runs:
                    self.runs[fid].ended = True
        return out

    def in_plan(self, fid: str) -> bool:
        """Whether ``fid``'s own plan still runs (nothing else may move it)."""
        run = self.runs.get(fid)
        return run is not None and not run.ended

    def plan_intents(
        self, state: BattleState, bound: int, enemies: Enemies, skip: set[str]
    ) -> dict[str, Intent]:
        """The intents of the formations whose own plan runs (``skip``: those a trigger just
        ordered), in deployment order. Routing formations and retreating ones (10.3: broken
        troops obey no plan) get none, a feint's own fall back aside."""
        out: dict[str, Intent] = {}
        for f in state.active(self.side):
            run = self.runs.get(f.id)
            if run is None or run.ended or f.id in skip or f.morale is Morale.ROUTING:
                continue
            if f.morale is Morale.RETREATING and not (run.plan.feint and run.feint == "back"):
                continue
            i = self._plan_intent(f, run, state, bound, enemies)
            if i is not None:
                out[f.id] = i
        return out

    def objective_intent(self, f: Formation, cur: Intent, enemies: Enemies) -> Intent | None:
        """What ``f``'s objective wants, given what it was last told (``cur``); None when its
        objective has nothing to say (none, or it is engaged, retreating or sent by a
        trigger)."""
        closing = cur.kind in _GOING and cur.target in enemies.by_id
        if cur.kind in (IntentKind.ATTACK, IntentKind.RETREAT) or closing:
            return None
        if f.id in self.committed:
            return None
        o = IntentOrigin.OBJECTIVE
        for ob in self._objectives or []:
            if f.id not in ob.formations:
                continue
            if ob.kind == "take" and ob.id not in self.taken:
                if cur.kind in _GOING and cur.point == ob.point:
                    return None
                return Intent(IntentKind.ADVANCE, f.id, ob.point, origin=o)
            station = TAKEN_M if ob.kind == "take" else STATION_M
            place = ob.point if ob.kind == "take" else self._stations.get((ob.id, f.id), ob.point)
            d = math.dist(f.centre(), place)
            if d > REACHED_M and ob.kind != "take" and self._second_line(f, ob):
                d = 0.0  # behind the friend that holds the point: on station there
            going = cur.kind in _GOING and cur.point == place
            if going and (d > station or (d > REACHED_M and ob.kind != "take")):
                return None  # on its way to its station: all the way there, then it holds
            if d > station:
                return Intent(IntentKind.MARCH, f.id, place, origin=o)
            if cur.kind is not IntentKind.HOLD:
                return Intent(IntentKind.HOLD, f.id, origin=o)
            return None
        return None

    def settle(self, f: Formation) -> str | None:
        """The commander's answer when ``f`` cannot reach the place its plan or objective sends
        it to (engine.idle: blocked by a friend, terrain or the table edge): its waypoint is
        passed over, the next one taken; or, on its way to its station on a held objective,
        the place it stands becomes its station. The words for the log; None when neither
        applies (it goes on as it was)."""
        run = self.runs.get(f.id)
        if run is not None and not run.ended:
            if run.waypoint < len(run.plan.waypoints):
                run.waypoint += 1
                return "its waypoint cannot be reached: on to the next step of its plan"
            return None
        if f.id in self.committed:
            return None
        for ob in self._objectives or []:
            if f.id not in ob.formations:
                continue
            if ob.kind == "take":
                return None
            self._stations[(ob.id, f.id)] = f.centre()
            return f"its place on {ob.id} cannot be reached: it holds where it stands"
        return None

    def objective_of(self, fid: str) -> str | None:
        """The first objective that names ``fid`` (None: none does)."""
        return next((ob.id for ob in self._objectives or [] if fid in ob.formations), None)

    # -- formation plans --------------------------------------------------------------------
    def _plan_intent(
        self, f: Formation, run: _Run, state: BattleState, bound: int, enemies: Enemies
    ) -> Intent | None:
        """The intent ``f``'s plan gives this bound (None: the plan is done)."""
        fp, p = run.plan, IntentOrigin.PLAN
        if run.fire_held:
            assert fp.hold_fire is not None
            if not self._condition(fp.hold_fire.until, [f], state, bound, enemies):
                return Intent(IntentKind.HOLD, f.id, origin=p)  # 9.1: Hold Fire
            run.fire_held = False  # released: shoot at what is in range, or go on with the plan
            rng = self.reach(f)
            near = enemies.nearest(f)
            if rng > 0 and near is not None and near[1] <= rng:
                return Intent(IntentKind.ATTACK, f.id, None, near[0].id, p)
        if fp.feint is not None:
            return self._feint_intent(f, run, bound, enemies)
        while run.waypoint < len(fp.waypoints):
            wp = self.plan.place(fp.waypoints[run.waypoint], self.to_xy)
            if math.dist(f.centre(), wp) > REACHED_M:
                return Intent(IntentKind.MARCH, f.id, wp, origin=p)
            run.waypoint += 1
        while run.step < len(fp.steps):
            step = fp.steps[run.step]
            point = self._step_point(step)
            if not self._step_over(f, step, point, bound, state, enemies):
                return self._step_intent(f, step, point)
            run.step += 1
        if fp.steps or fp.waypoints:
            return Intent(IntentKind.HOLD, f.id, origin=p)  # the route walked, every step done
        run.ended = True  # fire released and nothing more planned: the commander's own again
        return None

    def _feint_intent(self, f: Formation, run: _Run, bound: int, enemies: Enemies) -> Intent:
        fe = run.plan.feint
        assert fe is not None
        p = IntentOrigin.PLAN
        point = self.plan.place(fe.point, self.to_xy)
        if run.feint == "out":
            close = fe.enemy_within_m is not None and enemies.within(f, fe.enemy_within_m)
            if math.dist(f.centre(), point) > REACHED_M and not close:
                return Intent(IntentKind.ADVANCE, f.id, point, origin=p)
            run.feint, run.back_at = "back", bound
        if run.feint == "back" and bound < run.back_at + fe.fall_back_bounds:
            return Intent(IntentKind.RETREAT, f.id, origin=p)  # straight back toward home
        run.feint = "done"
        run.ended = True
        return Intent(IntentKind.HOLD, f.id, origin=p)  # stand, to rally

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
        enemies: Enemies,
    ) -> bool:
        u = step.until
        reached = point is not None and math.dist(f.centre(), point) <= REACHED_M
        if u.given():
            return (
                (u.reached and reached)
                or (u.taken and step.objective in self.taken)
                or (u.bound is not None and bound >= u.bound)
                or (u.when is not None and self._condition(u.when, [f], state, bound, enemies))
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

    def _step_intent(
        self, f: Formation, step: PlanStep, point: tuple[float, float] | None
    ) -> Intent:
        kind, p = IntentKind(str(step.order)), IntentOrigin.PLAN
        if step.target_formation is not None:
            return Intent(kind, f.id, None, step.target_formation, p)
        far = point is not None and math.dist(f.centre(), point) > REACHED_M
        if far and kind is not IntentKind.RETREAT:
            return Intent(IntentKind.ADVANCE, f.id, point, origin=p)  # there, then the order
        return Intent(kind, f.id, point if kind is IntentKind.ADVANCE else None, origin=p)

    # -- pieces -----------------------------------------------------------------------------
    def _condition(
        self,
        w: TriggerCondition,
        who: list[Formation],
        state: BattleState,
        bound: int,
        enemies: Enemies,
    ) -> bool:
        """A trigger condition (engine.conditions), the enemy's distance by this bound's
        table of enemies."""
        return condition_holds(
            w, who, state, bound, fired=self.fired_ids, taken=self.taken, within=enemies.within
        )

    def _holds(self, trig: Trigger, state: BattleState, bound: int, enemies: Enemies) -> bool:
        who = [state.formations[x] for x in trig.formations if x in state.formations]
        return self._condition(trig.when, who, state, bound, enemies)

    def _second_line(self, f: Formation, ob: _Objective) -> bool:
        """Whether ``f`` stands close behind (within :data:`SECOND_LINE_M`) another steady
        formation of its side that is on station at the objective's point: the place is held,
        and ``f`` holds it as its second line rather than crowd onto it (engine.jams would
        stop it there, behind the friend)."""
        for g in self._forms.values():
            if g is f or g.side != self.side or g.removed or g.morale is not Morale.STEADY:
                continue
            if math.dist(g.centre(), ob.point) <= STATION_M and gap(f, g) <= SECOND_LINE_M:
                return True
        return False


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
