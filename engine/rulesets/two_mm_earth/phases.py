"""The bound (1.1) as explicit phases, in order.

orders -> plan moves (low initiative first) -> plan shooting -> execute shooting (high initiative
first) -> shooting damage -> execute moves (high initiative first) -> melee -> melee damage ->
army morale -> pursuit -> rallying.

:func:`run_bound` is a generator yielding each phase's name after the phase is done, so a test
can compare two battles side by side after every phase (PettingZoo's ``seed_test``).

How formations follow their orders (9.1) when planning moves:

- Attack: melee-only troops charge the ordered target, else the nearest seen enemy (else the
  nearest enemy); troops with missiles stand and shoot at a seen enemy in range, or close to range.
- Advance: toward the order's point, else straight ahead.
- Hold / no order: stand. Formations in combat stay (3.2).
- Retreat (ordered): toward the home edge (9.1), facing kept ("directly backwards").
- Retreating (10.3) troops move away from the enemy while one is within 150 m or in the bound
  after they broke, then stand to rally (11.2); routing troops always flee (10.4).
- Pursuers (11.1) charge the broken enemy they fought.
- Advance on a *friendly* formation: move into base contact with it and merge (5.1 brigades,
  4.2 wings re-joining, a character joining troops); retreating troops ordered so plan to merge
  with a character's formation to rally (11.2). Joiners move after the formation they join.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Generator
from typing import Any, NamedTuple, cast

import numpy as np

from engine.geometry import CONTACT_M, FewSeparation, bearing, obb_array, overlaps, right
from engine.jams import note_move, unjam
from engine.log import (
    Destroyed,
    Event,
    Hit,
    LadderPlaced,
    Moved,
    OrderIssued,
    PlannedMove,
    Shot,
)
from engine.movement import (
    MovePlan,
    MoveResult,
    allowance_for,
    base_pairs,
    close_with_bases,
    execute_move,
    footprint_classes,
    retreat_bearing,
    update_contacts,
)
from engine.orders import CommanderView, check_order
from engine.rulesets import Phase
from engine.rulesets.two_mm_earth.charts import Order as OrderKind
from engine.rulesets.two_mm_earth.context import TwoMmContext
from engine.rulesets.two_mm_earth.melee import melee_phase
from engine.rulesets.two_mm_earth.morale import (
    immediate_tests,
    morale_phase,
    pursuit_phase,
    rally_phase,
    set_morale,
)
from engine.rulesets.two_mm_earth.orders import receive_order
from engine.rulesets.two_mm_earth.profiles import Flag
from engine.rulesets.two_mm_earth.shooting import (
    ShotPlan,
    choose_mode,
    in_overhead,
    range_m,
    resolve_shot,
    shooter_counts,
    shooting_bases,
    target_resilience,
)
from engine.spatial import table_box_gaps
from engine.state import BaseStatus, BattleState, Formation, FormationTable, Morale

__all__ = ["PHASES", "SEQUENCE", "start_bound"]

MIN_MOVE_M = 25.0  # 6.1
RETREAT_WHILE_ENEMY_WITHIN_M = 150.0


def _order_index(ctx: TwoMmContext) -> dict[str, int]:
    return {fid: i for i, fid in enumerate(ctx.state.formations)}


def _by_initiative(ctx: TwoMmContext, low_first: bool) -> list[Formation]:
    """The formations on the table by initiative (2.1), deployment order on ties; kept for
    the table's revision (initiative hangs on the living bases' profiles, which it watches)."""
    t = ctx.state.table()
    key = ("by_initiative", low_first)
    hit = t.memo.get(key)
    if hit is None:
        idx = _order_index(ctx)
        sign = 1 if low_first else -1
        forms = t.forms
        # the same keys as (sign * f.initiative, idx[f.id]), each formation's initiative kept
        # with its make-up (Formation.kept: it hangs on the living bases' profiles alone);
        # deployment order is unique, so no two keys tie
        keys = [(sign * _initiative(f), idx[f.id]) for f in forms]
        hit = t.memo[key] = [forms[k] for k in sorted(range(len(forms)), key=keys.__getitem__)]
    return list(cast(list[Formation], hit))


def _initiative(f: Formation) -> int:
    """``f.initiative`` (2.1), kept with the formation's make-up (``Formation.kept``)."""
    kept = f.kept()
    hit = kept.get("initiative")
    if hit is None:
        hit = kept["initiative"] = f.initiative
    return cast(int, hit)


def low_initiative_first(ctx: TwoMmContext) -> list[Formation]:
    return _by_initiative(ctx, True)


def high_initiative_first(ctx: TwoMmContext) -> list[Formation]:
    return _by_initiative(ctx, False)


# -- bound start ------------------------------------------------------------------------------


def start_bound(ctx: TwoMmContext) -> None:
    """Clear the bound's notes (the battle loop has advanced the bound and cleared events)."""
    state = ctx.state
    ctx.plans, ctx.shots, ctx.pending_hits = {}, {}, []
    ctx.allowances = {}
    if len(ctx.cover_cache) > 4 * len(state.formations):
        ctx.cover_cache = {}  # entries of past revisions: kept by revision, dropped now and then
    poses: dict[str, dict[str, tuple[float, float, float]]] = {}
    ctx.start_poses = poses
    # the bound's bookkeeping is none of what a formation's rectangle or the table depend on
    # (state._FORMATION_WATCH): written past Formation.__setattr__'s watch, ~15 fields a
    # formation every bound, written out (no loop over the names: this runs for every
    # formation at every bound)
    set_ = object.__setattr__
    contacts = state.contacts
    for f in state.formations.values():
        set_(f, "shot", False)
        set_(f, "fought", False)
        set_(f, "shot_at", False)
        set_(f, "fired_ordnance", False)
        set_(f, "hits_melee", 0)
        set_(f, "hits_ranged", 0)
        set_(f, "killed_in_bound", 0)
        set_(f, "moved_m", 0.0)
        set_(f, "alive_at_start", f.n_alive)
        set_(f, "front_at_start", _front_ids(f))
        set_(f, "characters_killed", ())
        set_(f, "new_contact_sides", ())
        set_(f, "tested", ())
        set_(f, "contacts_prev", contacts.get(f.id, ()))
        poses[f.id] = {b.id: (b.x, b.y, b.facing) for b in f.bases}


def _front_ids(f: Formation) -> tuple[str, ...]:
    """The ids of ``f``'s front rank (2.4; none for a Loose Formation, 4.1), kept with its
    make-up (``Formation.kept``): asked of every formation at every bound's start."""
    kept = f.kept()
    hit = kept.get("front_ids")
    if hit is None:
        hit = kept["front_ids"] = tuple(b.id for b in f.front_rank()) if not f.loose else ()
    return cast("tuple[str, ...]", hit)


#: the bound's bookkeeping start_bound clears, written out there (none of them watched by the
#: state's clock; tests/test_plan_bookkeeping_exact.py checks each)
_BOUND_FALSE = ("shot", "fought", "shot_at", "fired_ordnance")
_BOUND_ZERO = ("hits_melee", "hits_ranged", "killed_in_bound")
_BOUND_EMPTY = ("characters_killed", "new_contact_sides", "tested")


# -- orders -----------------------------------------------------------------------------------


def phase_orders(ctx: TwoMmContext, receive: Any = None) -> None:
    """9.1-9.2: each side's commander gives orders, the delivery carries them, and those that
    arrive are received (``receive``: v0.9's chart 9.3 by default; v0.7 has its own)."""
    if receive is None:
        from engine.rulesets.two_mm_earth.rulesets import TwoMmEarthGame

        def receive(state: Any, order: Any, dice: Any, rs: Any) -> list[Any]:
            return receive_order(state, order, dice, cast(TwoMmEarthGame, rs))

    state = ctx.state
    for side in state.sides:
        commander = ctx.commanders.get(side)
        if commander is None or ctx.aftermath is not None:
            continue  # after the break the generals give no new orders (11.1)
        idle = ctx.idle.reports if ctx.idle is not None else {}
        view = CommanderView(
            side, state.bound, state, ctx.bf, ctx.scenario, ctx.sight.sees, idle, ctx.emit
        )
        for order in commander.orders(view, state.bound):
            check_order(state, side, order)
            ctx.emit(OrderIssued("orders", side, order.formation, str(order)))
            ctx.emit(ctx.orders_delivery.send(state, side, order, state.bound))
    arrived, events = ctx.orders_delivery.arrivals(state, state.bound)
    ctx.emit(events)
    for order in arrived:
        ctx.emit(receive(state, order, ctx.dice, ctx.rs))


# -- planning ---------------------------------------------------------------------------------


def _geo(ctx: TwoMmContext) -> tuple[list[Formation], Any, Any]:
    """Active formations with their rectangles and sides as arrays (the state's columns,
    ``BattleState.table``: always up to date)."""
    t = ctx.state.table()
    return t.forms, t.arr, t.sides


#: the nearest enemies of every formation are worked out at once (one table of candidates)
#: from this many asked in one table on, for any ``limit`` up to _NEAR_ALL
_NEAR_BATCH_AFTER = 2
_NEAR_ALL = 12


def _near_candidates(
    t: FormationTable, force: bool = False
) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """Row -> (enemy rows ascending, their gaps) holding each formation's ``_NEAR_ALL``
    nearest enemies, for every formation of the table ``t`` at once, once enough have been
    asked or at once when ``force`` (a phase about to ask of every formation; None before):
    ``engine.spatial.nearest_enemies``, a k-d tree of centres and the exact gaps
    (``geometry.distance_pairs``: the same numbers as one row at a time) of the few pairs it
    leaves, never the square of the army."""
    from engine.geometry import corners_many
    from engine.spatial import nearest_enemies

    memo = t.memo
    hit = memo.get("near_table")
    if hit is None:
        hit = memo["near_table"] = [0, None]  # [calls, the table]
    if hit[1] is not None:
        return cast("list[tuple[np.ndarray, np.ndarray]]", hit[1])
    hit[0] += 1
    if (hit[0] <= _NEAR_BATCH_AFTER and not force) or len(t.forms) < 2:
        return None
    hit[1] = nearest_enemies(t.arr, t.sides, _NEAR_ALL, corners_many(t.arr))
    return cast("list[tuple[np.ndarray, np.ndarray]]", hit[1])


def _enemy_rows(t: FormationTable, side: str) -> np.ndarray:
    """The rows of ``side``'s enemies in table ``t``, ascending (kept for its revision)."""
    key = ("enemy_rows", side)
    hit = t.memo.get(key)
    if hit is None:
        hit = t.memo[key] = np.flatnonzero(t.sides != side)
    return cast(np.ndarray, hit)


def _side_ids(t: FormationTable, side: str) -> set[str]:
    """The ids of ``side``'s formations in table ``t`` (kept for its revision)."""
    key = ("side_ids", side)
    hit = t.memo.get(key)
    if hit is None:
        hit = t.memo[key] = {g.id for g in t.side_forms(side)}
    return cast(set[str], hit)


def _nearest_enemies(ctx: TwoMmContext, f: Formation, limit: int = 8) -> list[Formation]:
    """The ``limit`` enemy formations nearest ``f`` (by gap; ties by table order), nearest
    first; their gaps are remembered for :func:`_gap` (:func:`_near_gaps` gives them too)."""
    return [g for g, _d in _near_gaps(ctx, f, limit)]


def _near_gaps(ctx: TwoMmContext, f: Formation, limit: int = 8) -> list[tuple[Formation, float]]:
    """:func:`_nearest_enemies` with each one's gap (:func:`_gap`'s number), nearest first
    (do not change the list: it may be kept for the table's revision).

    Exact, without the gap to every enemy: from the table of every formation's nearest
    (:func:`_near_candidates`) once several have asked; before that a lower bound of every
    gap comes from the boxes round the rectangles (engine.spatial); the ``limit`` enemies of
    smallest bound are measured, and the largest of their gaps is no less than the
    ``limit``-th smallest gap of all, so an enemy whose bound exceeds it cannot be among the
    nearest: only the rest are measured."""
    t = ctx.state.table()
    kept = t.memo
    kf = t.rows.get(f.id)
    if limit <= _NEAR_ALL and kf is not None:
        # every formation's ranked nearest, once worked out for the revision: read, not kept
        # again formation by formation (the plan phases ask ~2 per formation)
        ranked = kept.get("near_ranked_rows")
        if ranked is not None:
            return cast(_Ranked, ranked).row(kf, limit)
    memo = ("near", f.id, limit)
    hit = kept.get(memo)
    if hit is not None:
        return cast("list[tuple[Formation, float]]", hit)
    idx = _enemy_rows(t, f.side)
    if not idx.size:
        return []
    table = _near_candidates(t) if kf is not None and limit <= _NEAR_ALL else None
    if table is not None and kf is not None:
        return _near_ranked_rows(t, table).row(kf, limit)
    from engine.geometry import distance

    forms, arr = t.forms, t.arr
    if kf is not None and idx.size > limit:
        lb = table_box_gaps(t, kf)[idx]
        first = np.argpartition(lb, limit - 1)[:limit]
        bound = float(distance(f.obb(), arr[idx[first]]).max())
        idx = idx[lb <= bound]
    gaps = distance(f.obb(), arr[idx])
    order = np.lexsort((idx, gaps))[:limit]
    out = [(forms[k], d) for k, d in zip(idx[order].tolist(), gaps[order].tolist())]
    _remember_gaps(kept, f, out)
    kept[memo] = out
    return out


class _Ranked:
    """Every row's ``_NEAR_ALL`` nearest enemies with their gaps, nearest first (ties by row),
    held flat: the enemies of row ``k`` are ``forms[starts[k]:ends[k]]``, their gaps
    ``gaps[...]`` the same slice. A row's list of (enemy, gap) pairs is made when asked, not
    kept: a kept pair for every candidate of every row (5,500 at 2 x 240) outlived the
    collector's young generations, and its full collections came several times as often."""

    __slots__ = ("ends", "forms", "gaps", "starts")

    def __init__(
        self, forms: list[Formation], gaps: list[float], starts: list[int], ends: list[int]
    ) -> None:
        self.forms, self.gaps, self.starts, self.ends = forms, gaps, starts, ends

    def row(self, k: int, limit: int) -> list[tuple[Formation, float]]:
        """Row ``k``'s first ``limit`` nearest enemies with their gaps."""
        s = self.starts[k]
        e = min(self.ends[k], s + limit)
        return list(zip(self.forms[s:e], self.gaps[s:e]))

    def gap(self, k: int, g: Formation) -> float | None:
        """The gap from row ``k`` to ``g`` if ``g`` is among its nearest, else None."""
        forms, gid = self.forms, g.id
        for i in range(self.starts[k], self.ends[k]):
            if forms[i].id == gid:
                return self.gaps[i]
        return None


def _near_ranked_rows(t: FormationTable, table: list[tuple[np.ndarray, np.ndarray]]) -> _Ranked:
    """Row -> its ``_NEAR_ALL`` nearest enemies with their gaps, nearest first (ties by row),
    from the table of candidates (:func:`_near_candidates`), every row at once and kept for
    the table's revision: one sort of all the candidates by (row, gap), stable, so ties stay
    in the table's order of enemy rows (ascending): the order each row's own
    ``np.lexsort((idx, gaps))`` gives (an enemy is once in a row's list)."""
    memo = t.memo
    hit = memo.get("near_ranked_rows")
    if hit is not None:
        return cast(_Ranked, hit)
    forms = t.forms
    lens = np.fromiter((len(i) for i, _g in table), dtype=np.intp, count=len(table))
    out = _Ranked([], [], [0] * len(table), [0] * len(table))
    if lens.sum():
        rows = np.repeat(np.arange(len(table)), lens)
        idx = np.concatenate([i for i, _g in table])
        gaps = np.concatenate([g for _i, g in table])
        order = np.lexsort((gaps, rows))  # (stable: ties keep the ascending enemy rows)
        # the first _NEAR_ALL of each row (no limit asks for more)
        starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
        rank = np.arange(order.size) - np.repeat(starts, lens)
        take = order[rank < _NEAR_ALL]
        ends = np.cumsum(np.minimum(lens, _NEAR_ALL))
        out = _Ranked(
            list(map(forms.__getitem__, idx[take].tolist())),
            gaps[take].tolist(),
            [0, *ends[:-1].tolist()],
            ends.tolist(),
        )
    memo["near_ranked_rows"] = out
    return out


def _remember_gaps(
    kept: dict[Any, Any], f: Formation, pairs: list[tuple[Formation, float]]
) -> None:
    """Keep the gaps from ``f`` measured for the revision, for :func:`_gap`."""
    gaps = kept.get(("gaps", f.id))
    if gaps is None:
        gaps = kept[("gaps", f.id)] = {}
    for g, d in pairs:
        gaps[g.id] = d


def _gap(f: Formation, g: Formation, ctx: TwoMmContext | None = None) -> float:
    from engine.geometry import gap

    if ctx is not None:
        t = ctx.state.table()
        kept = t.memo
        gaps = kept.get(("gaps", f.id))
        hit = gaps.get(g.id) if gaps is not None else None
        if hit is not None:
            return cast(float, hit)
        # the ranked nearest of f (_near_gaps), not copied into a dict for every formation:
        # _gap is asked of a few
        ranked = kept.get("near_ranked_rows")
        kf = t.rows.get(f.id)
        if ranked is not None and kf is not None:
            d = cast(_Ranked, ranked).gap(kf, g)
            if d is not None:
                return d
    return gap(f.obb(), g.obb())  # (geometry.distance's number, in plain floats)


#: moves aimed at a formation, re-aimed when it is their turn (the target may have moved)
_AIMED = frozenset({"charge", "pursue", "attack", "join", "advance"})


def _charge(f: Formation, g: Formation, kind: str) -> MovePlan:
    fx, fy = f.centre()
    gx, gy = g.centre()
    b = bearing(fx, fy, gx, gy)
    # head for the point where our front would meet theirs; the sweep stops at contact
    return MovePlan(f.id, kind, b, goal=(gx + (f.cx - fx), gy + (f.cy - fy)), facing=b, target=g.id)


def _retreat_plan(ctx: TwoMmContext, f: Formation, kind: str) -> MovePlan:
    side = ctx.state.sides[f.side]
    fx, fy = f.centre()
    home = side.home_bearing(fx, fy)
    near = _near_gaps(ctx, f, 6)
    threat = None
    contacts = ctx.state.contacts.get(f.id, ())
    if contacts:
        threat = ctx.state.formations[contacts[0]].centre()
    elif near:
        threat = near[0][0].centre()
    # 10.3: the enemy bases within 600 m of the centre; a base stands inside its formation's
    # rectangle and the centre inside ours, so none of a formation farther than that (with a
    # millimetre for rounding) is near enough: their bases are not looked at
    enemy_bases = [
        (b.x, b.y)
        for g, gap in near
        if gap < 600.0 + 1e-3
        for b in g.alive_bases
        if math.hypot(b.x - fx, b.y - fy) < 600
    ]
    b = retreat_bearing((fx, fy), threat, enemy_bases, home)
    return MovePlan(f.id, kind, b)


def _join_target(state: Any, f: Formation) -> Formation | None:
    """The friendly formation ``f`` was ordered to advance on (to merge with it, 5.1), if any."""
    if f.order != OrderKind.ADVANCE or not f.target_formation:
        return None
    g = state.formations.get(f.target_formation)
    if g is None or g.removed or g.side != f.side or g is f:
        return None
    return g


def _complete_contact(state: Any, f: Formation, g: Formation, res: MoveResult) -> MoveResult:
    """3.2: a move into an enemy that ends with the outlines touching and no bases (a holed
    or ragged line) goes on until bases touch (``engine.movement.close_with_bases``), toward
    the enemy's living base nearest to one of ours."""
    if base_pairs(f, g):
        return res
    mine, theirs = f.alive_bases, g.alive_bases
    if not mine or not theirs:
        return res
    a, b = min(
        ((p, q) for p in mine for q in theirs),
        key=lambda pq: math.dist((pq[0].x, pq[0].y), (pq[1].x, pq[1].y)),
    )
    closed = close_with_bases(
        state, f, g, bearing(a.x, a.y, b.x, b.y), res.allowance_m - res.distance_m
    )
    if closed <= 0:
        return res
    f.moved_m = res.distance_m + closed
    return dataclasses.replace(res, distance_m=f.moved_m, end=(f.cx, f.cy, f.facing))


def _advance_target(state: Any, f: Formation) -> Formation | None:
    """The enemy formation ``f`` was ordered to advance on (to close with it, 9.1), if any."""
    if f.order != OrderKind.ADVANCE or not f.target_formation:
        return None
    g = state.formations.get(f.target_formation)
    if g is None or g.removed or g.side == f.side or g.morale is Morale.DESTROYED:
        return None
    return g


def plan_for(ctx: TwoMmContext, f: Formation) -> MovePlan:
    """``f``'s move this bound (9.1, 10.3, 11.1-11.2; the module's docstring), its one sight
    question answered by ``ctx.sight.visible`` (:func:`_plan_steps`)."""
    steps = _plan_steps(ctx, f)
    try:
        ask = next(steps)
    except StopIteration as done:
        return cast(MovePlan, done.value)
    return _plan_finish(steps, ctx.sight.visible(f.id, ask.targets))


def _plan_finish(steps: PlanSteps, seen: list[str]) -> MovePlan:
    """The plan :func:`_plan_steps` makes once told which targets of its question are seen."""
    try:
        steps.send(seen)
    except StopIteration as done:
        return cast(MovePlan, done.value)
    raise AssertionError("a plan asks sight once")  # pragma: no cover


class SightAsk(NamedTuple):
    """A plan's one sight question (6.2): which of ``targets`` ``f`` sees. ``first``: only
    the first target seen counts (the nearest seen enemy to charge, 9.1: the rest of the
    answer changes nothing)."""

    targets: list[str]
    first: bool


#: :func:`_plan_steps`: yields its one sight question, is sent the targets seen (of them all,
#: or when the question's ``first`` holds, the targets up to the first seen: that one last)
PlanSteps = Generator[SightAsk, list[str], MovePlan]


def _plan_steps(ctx: TwoMmContext, f: Formation) -> PlanSteps:
    """:func:`plan_for` as steps: it yields its one sight question (:class:`SightAsk`), if it
    asks one (whose targets never hang on an earlier sight answer), and is sent the targets
    seen (``ctx.sight.visible``'s answer), so the plan phase asks every formation's question
    first, works out their terrain sight in one batch, then finishes each plan: the tests
    made before the question are made once. A separated group's plan is then held to 5.1
    (:func:`_separated_plan`)."""
    plan = yield from _free_plan_steps(ctx, f)
    return _separated_plan(ctx, f, plan)


def _separated_plan(ctx: TwoMmContext, f: Formation, plan: MovePlan) -> MovePlan:
    """5.1: "if bases become separated, each 'group' can move at its full distance, but only
    towards an enemy or friend from their original formation". A steady group 11.1 parted from
    its formation (``ctx.separated``) keeps a move on an enemy or to a group of its own
    original; any other move (an advance to a place or straight ahead, a join with another
    formation) becomes a move to re-join the nearest group of its original (4.2: wings re-join
    their comrades), or no move when none is left. Broken groups retreat and rout as 11.1 says.
    """
    if plan.kind in ("none", "ladder"):
        return plan
    root = ctx.separated.get(f.id)
    if root is None or f.morale is not Morale.STEADY:
        return plan
    state = ctx.state
    if plan.target is not None:
        g = state.formations.get(plan.target)
        if g is not None and (g.side != f.side or (g.wing_of or g.id) == root):
            return plan
    own = [g for g in state.active(f.side) if g is not f and (g.wing_of or g.id) == root]
    if not own:
        return MovePlan(f.id, "none")
    return _charge(f, min(own, key=lambda g: (_gap(f, g, ctx), g.id)), "join")


def _free_plan_steps(ctx: TwoMmContext, f: Formation) -> PlanSteps:
    """The plan steps of :func:`_plan_steps` before 5.1's hold on a separated group."""
    state = ctx.state
    none = MovePlan(f.id, "none")
    if f.morale is Morale.ROUTING:
        return _retreat_plan(ctx, f, "rout")
    join = _join_target(state, f)
    if f.morale is Morale.RETREATING:
        if join is not None and join.character_ids() and not state.contacts.get(f.id):
            return _charge(f, join, "join")  # 11.2: rally by merging with a character
        if f.order == OrderKind.RETREAT:
            fx, fy = f.centre()
            return MovePlan(f.id, "retreat", state.sides[f.side].home_bearing(fx, fy))
        close = any(d < RETREAT_WHILE_ENEMY_WITHIN_M for _g, d in _near_gaps(ctx, f, 3))
        if f.changed_bound == state.bound - 1 or close or state.contacts.get(f.id):
            return _retreat_plan(ctx, f, "retreat")
        return none  # 11.2: stand to rally
    contacts = state.contacts.get(f.id, ())
    broken = (Morale.RETREATING, Morale.ROUTING)
    if contacts and not (
        f.pursuing in contacts and all(state.formations[c].morale in broken for c in contacts)
    ):
        return none  # 3.2: in combat, keep fighting
    if any(b.ladder_ready for b in f.alive_bases):
        return MovePlan(f.id, "ladder", f.facing)
    if f.pursuing is not None:
        g = state.formations.get(f.pursuing)
        if g is not None and not g.removed and g.morale in (Morale.RETREATING, Morale.ROUTING):
            return _charge(f, g, "pursue")
        f.pursuing = None
    if f.order == OrderKind.ATTACK:
        target = state.formations.get(f.target_formation or "")
        if target is None or target.removed or target.side == f.side:
            target = None
        # a formation out of missiles (special rule limited_missile_supply) closes as troops
        # without missiles do
        has_missiles = bool(shooting_bases(f)) and ctx.special.may_shoot(f.id, f.side)
        near_gaps = _near_gaps(ctx, f)
        near = [g for g, _d in near_gaps]
        if has_missiles:
            rng = range_m(f)
            if target is not None:
                in_range = [target] if _gap(f, target, ctx) <= rng else []
            else:
                in_range = [g for g, d in near_gaps if d <= rng]
            if in_range and (yield SightAsk([g.id for g in in_range], False)):
                return none  # stand and shoot
            if target is None and near:
                target = near[0]
            if target is None:
                return none
            plan = _charge(f, target, "attack")
            plan.max_m = max(0.0, _gap(f, target, ctx) - 0.8 * rng)
            return plan if plan.max_m >= MIN_MOVE_M else none
        if target is None:
            seen = yield SightAsk([g.id for g in near], True)
            pick = [g for g in near if g.id in seen] or near
            target = pick[0] if pick else None
        if target is None:
            return MovePlan(f.id, "advance", f.facing)
        return _charge(f, target, "charge")
    if f.order == OrderKind.ADVANCE:
        if join is not None:
            return _charge(f, join, "join")  # 5.1 / 4.2: into base contact, then merge
        foe = _advance_target(state, f)
        if foe is not None:
            return _charge(f, foe, "advance")  # 9.1: Advance on an enemy, into contact
        if f.target_point is not None:
            fx, fy = f.centre()
            tx, ty = f.target_point
            b = bearing(fx, fy, tx, ty)
            if math.hypot(tx - fx, ty - fy) < MIN_MOVE_M:
                return none
            return MovePlan(f.id, "advance", b, goal=(tx + f.cx - fx, ty + f.cy - fy), facing=b)
        return MovePlan(f.id, "advance", f.facing)
    return none


def _unready(ctx: TwoMmContext, f: Formation) -> bool:
    """Readiness: a steady formation still in camp, asleep, on the march or forming up
    (engine.readiness) plans neither a move nor a shot; broken troops run regardless (11.1)."""
    return ctx.readiness is not None and f.morale is Morale.STEADY and ctx.readiness.holds(f.id)


def phase_plan_moves(ctx: TwoMmContext) -> None:
    # every formation's sight question first, the terrain sight of all of them in one batch
    order = low_initiative_first(ctx)
    # the formations that will ask their nearest enemies (attacking, broken: plan_for): when
    # enough do, every formation's are worked out at once from the start
    asking = sum(1 for f in order if f.order == OrderKind.ATTACK or f.morale is not Morale.STEADY)
    if asking > _NEAR_BATCH_AFTER:
        _near_candidates(ctx.state.table(), force=True)
    # each plan up to its sight question, the questions' sight in one batch, then the rest
    # (the plans in ``order``, each told what plan_for's ``Sight.visible`` would tell it)
    made: list[MovePlan | None] = []
    asks: list[tuple[str, list[str]]] = []
    waiting: list[tuple[int, Formation, PlanSteps, SightAsk]] = []
    for f in order:
        steps = _plan_steps(ctx, f)
        try:
            ask = next(steps)
        except StopIteration as done:
            made.append(done.value)
            continue
        waiting.append((len(made), f, steps, ask))
        made.append(None)
        # a charge wants the nearest seen enemy: the nearest first (most see it: 763 of 875
        # such questions in the 2 x 60 benchmark), the rest only of those that do not
        asks.append((f.id, ask.targets[:1] if ask.first else ask.targets))
    sight = ctx.sight
    sight.prefetch(asks)
    visible = sight.visible
    rest = [
        (f.id, ask.targets[1:])
        for _k, f, _s, ask in waiting
        if ask.first and len(ask.targets) > 1 and not visible(f.id, ask.targets[:1])
    ]
    if rest:
        sight.prefetch(rest)
    for k, f, steps, ask in waiting:
        targets = ask.targets
        if ask.first and targets and visible(f.id, targets[:1]):
            targets = targets[:1]  # (the nearest is seen: the first seen, all the plan reads)
        made[k] = _plan_finish(steps, visible(f.id, targets))
    plans = {f.id: cast(MovePlan, plan) for f, plan in zip(order, made, strict=True)}
    for f in order:
        # a formation a friend stopped last bound waits, steps back, holds or takes a lane
        plan = unjam(ctx.jams, ctx.state, f, plans[f.id], plans)
        if _unready(ctx, f):
            plan = MovePlan(f.id, "none")  # caught unready: no plan to make yet
        ctx.plans[f.id] = plan
        if plan.kind != "none":
            ctx.emit(PlannedMove("plan_moves", f.id, plan.kind, plan.bearing, plan.target))


def _may_shoot(f: Formation, moving: bool) -> bool:
    if f.morale is not Morale.STEADY:
        return False
    if f.order == OrderKind.ATTACK:
        return True
    if f.order == OrderKind.ADVANCE:
        return not (moving and f.has_flag(Flag.NMF))
    if f.order == "none":
        return not f.hold_fire
    return False


def _touching_side(ctx: TwoMmContext, g: Formation, side: str) -> set[str]:
    """Bases of ``g`` in base contact with any base of ``side``."""
    out: set[str] = set()
    for eid in ctx.state.contacts.get(g.id, ()):
        if ctx.state.formations[eid].side == side:
            out.update(a for a, _ in ctx.base_pairs.get((g.id, eid), ()))
    return out


def _assist_shot(ctx: TwoMmContext, f: Formation) -> ShotPlan | None:
    """3.2 / 3.3: bases of a formation in combat that are not in contact themselves may assist
    by shooting "but only at those bases not in contact with any friendly bases", when the
    formation is ordered to attack (3.3: "ordering the formation to attack/shoot"); never as
    Ordnance (8.1: "Bases assisting a formation cannot fire ordnance")."""
    if f.morale is not Morale.STEADY or f.order != OrderKind.ATTACK:
        return None
    touching = _touching_side(
        ctx, f, next((ctx.state.formations[e].side for e in ctx.state.contacts.get(f.id, ())), "")
    )
    if not [b for b in shooting_bases(f) if b.id not in touching]:
        return None
    rng = range_m(f)
    cands = []
    for g, d in _near_gaps(ctx, f, 12):
        if d > rng:
            continue
        free = [b for b in g.alive_bases if b.id not in _touching_side(ctx, g, f.side)]
        if free:
            cands.append((d, g))
    if f.target_formation:
        cands.sort(key=lambda c: c[1].id != f.target_formation)
    seen = set(ctx.sight.visible(f.id, [g.id for _, g in cands])) if cands else set()
    for d, g in cands:
        if g.id in seen or g.id in ctx.state.contacts.get(f.id, ()):
            return ShotPlan(f.id, g.id, "normal", d, False)
    return None


def plan_shot(ctx: TwoMmContext, f: Formation) -> ShotPlan | None:
    state = ctx.state
    if not shooting_bases(f) or not ctx.special.may_shoot(f.id, f.side):
        return None  # no missiles, or none left (special rule limited_missile_supply)
    if state.contacts.get(f.id):
        return _assist_shot(ctx, f)
    plan = ctx.plans.get(f.id)
    moving = plan is not None and plan.kind != "none"
    if not _may_shoot(f, moving):
        return None
    if moving and f.has_flag(Flag.NMF):
        return None  # 2.2 NM&F: not both move and fire
    rng = range_m(f)
    friends = _side_ids(state.table(), f.side)
    cands = []
    contacts = state.contacts
    for g, d in _near_gaps(ctx, f, 12):
        if d <= rng and not any(c in friends for c in contacts.get(g.id, ())):
            cands.append((d, g))  # in range, and not into a melee with our own troops
    if not cands:
        return None
    if f.order == OrderKind.ATTACK and f.target_formation:
        pref = [c for c in cands if c[1].id == f.target_formation]
        cands = pref + [c for c in cands if c[1].id != f.target_formation]
    seen = set(ctx.sight.visible(f.id, [g.id for _, g in cands]))
    indirect = f.has_flag(Flag.INDIRECT)
    for d, g in cands:
        if g.id in seen or indirect:
            mode = _mode(ctx, f, g, d, moving, force_ordnance=g.id not in seen)
            if mode is None:
                continue
            return ShotPlan(f.id, g.id, mode, d, moving)
    return None


def _mode(
    ctx: TwoMmContext,
    f: Formation,
    g: Formation,
    d: float,
    moving: bool,
    force_ordnance: bool = False,
) -> str | None:
    fx, fy = f.centre()
    gx, gy = g.centre()
    n_front, ranks = shooter_counts(f, (gx, gy))
    facing = len(g.rank_of(g.side_toward(fx, fy)))
    cover = ctx.cover_class(g, "ranged")
    r = target_resilience(g, (fx, fy), "ranged", cover, ctx.rs)
    r += ctx.rs.resilience_modifier(ctx, g)
    from engine.rulesets.two_mm_earth.charts import CoverClass

    choice = choose_mode(
        f,
        n_front=n_front,
        ranks=ranks,
        enemy_facing=facing,
        resilience=r,
        half_range=d >= range_m(f) / 2.0,
        moving=moving and not f.skirmisher,
        into_overhead=cover == CoverClass.OVERHEAD,
        shooter_in_overhead=in_overhead(ctx.cover_classes(f)),
        modifier_fn=ctx.rs.shooting_modifier,
    )
    if choice is None:
        return None
    if force_ordnance and choice[0] == "normal":
        return None  # 6.2: unseen targets only by ordnance
    return choice[0]


def phase_plan_shooting(ctx: TwoMmContext) -> None:
    for f in low_initiative_first(ctx):
        if _unready(ctx, f):
            continue  # caught unready: no shot planned (engine.readiness)
        shot = plan_shot(ctx, f)
        if shot is not None:
            ctx.shots[f.id] = shot


def phase_execute_shooting(ctx: TwoMmContext) -> None:
    from engine.rulesets.two_mm_earth.charts import CoverClass
    from engine.rulesets.two_mm_earth.resolution import ordnance_dice, outnumbering_bonus
    from engine.rulesets.two_mm_earth.shooting import all_have, ranged_arming

    state = ctx.state
    for f in high_initiative_first(ctx):
        plan = ctx.shots.get(f.id)
        if plan is None:
            continue
        g = state.formations[plan.target]
        if g.removed or f.removed:
            continue
        fx, fy = f.centre()
        gx, gy = g.centre()
        n_front, ranks = shooter_counts(f, (gx, gy))
        facing = len(g.rank_of(g.side_toward(fx, fy)))
        cover = ctx.cover_class(g, "ranged")
        r = target_resilience(g, (fx, fy), "ranged", cover, ctx.rs)
        r += ctx.rs.resilience_modifier(ctx, g)
        bases = shooting_bases(f)
        a = ranged_arming(f)
        half = plan.distance_m >= range_m(f) / 2.0
        skirm = all_have(bases, Flag.SKIRMISHER)
        overhead = cover == CoverClass.OVERHEAD
        if plan.mode == "normal":
            n = a
            mod = ctx.rs.shooting_modifier(
                half_range_or_more=half, moving=plan.moving, skirmisher=skirm
            )
        else:
            volley = plan.mode == "volley"
            n = a + outnumbering_bonus(ordnance_dice(n_front, ranks, volley=volley), facing)
            mod = ctx.rs.shooting_modifier(
                half_range_or_more=half,
                moving=plan.moving,
                skirmisher=skirm,
                ordnance=not volley,
                volley=volley,
                into_overhead=overhead,
            )
        if ctx.special.exhaustion is not None:  # special rule exhaustion: spent troops
            r += ctx.special.resilience_modifier(g, ctx.state.bound)
            mod += ctx.special.dice_modifier(f, ctx.state.bound)
        res = resolve_shot(ctx.rs, ctx.dice, f, g, n, r, mod, plan.mode)
        f.shot = True
        ctx.special.shot_at(g.id)  # special rule crews_flee's when_shot_at
        # special rule limited_missile_supply: one volley spent (logged when the last)
        dry = ctx.special.spend_volley(f.id, f.side, "execute_shooting")
        f.fired_ordnance = plan.mode != "normal"
        g.shot_at = True
        ctx.emit(
            Shot(
                "execute_shooting",
                f.id,
                g.id,
                plan.mode,
                plan.distance_m,
                n,
                res.need,
                res.hits,
                res.dice,
            )
        )
        if dry is not None:
            ctx.emit(dry)
        if res.hits:
            ctx.pending_hits.append((g.id, res.hits, (fx, fy), f.id))


def _destroy_empty(ctx: TwoMmContext, phase: str) -> None:
    for f in ctx.state.formations.values():
        if f.morale is not Morale.DESTROYED and f.n_alive == 0:
            f.morale = Morale.DESTROYED
            f.changed_bound = ctx.state.bound
            ctx.emit(Destroyed(phase, f.id, "every base killed", ()))


def phase_shooting_damage(ctx: TwoMmContext) -> None:
    from engine.rulesets.two_mm_earth.damage import allocate_hits

    state = ctx.state
    for gid, hits, xy, by in ctx.pending_hits:
        g = state.formations[gid]
        g.hits_ranged += hits
        ctx.emit(Hit("shooting_damage", gid, by, hits, "ranged"))
        shooter = state.formations[by]
        # 3.2: a shot assisting a formation in combat only hits bases not touching its side
        exclude = _touching_side(ctx, g, shooter.side) if state.contacts.get(by) else set()
        ctx.emit(
            allocate_hits(
                g,
                hits,
                xy,
                ctx.dice,
                by=by,
                phase="shooting_damage",
                characters=state.characters,
                exclude=exclude,
            )
        )
    _destroy_empty(ctx, "shooting_damage")
    # 10.2 / 10.5: losses to shooting are tested at once; a formation that breaks re-plans its
    # move (it retreats or routs in this bound's moves instead of doing what it planned)
    hit = [state.formations[gid] for gid in dict.fromkeys(h[0] for h in ctx.pending_hits)]
    before = {f.id: f.morale for f in hit}
    ctx.emit(immediate_tests(ctx, hit, "shooting_damage"))
    for f in hit:
        if f.morale is not before[f.id] and not f.removed:
            plan = ctx.plans[f.id] = plan_for(ctx, f)
            if plan.kind != "none":
                ctx.emit(PlannedMove("shooting_damage", f.id, plan.kind, plan.bearing, plan.target))


# -- moving -----------------------------------------------------------------------------------


def _touching_enemy(
    ctx: TwoMmContext, f: Formation, table: tuple[list[Formation], Any, Any] | None = None
) -> bool:
    """``table``: the move phase's up-to-date (formations, rectangles, sides) of the table."""
    _forms, arr, sides = table if table is not None else _geo(ctx)
    o = f.obb()
    # a rectangle can touch only if its centre is near: the largest of the four axis gaps is at
    # least |d| / sqrt 2 (one of two square axes takes that much of d) less the two half
    # diagonals (no projection radius is longer; hw + hd is no shorter than the half
    # diagonal), so farther rectangles are clear (1 m to spare for rounding); the near ones of
    # the other sides get separation() row by row, the same values. Squares over the whole
    # table first, the sides of the few near ones after (comparing strings costs more)
    # (ex * ex + ey * ey <= reach * reach with its products and sums in place: the same
    # floats with fewer arrays made)
    ex = arr[:, 0] - o.cx
    ex *= ex
    ey = arr[:, 1] - o.cy
    ey *= ey
    ex += ey
    reach = arr[:, 2] + arr[:, 3]
    reach += CONTACT_M + math.hypot(o.hw, o.hd) + 1.0
    reach *= math.sqrt(2.0)
    reach *= reach
    # the sides of the few near ones one by one (a comparison over the sides column and a
    # fancy index cost more than the handful of string tests)
    side = f.side
    near = [k for k in (ex <= reach).nonzero()[0].tolist() if sides[k] != side]
    if not near:
        return False
    # the few near ones' gaps in plain floats (geometry.FewSeparation: separation()'s values
    # bit for bit; a gap found above CONTACT_M on one axis is not worked out further); the
    # rows gathered by take() (the fancy index's rows at a fraction of its cost)
    boxes = arr.take(near, axis=0).tolist()
    return any(g <= CONTACT_M for g in FewSeparation.of_boxes(boxes).gaps_upto(o, CONTACT_M))


def _outline_target(ctx: TwoMmContext, f: Formation, plan: MovePlan) -> Formation | None:
    """The enemy whose outline ``f``'s touches with no living bases in contact on either side
    (a holed or ragged line: 3.2), when ``f`` is in contact with no enemy base at all and its
    plan closes (an aimed plan: its target first, else the nearest such enemy)."""
    if plan.kind not in _AIMED or not f.alive_bases:
        return None
    state = ctx.state
    touching = [
        g for g in state.active() if g.side != f.side and g.alive_bases and _gap(f, g) <= CONTACT_M
    ]
    if not touching or any(base_pairs(f, g) for g in touching):
        return None  # in combat already: it stays to fight
    if plan.target is not None:
        for g in touching:
            if g.id == plan.target:
                return g
    return min(touching, key=lambda g: (_gap(f, g), g.id))


#: how many of the nearest pairs of bases a close from standing tries the way toward
_CLOSE_TRIES = 8


def _close_from_standing(
    ctx: TwoMmContext, f: Formation, plan: MovePlan, stuck: dict[str, str], moved: set[str]
) -> None:
    """3.2 from standing: ``f``'s outline touches an enemy's while no bases do; it closes
    toward that enemy's living base nearest one of its own, within its move allowance on the
    ground it stands on (``engine.movement.close_with_bases``)."""
    g = _outline_target(ctx, f, plan)
    if g is None:
        return
    classes, _off = footprint_classes(ctx.bf, f, "move")
    allowance = allowance_for(f, classes, ctx.move_rules) or 0.0
    start = (f.cx, f.cy)
    # toward the nearest pairs of bases in turn: the nearest pair's way can be barred (another
    # of its bases would stand on one of theirs first, an angled front, a friend alongside)
    # where the next pair's is open
    pairs = sorted(
        ((p, q) for p in f.alive_bases for q in g.alive_bases),
        key=lambda pq: (math.dist((pq[0].x, pq[0].y), (pq[1].x, pq[1].y)), pq[0].id, pq[1].id),
    )
    closed = 0.0
    for a, b in pairs[:_CLOSE_TRIES]:
        closed = close_with_bases(ctx.state, f, g, bearing(a.x, a.y, b.x, b.y), allowance)
        if closed > 0:
            break
    ctx.allowances[f.id] = allowance
    if closed <= 0:
        return
    f.moved_m = closed
    res = MoveResult(
        start=(start[0], start[1], f.facing),
        end=(f.cx, f.cy, f.facing),
        distance_m=closed,
        allowance_m=allowance,
        halted="contact_enemy",
        contact_with=g.id,
    )
    note_move(stuck, moved, ctx.state, f.id, res)
    ctx.emit(
        Moved(
            "execute_moves",
            f.id,
            res.start[:2],
            res.end[:2],
            f.facing,
            closed,
            allowance,
            res.halted,
        )
    )


def _own_formation_rules(ctx: TwoMmContext) -> bool:
    """Whether 2mm Earth's movement-and-formations part is played (3.1 step forward, 11.1
    injured split, 11.3 Pike & Shot): a composed ruleset with another book's formations (the
    Dark Age chapter) keeps its own."""
    from engine.rulesets.compose import TWO_MM_EARTH_V09, Part

    comp = getattr(ctx.ruleset, "composition", None)
    return comp is None or comp.modules.get(Part.MOVEMENT_AND_FORMATIONS) is TWO_MM_EARTH_V09


def step_forward(f: Formation) -> bool:
    """3.1: "soldiers from the other ranks can be moved forward to replace casualties [in the
    Movement phases], but then they would count as the first rank": in each file the living
    bases move up into the slots of the dead ahead of them (one base depth, 20 m, within any
    allowance). True if any base moved."""
    files: dict[int, list[Any]] = {}
    for b in f.bases:
        files.setdefault(b.file, []).append(b)
    changed = False
    for bases in files.values():
        bases.sort(key=lambda b: b.rank)
        ranks = [b.rank for b in bases]
        for b, r in zip(
            [b for b in bases if b.alive] + [b for b in bases if not b.alive], ranks, strict=True
        ):
            if b.rank != r:
                b.rank, changed = r, True
    if changed:
        f.place()
    return changed


def _steps_blocked(
    state: BattleState, f: Formation, moved: list[Any], before: dict[str, tuple[float, float]]
) -> bool:
    """3.1: whether the bases of ``f`` that stepped forward (``moved``, from ``before``) went
    further than one base depth or onto another formation's base (by more than 0.5 m)."""
    # the ranks shifting by more than a base depth first (the usual answer, and asked of the
    # moved bases alone): then the other bases are not gathered at all
    if any(math.hypot(b.x - before[b.id][0], b.y - before[b.id][1]) > b.d + 0.01 for b in moved):
        return True
    fx, fy = f.centre()
    # the bases within 2 km: only formations whose rectangle reaches that near can have
    # one (a base stands inside its formation's rectangle), in the table's order
    t = state.table()
    reach = np.hypot(t.arr[:, 0] - fx, t.arr[:, 1] - fy) - np.hypot(t.arr[:, 2], t.arr[:, 3])
    others = [
        x
        for k in np.flatnonzero(reach < 2000.0 + 1.0).tolist()
        if (g := t.forms[k]) is not f
        for x in g.alive_bases
        if math.hypot(x.x - fx, x.y - fy) < 2000.0
    ]
    if not others:
        return False
    arr = obb_array([x.obb() for x in others])
    return any(overlaps(b.obb(), arr, tol=0.5).any() for b in moved)


def _replace_casualties(ctx: TwoMmContext) -> None:
    """3.1 in the movement phase: formations that make no move this bound (in combat, holding)
    bring rear-rank bases forward into the front rank's gaps. A moving formation keeps its
    ranks (1.1: re-arranging comes out of the move). Loose formations are one rank (4.1)."""
    state = ctx.state
    if not _own_formation_rules(ctx):
        return
    for f in state.active():
        plan = ctx.plans.get(f.id)
        if plan is not None and plan.kind != "none":
            continue  # most formations move (asked first: ``ranks`` reads every base)
        if f.loose or f.morale is Morale.ROUTING or f.ranks < 2:
            continue
        if not any(not b.alive and b.rank == 0 for b in f.bases):
            continue  # nothing to fill in the first rank (cheap test first)
        # a step of one base depth must be within the allowance where the formation stands
        classes, _ = footprint_classes(ctx.bf, f, "move")
        allowance = allowance_for(f, classes, ctx.move_rules) or 0.0
        if allowance + 1e-9 < max(b.d for b in f.bases):
            continue
        ranks = {b.id: b.rank for b in f.bases}
        before = {b.id: (b.x, b.y) for b in f.alive_bases}
        if not step_forward(f):
            continue
        moved = [
            b
            for b in f.alive_bases
            if math.hypot(b.x - before[b.id][0], b.y - before[b.id][1]) > 1e-6
        ]
        bad = _steps_blocked(state, f, moved, before)
        if bad:
            # a slot is taken (an enemy followed into it) or the ranks would shift: stay put
            for b in f.bases:
                b.rank = ranks[b.id]
            f.place()
            continue
        ctx.allowances[f.id] = allowance
        state.version += 1


def _split_injured(ctx: TwoMmContext, order: list[Formation]) -> list[Formation]:
    """11.1: "Those bases not injured, but which are retreating from a formation with injured
    troops in, do not suffer a movement penalty (injured troops DO)": a retreating or routing
    formation about to move with both injured and unhurt bases leaves its injured behind as a
    group of their own (``<id>_inj``, a wing of the original: same morale, same kind of move),
    which moves after it at half speed. The two then act apart (4.2: wings retreat
    independently) and may re-join by advancing on each other."""
    from engine.log import WingSplit
    from engine.rulesets.two_mm_earth.formations import split_off

    if not _own_formation_rules(ctx):
        return order
    out: list[Formation] = []
    for f in order:
        out.append(f)
        plan = ctx.plans.get(f.id)
        if plan is None or plan.kind not in ("retreat", "rout") or f.removed:
            continue
        hurt = [b for b in f.alive_bases if b.status is BaseStatus.INJURED]
        if not hurt or len(hurt) == f.n_alive:
            continue
        if len({b.rank for b in f.alive_bases}) == 1 and not f.loose:
            groups = _split_line(ctx, f)
            if groups:
                ctx.emit([WingSplit("execute_moves", f.id, (f.id, *(g.id for g in groups)))])
                for g in groups:
                    ctx.plans[g.id] = MovePlan(g.id, plan.kind, plan.bearing)
                    ctx.separated[g.id] = g.wing_of or f.id
                out.extend(groups)
            continue
        g_rank = _split_rank(ctx, f, hurt)
        if g_rank is not None:
            ctx.emit([WingSplit("execute_moves", f.id, (f.id, g_rank.id))])
            ctx.plans[g_rank.id] = MovePlan(g_rank.id, plan.kind, plan.bearing)
            ctx.separated[g_rank.id] = g_rank.wing_of or f.id
            out.append(g_rank)
            continue
        # the bases must stay where they stand: the split is made only when both groups form
        # regular blocks of their own (the usual case: the hits fell on the facing rank);
        # otherwise the formation retreats as one block at its unhurt bases' speed
        before = {b.id: (b.x, b.y, b.rank, b.file) for b in f.bases}
        bases, start_bases = list(f.bases), f.start_bases
        g = split_off(ctx.state, f, hurt, "inj")
        if any(
            math.hypot(b.x - before[b.id][0], b.y - before[b.id][1]) > 0.01
            for b in (*f.alive_bases, *g.alive_bases)
        ):
            for b in bases:
                b.rank, b.file, b.formation = before[b.id][2], before[b.id][3], f.id
            f.bases, f.start_bases = bases, start_bases
            del ctx.state.formations[g.id]
            f.place()
            ctx.state.version += 1
            continue
        ctx.emit([WingSplit("execute_moves", f.id, (f.id, g.id))])
        ctx.plans[g.id] = MovePlan(g.id, plan.kind, plan.bearing)
        ctx.separated[g.id] = g.wing_of or f.id
        out.append(g)
    return out


def _split_rank(ctx: TwoMmContext, f: Formation, hurt: list[Any]) -> Formation | None:
    """11.1 when the injured are one whole rank (the facing rank hit, its dead gaps and all):
    that rank falls out as ``<id>_inj`` with its empty slots where they are, and the formation
    keeps its other ranks, renumbered from the front; every base stays where it stands. None
    (nothing changed) when the injured are not one rank's only living bases, or the ranks could
    not be parted without moving a base."""
    from engine.rulesets.two_mm_earth.formations import split_off

    ranks = {b.rank for b in hurt}
    if len(ranks) != 1:
        return None
    (r,) = ranks
    if any(b.rank == r and b.status is BaseStatus.OK for b in f.alive_bases):
        return None
    line = sorted((b for b in f.bases if b.rank == r), key=lambda b: (b.file, b.id))
    if [b.file for b in line] != list(range(line[0].file, line[0].file + len(line))):
        return None  # a rank with slots missing from the list: not a whole line to move out
    before = {b.id: (b.x, b.y, b.rank, b.file, b.formation) for b in f.bases}
    at = {k: (v[0], v[1]) for k, v in before.items()}
    kept = (list(f.bases), f.start_bases, f.cx, f.cy)
    anchor = next(b for b in f.alive_bases if b.status is BaseStatus.OK)
    g = split_off(ctx.state, f, [b for b in line if b.alive], "inj")
    _regroup_line(g, line, at)
    on_line = {b.id for b in line}
    f.bases = [b for b in f.bases if b.id not in on_line]
    for b in f.bases:
        if b.rank > r:
            b.rank -= 1
    f.place()
    f.cx += at[anchor.id][0] - anchor.x
    f.cy += at[anchor.id][1] - anchor.y
    f.place()
    if any(
        math.hypot(b.x - before[b.id][0], b.y - before[b.id][1]) > 0.01
        for h in (f, g)
        for b in h.alive_bases
    ):
        bases, f.start_bases, f.cx, f.cy = kept
        for b in bases:
            b.x, b.y, b.rank, b.file, b.formation = before[b.id]
        f.bases = bases
        del ctx.state.formations[g.id]
        f.place()
        ctx.state.version += 1
        return None
    return g


def _line_segments(line: list[Any]) -> list[list[Any]]:
    """A one-rank line's bases (``line``), left to right, cut where the living bases change
    between injured and unhurt (11.1); a dead base's empty slot stays with the segment on its
    left (the first segment's, at the left end), so each segment is a run of whole slots."""
    segments: list[list[Any]] = []
    status = None
    for b in sorted(line, key=lambda x: (x.file, x.id)):
        if b.alive and status is not None and b.status is not status:
            segments.append([])
        if not segments:
            segments.append([])
        segments[-1].append(b)
        if b.alive:
            status = b.status
    return [s for s in segments if any(b.alive for b in s)] if status is not None else []


def _regroup_line(g: Formation, segment: list[Any], at: dict[str, tuple[float, float]]) -> None:
    """Make ``g`` the one-rank line of ``segment`` (its slots left to right, dead ones kept in
    place), centred so that every living base stays where it stood (``at``: base id -> x, y)."""
    rx, ry = right(g.facing)
    for i, b in enumerate(segment):
        b.rank, b.file, b.formation = 0, i, g.id
    g.bases, g.frontage = list(segment), len(segment)
    b = next(x for x in segment if x.alive)
    across = (b.file - (len(segment) - 1) / 2.0) * g.pitch_w
    x, y = at[b.id]
    g.cx, g.cy = x - across * rx, y - across * ry
    g.place()


def _split_line(ctx: TwoMmContext, f: Formation) -> list[Formation]:
    """11.1 in a one-rank line: the injured cannot fall out behind, so the line parts where the
    injured and unhurt bases meet. Each run of injured bases becomes a group of its own
    (``<id>_inj``, slowed); the longest run of unhurt bases (the leftmost of equals) stays
    ``f``, and any other unhurt run is a group of its own (``<id>_sep``) keeping its full
    speed (5.1: "if bases become separated, each 'group' can move at its full distance").
    Every base stays where it stands; the groups are wings of the original (same morale, same
    move) that retreat apart from then on (4.2). Returns the new groups, or [] when the line
    could not be parted without moving a base (it then retreats as one block)."""
    from engine.rulesets.two_mm_earth.formations import split_off

    (rank,) = {b.rank for b in f.alive_bases}
    line = [b for b in f.bases if b.rank == rank and b.file < f.frontage]
    segments = _line_segments(line)
    if len(segments) < 2:
        return []
    # the other ranks are all dead (no living base stands there): their bases stay with ``f``
    # for the casualty count, in its one rank beyond its last file (no slot on the table)
    on_line = {b.id for b in line}
    gone = [b for b in f.bases if b.id not in on_line]
    unhurt = [s for s in segments if any(b.status is BaseStatus.OK for b in s)]
    keep = max(unhurt, key=lambda s: sum(1 for b in s if b.alive))  # max: the first of equals
    before = {b.id: (b.x, b.y, b.rank, b.file, b.formation) for b in f.bases}
    at = {k: (v[0], v[1]) for k, v in before.items()}
    kept = (list(f.bases), f.start_bases, f.frontage, f.cx, f.cy)
    groups: list[Formation] = []
    for seg in segments:
        if seg is keep:
            continue
        alive = [b for b in seg if b.alive]
        tag = "inj" if alive[0].status is BaseStatus.INJURED else "sep"
        g = split_off(ctx.state, f, alive, tag)
        _regroup_line(g, seg, at)
        groups.append(g)
    _regroup_line(f, keep, at)
    for i, b in enumerate(gone):
        b.rank, b.file = 0, f.frontage + i
    f.bases.extend(gone)
    f.place()
    if any(
        math.hypot(b.x - before[b.id][0], b.y - before[b.id][1]) > 0.01
        for g in (f, *groups)
        for b in g.alive_bases
    ):
        bases, f.start_bases, f.frontage, f.cx, f.cy = kept
        for b in bases:
            b.x, b.y, b.rank, b.file, b.formation = before[b.id]
        f.bases = bases
        for g in groups:
            del ctx.state.formations[g.id]
        f.place()
        ctx.state.version += 1
        return []
    return groups


def retreat_blocked_v09(ctx: TwoMmContext, f: Formation) -> None:
    """10.3: "cannot move away without contacting an enemy base" -> rout (however the
    retreat came about: v0.9 has no retreat by choice that a block would spare)."""
    ctx.emit(
        set_morale(ctx, f, Morale.ROUTING, "10.3 retreat blocked by the enemy", "execute_moves")
    )


def wall_classes(ctx: TwoMmContext, f: Formation) -> Any:
    """The move's terrain classes where the ground has fortifications (8.3: walls bar or slow
    a move by where it starts and who holds them), for ``execute_move``'s ``classes_fn``;
    None on open ground."""
    from engine.rulesets.two_mm_earth import sieges

    if not ctx.has_walls:
        return None
    start_fort = sieges.fortification_at(ctx.bf, f)
    holds = bool(ctx.scenario is not None and ctx.scenario.side(f.side).holds_walls)

    def classes_fn(form: Any, pose: Any) -> Any:
        return sieges.move_classes(ctx.bf, form, pose, start_fort, holds)

    return classes_fn


def rout_plan(ctx: TwoMmContext, f: Formation) -> MovePlan:
    """A routing formation's move this bound (11.1): away from the enemy it touches or the
    nearest, by 10.3's retreat bearing."""
    return _retreat_plan(ctx, f, "rout")


def phase_execute_moves(
    ctx: TwoMmContext,
    on_blocked: Any = retreat_blocked_v09,
    after_move: Any = None,
    aim_anew: Any = None,
) -> None:
    """1.1 moves, fastest initiative first. ``on_blocked(ctx, f)``: what a retreat that cannot
    get away from the enemy does (v0.9 10.3; v0.7 5.1 has its own); ``after_move(ctx, f, plan,
    res)``: what a composed movement chapter does as each move ends (its events; Dark Age
    5.12: skirmishers fall back before it); ``aim_anew(f, plan)``: how a composed movement
    chapter turns to a target aimed at anew as the move begins (Dark Age 5.15: not within
    the deviation)."""

    state = ctx.state
    _replace_casualties(ctx)
    stuck: dict[str, str] = {}  # formations a friend stopped this bound (engine.jams)
    moved: set[str] = set()
    flights: list[str] = []  # broken formations that tried to flee this bound
    charges: list[tuple[str, str]] = []  # (charger, charged): moves that ended in contact
    for f in _split_injured(ctx, _pursuers_last(ctx, high_initiative_first(ctx))):
        plan = ctx.plans.get(f.id)
        if plan is None or plan.kind == "none" or f.removed:
            continue
        if plan.kind == "ladder":
            _ladder_up(ctx, f)
            continue
        if plan.kind in _AIMED and plan.target is not None:
            g = state.formations[plan.target]
            if g.removed:
                continue
            fresh = _charge(f, g, plan.kind)  # the target may have moved first: aim anew
            fresh.max_m = plan.max_m
            plan = fresh if aim_anew is None else aim_anew(f, fresh)
        # the rectangles of every formation on the table: the state's columns, which follow
        # every move, loss and morale change by themselves
        t = state.table()
        table = (t.forms, t.arr, t.sides)
        if f.morale is Morale.STEADY and plan.kind != "pursue" and _touching_enemy(ctx, f, table):
            # charged before its turn (or still in contact): it stays to fight (3.2); where
            # the outlines touch and no living bases do, it closes base to base from where it
            # stands rather than freezing outline to outline for the rest of the battle
            _close_from_standing(ctx, f, plan, stuck, moved)
            continue
        if plan.kind in ("retreat", "rout") and f.morale is not Morale.STEADY:
            flights.append(f.id)  # special rule surrender: did it get away?
        classes_fn = wall_classes(ctx, f)
        mover = execute_move
        if f.morale is Morale.ROUTING and ctx.flee_move is not None:
            mover = ctx.flee_move  # a composed morale module's flee move (W&C: through friends)
        res = mover(
            ctx.bf,
            state,
            f,
            plan,
            rules=ctx.move_rules,
            classes_fn=classes_fn,
            table=(table[0], table[1]),
        )
        if (
            res.halted == "contact_enemy"
            and res.contact_with is not None
            and f.morale is Morale.STEADY
            and plan.kind in _AIMED
        ):
            res = _complete_contact(state, f, state.formations[res.contact_with], res)
        ctx.allowances[f.id] = res.allowance_m
        note_move(stuck, moved, state, f.id, res)
        if res.distance_m > 0:
            ctx.emit(
                Moved(
                    "execute_moves",
                    f.id,
                    res.start[:2],
                    res.end[:2],
                    res.end[2],
                    res.distance_m,
                    res.allowance_m,
                    res.halted,
                )
            )
        if after_move is not None:
            ctx.emit(after_move(ctx, f, plan, res))
        if plan.kind == "retreat" and res.halted == "contact_enemy" and res.distance_m < MIN_MOVE_M:
            on_blocked(ctx, f)  # cannot move away without contacting an enemy base
        if f.morale is Morale.ROUTING and res.off_map:
            pass  # handled by 11.1 in the morale phase
        if res.halted == "contact_enemy" and res.contact_with is not None:
            from engine.rulesets.two_mm_earth.morale import touched_while_retreating

            if f.morale is Morale.STEADY and plan.kind in _AIMED and res.distance_m > 0:
                charges.append((f.id, res.contact_with))  # special rule shock_of_charge

            g = state.formations[res.contact_with]
            for x in (f, g):  # 11.1: touching or touched, tested the moment it happens
                ctx.emit(touched_while_retreating(ctx, x, "execute_moves"))
        if plan.kind == "join" and plan.target is not None:
            g = state.formations[plan.target]
            if not g.removed and _gap(f, g) <= CONTACT_M:
                from engine.rulesets.two_mm_earth.formations import join_formation

                ctx.emit(join_formation(ctx, f, g, "execute_moves"))
    ctx.jams.record(state.bound, stuck, moved)
    ctx.base_pairs = update_contacts(state)
    if ctx.special.surrender is not None:
        ctx.emit(surrender_cut_off(ctx, flights, "execute_moves"))
    _mark_new_contacts(ctx)
    if ctx.special.shock is not None:
        # charges whose contact held; 2mm Earth's own morale tests them now, a composed
        # morale module (War & Conquest) in its own test (its resolution phase)
        ctx.charged = {}
        for charger, fid in charges:
            if charger in state.contacts.get(fid, ()):
                ctx.charged.setdefault(fid, charger)
        from engine.rulesets.two_mm_earth.morale import shock_of_charge

        ctx.emit(shock_of_charge(ctx, "execute_moves"))
    _pike_and_shot(ctx)
    # 10.2 / 11.1: contact on a flank or the rear, retreating troops touched: tested at once,
    # before the melee
    ctx.emit(
        immediate_tests(ctx, [f for f in state.active() if f.new_contact_sides], "execute_moves")
    )
    if ctx.has_walls:
        _ladders_at_wall(ctx)


def surrender_cut_off(ctx: TwoMmContext, flights: list[str], phase: str) -> list[Event]:
    """Special rule ``surrender`` (engine.special_rules.Surrender): of the broken formations
    that tried to flee this bound (``flights``), each that got less than 6.1's least move away
    with an enemy formation in contact yields: its living bases are captured (removed as 11.1
    removes routers run down, and counted captured: ``TwoMmContext.caught``). Returns the
    events (War & Conquest's flee moves call it too)."""
    from engine.rulesets.two_mm_earth.damage import kill_base
    from engine.special_rules import Surrendered

    state = ctx.state
    spec = ctx.special.surrender
    assert spec is not None
    events: list[Event] = []
    for fid in flights:
        f = state.formations[fid]
        if f.removed or f.morale is Morale.STEADY or f.moved_m >= MIN_MOVE_M:
            continue
        if not ctx.special.surrenders(f.side):
            continue
        captors = sorted(
            g for g in state.contacts.get(fid, ()) if state.formations[g].side != f.side
        )
        if not captors:
            continue  # no enemy upon it: nobody to yield to
        bases = tuple(b.id for b in f.alive_bases)
        for b in f.alive_bases:
            events.append(kill_base(f, b, by="surrender", phase=phase, characters=state.characters))
            ctx.caught.add(b.id)  # 2mm Earth's own count (morale.casualties)
            ctx.special.captured.add(b.id)  # the default count (Ruleset.casualties)
        f.morale = Morale.DESTROYED
        f.changed_bound = state.bound
        events.append(Surrendered(phase, spec.rule, fid, captors[0], bases))
    if events:  # the captured leave the table: the contacts without them
        ctx.base_pairs = update_contacts(state)
    return events


def _pike_and_shot(ctx: TwoMmContext) -> None:
    """11.3: left/right mixed formations (Pike & Shot) split into linked wings on getting
    into combat; contacts are then worked out for the wings."""
    from engine.rulesets.two_mm_earth.formations import auto_split
    from scenario_builder.errors import IllegalOrderError

    state = ctx.state
    if not _own_formation_rules(ctx):
        return
    split = False
    for f in state.active():
        if not state.contacts.get(f.id) or f.linked:
            continue
        try:
            ev = auto_split(state, f, "execute_moves")
        except IllegalOrderError:
            continue
        if ev:
            ctx.emit(ev)
            split = True
    if split:
        ctx.base_pairs = update_contacts(state)
        _mark_new_contacts(ctx)


def _pursuers_last(ctx: TwoMmContext, order: list[Formation]) -> list[Formation]:
    """11.1: a pursuer moves after the broken formation it follows (else the fleeing troops,
    still in place, would block the faster pursuer that moves first by initiative); so does a
    formation joining another (5.1, 10.4): it meets it where it ends its own move."""
    pursuers = [
        f
        for f in order
        if ctx.plans.get(f.id) is not None and ctx.plans[f.id].kind in ("pursue", "join")
    ]
    last = {f.id for f in pursuers}  # by id: `in` on the list compared whole dataclasses
    return [f for f in order if f.id not in last] + pursuers


def _mark_new_contacts(ctx: TwoMmContext) -> None:
    state = ctx.state
    bases: dict[str, Any] | None = None  # every base by id, gathered only if a contact is new
    for f in state.active():
        sides: set[str] = set()
        for eid in state.contacts.get(f.id, ()):
            if eid in f.contacts_prev:
                continue
            for _a, b in ctx.base_pairs.get((f.id, eid), ()):
                if bases is None:
                    bases = state.bases
                sides.add(f.contact_side(bases[b]))
        new = tuple(sorted(sides)) if sides else ()
        if f.new_contact_sides != new:  # most stay () bound after bound: no write
            f.new_contact_sides = new


def _ladders_at_wall(ctx: TwoMmContext) -> None:
    from engine.rulesets.two_mm_earth import sieges

    for f in ctx.state.active():
        if f.morale is not Morale.STEADY or not f.has_flag(Flag.LADDERS):
            continue
        if any(b.on_wall or b.ladder_ready for b in f.alive_bases):
            continue
        if sieges.fortification_at(ctx.bf, f) is None and sieges.at_wall_foot(ctx.bf, f, 5.0):
            for b in f.alive_bases:
                b.ladder_ready = True
            ctx.emit(LadderPlaced("execute_moves", f.id, "at_wall"))


def _ladder_up(ctx: TwoMmContext, f: Formation) -> None:
    from engine.rulesets.two_mm_earth import sieges

    point = sieges.at_wall_foot(ctx.bf, f, 25.0)
    if point is None:
        for b in f.bases:
            b.ladder_ready = False
        return
    start = (f.cx, f.cy, f.facing)
    fort_box = f.obb()
    sieges.deploy_on_wall(f, point)
    ctx.state.version += 1
    moved = math.hypot(f.cx - start[0], f.cy - start[1]) + fort_box.hw
    f.moved_m = moved
    ctx.emit(LadderPlaced("execute_moves", f.id, "on_wall"))


# -- melee and after --------------------------------------------------------------------------


def phase_melee(ctx: TwoMmContext) -> None:
    ctx.emit(melee_phase(ctx))


def phase_melee_damage(ctx: TwoMmContext) -> None:
    _destroy_empty(ctx, "melee_damage")
    ctx.base_pairs = update_contacts(ctx.state)


def phase_morale(ctx: TwoMmContext) -> None:
    ctx.emit(morale_phase(ctx))


def phase_pursuit(ctx: TwoMmContext) -> None:
    ctx.emit(pursuit_phase(ctx))


def phase_rally(ctx: TwoMmContext) -> None:
    ctx.emit(rally_phase(ctx))


#: the bound (1.1), phase by phase, in order
SEQUENCE: tuple[Phase, ...] = (
    Phase("orders", phase_orders),
    Phase("plan_moves", phase_plan_moves),
    Phase("plan_shooting", phase_plan_shooting),
    Phase("execute_shooting", phase_execute_shooting),
    Phase("shooting_damage", phase_shooting_damage),
    Phase("execute_moves", phase_execute_moves),
    Phase("melee", phase_melee),
    Phase("melee_damage", phase_melee_damage),
    Phase("morale", phase_morale),
    Phase("pursuit", phase_pursuit),
    Phase("rally", phase_rally),
)
PHASES: tuple[str, ...] = tuple(p.name for p in SEQUENCE)


def footprint_on_impractical(ctx: TwoMmContext, f: Formation) -> bool:
    classes, _ = footprint_classes(ctx.bf, f, "move")
    return 4 in classes
