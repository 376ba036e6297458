"""Dark Age 5.12, skirmishing: unformed light troops fall back before formed enemy.

"Unformed light troops must fall back to maintain desired skirmishing distance in face of an
approach by formed enemy. This is done in the enemy movement phase and has no impact on
previous or subsequent movement by the light troops." The chapter's example: light troops one
javelin throw from formed enemy who move toward them are moved "out of the way to allow his
opponent to move, then [placed] one javelin throw from the new enemy position".

On the engine the bound's moves are made one formation at a time (2mm Earth 1.1, fastest
initiative first). So as each formed, steady formation ends a move that approached a steady
unformed light enemy to less than one javelin throw, that enemy falls back straight away from
it to one javelin throw (docs/rules-interpretations.md, "5.12 skirmishers fall back"):

- the fall back is a move of its own, swept like any other (no overlap, the light troops'
  ground: 5.13-5.14), by the light troops' own way of passing friends (5.27), and without
  turning (unformed troops face all round, 5.1);
- light troops already fighting another enemy cannot step out of that fight, and ones that
  cannot get away (ground, the table edge, others in the way) are caught where they stand
  (the event says so);
- the approaching formation's own move has been made up to where it met them: the engine has
  no second half of a move to give back to it (a known shortfall of the reading).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from engine.geometry import bearing, distance, forward, obb_array
from engine.log import Draw, Event, Moved, Names, keep_ids
from engine.movement import MovePlan, MoveResult, MoveRules, execute_move
from engine.rulesets.dark_age.formations import Formation, is_light
from engine.rulesets.dark_age.movement import JAVELIN_THROW_M
from engine.spatial import table_box_gaps
from engine.state import Formation as EngineFormation
from engine.state import Morale

__all__ = ["SKIRMISH_DISTANCE_M", "SkirmishFallBack", "fall_back_before"]

#: 5.12's "desired skirmishing distance": the example's one javelin throw
SKIRMISH_DISTANCE_M = JAVELIN_THROW_M
#: a formation in contact (the engine's 1 m: 3.2)
_CONTACT_M = 1.0
#: plans that approach the enemy
_APPROACH = frozenset({"advance", "attack", "charge"})


@dataclass(frozen=True, slots=True)
class SkirmishFallBack(Event):
    """5.12: unformed light troops (``formation``) fell back ``distance_m`` before formed
    enemy (``enemy``) that came within one javelin throw; ``caught``: they could not get
    (all the way) back to a javelin throw from it."""

    type: ClassVar[str] = "skirmish_fall_back"
    draw: ClassVar[Draw] = Draw.MARK
    mark: ClassVar[str | None] = "retreat"
    formation: str
    enemy: str
    distance_m: float
    gap_m: float
    caught: bool

    def actor_id(self) -> str:
        return self.formation

    def describe(self, names: Names = keep_ids) -> str:
        """
        >>> SkirmishFallBack("execute_moves", "a", "b", 25.0, 12.5, True).describe()
        'a fall back 25 m before b (5.12), caught 12.5 m from it'
        """
        where = f"caught {self.gap_m:g} m from it" if self.caught else f"{self.gap_m:g} m off"
        return (
            f"{names(self.formation)} fall back {self.distance_m:g} m before "
            f"{names(self.enemy)} (5.12), {where}"
        )


def _skirmishers(f: EngineFormation, view: Any) -> bool:
    troop, _grade, form = view(f)
    return bool(form is Formation.UNFORMED and is_light(troop))


def _gap(f: EngineFormation, g: EngineFormation) -> float:
    return float(distance(f.obb(), obb_array([g.obb()]))[0])


def _formed(f: EngineFormation, view: Any) -> bool:
    return view(f)[2] not in (Formation.UNFORMED, Formation.SINGLE_MODEL)


def fall_back_before(
    ctx: Any, mover: EngineFormation, plan: MovePlan, res: MoveResult, view: Any
) -> list[Event]:
    """5.12 after ``mover``'s move: each steady unformed light enemy it came within one
    javelin throw of falls back to one javelin throw from it. ``view``: the chapter's
    (troop, grade, formation) of a formation (:func:`.battle.chapter_view`). Each fall back's
    distance is added to ``ctx.skirmish_m`` (the bound's allowance check counts it)."""
    if (
        res.distance_m <= 0
        or plan.kind not in _APPROACH
        or mover.morale is not Morale.STEADY
        or not _formed(mover, view)
    ):
        return []
    state = ctx.state
    events: list[Event] = []
    # the table as the move left it: the fall backs below move only the light troops, each
    # once and after its own test, and the engaged test reads their enemies, who stay put
    table = state.table()
    forms, sides = table.forms, table.sides
    # a lower bound of the gaps (the boxes round the rectangles) leaves out those surely a
    # throw away, or surely not touching below: most formations are nowhere near one another
    near_mover = table_box_gaps(table, table.rows[mover.id]) < SKIRMISH_DISTANCE_M
    near = np.flatnonzero(near_mover & (sides != mover.side))
    for k in near.tolist():  # in the table's (deployment) order
        g = forms[k]
        if g.morale is not Morale.STEADY or not _skirmishers(g, view):
            continue
        gap = _gap(mover, g)
        if gap >= SKIRMISH_DISTANCE_M - 1e-6:
            continue
        touching = np.flatnonzero((table_box_gaps(table, k) <= _CONTACT_M) & (sides != g.side))
        engaged = any(
            h.id != mover.id and _gap(h, g) <= _CONTACT_M
            for h in [forms[k] for k in touching.tolist()]
        )
        if engaged:
            continue  # in a fight with another enemy: no stepping out of it
        away = _approach_bearing(mover, g, res)
        res_g = _fall_back(ctx, g, mover, away, _distance_to_clear(mover, g, away))
        if res_g.distance_m > 0:
            # a move like any other for the chapter's checks (5.27 interpenetration reads the
            # bound's moves) and the playback
            events.append(
                Moved(
                    "execute_moves",
                    g.id,
                    res_g.start[:2],
                    res_g.end[:2],
                    res_g.end[2],
                    res_g.distance_m,
                    res_g.allowance_m,
                    res_g.halted,
                )
            )
        after = _gap(mover, g)
        ctx.skirmish_m[g.id] = ctx.skirmish_m.get(g.id, 0.0) + res_g.distance_m
        events.append(
            SkirmishFallBack(
                "execute_moves",
                g.id,
                mover.id,
                round(res_g.distance_m, 2),
                round(after, 2),
                after < SKIRMISH_DISTANCE_M - 0.5,
            )
        )
    return events


def _approach_bearing(mover: EngineFormation, g: EngineFormation, res: MoveResult) -> float:
    """The way the formed enemy came on (its move), which the light troops step back along;
    the bearing from it to them where the move was a turn on the spot."""
    dx, dy = res.end[0] - res.start[0], res.end[1] - res.start[1]
    if math.hypot(dx, dy) < 0.5:
        return bearing(mover.cx, mover.cy, g.cx, g.cy)
    return bearing(0.0, 0.0, dx, dy)


def _distance_to_clear(mover: EngineFormation, g: EngineFormation, way: float) -> float:
    """How far ``g`` must step along ``way`` to stand one javelin throw from ``mover``'s
    rectangle (bisection over the step; 3 throws at most)."""
    mo, go = obb_array([mover.obb()]), g.obb()
    ux, uy = forward(way)

    def gap_after(t: float) -> float:
        moved = go._replace(cx=go.cx + ux * t, cy=go.cy + uy * t)
        return float(distance(moved, mo)[0])

    lo, hi = 0.0, 3 * SKIRMISH_DISTANCE_M
    if gap_after(hi) < SKIRMISH_DISTANCE_M:
        return hi
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gap_after(mid) < SKIRMISH_DISTANCE_M else (lo, mid)
    return hi + 0.05


#: how much further back, past friends standing where the fall back would end, the light
#: troops may go (metres: a two-deep shieldwall and its rear ranks) and the ways tried, in
#: degrees off straight back: straight back first, then obliquely
_PAST_FRIENDS_M = (0.0, 20.0, 45.0, 70.0)
_OBLIQUE_DEG = (0.0, 45.0, -45.0)


def _fall_back(
    ctx: Any, g: EngineFormation, mover: EngineFormation, away: float, need: float
) -> MoveResult:
    """The shortest fall back that gets the light troops clear (one javelin throw from
    ``mover``): straight back ``need`` metres, obliquely, or further back past friends
    standing where it would end (5.27: unformed troops one stand deep pass through), tried
    shortest first; if none gets clear, the one that left the widest gap (caught short)."""
    start = (g.cx, g.cy, g.facing)
    best: tuple[float, MoveResult] | None = None
    tries = sorted(
        (
            (need / math.cos(math.radians(turn)) + extra, i, turn)
            for i, turn in enumerate(_OBLIQUE_DEG)
            for extra in _PAST_FRIENDS_M
        )
    )
    for d, _, turn in tries:
        way = (away + turn) % 360.0
        ux, uy = forward(way)
        goal = (start[0] + ux * d, start[1] + uy * d)
        res = execute_move(
            ctx.bf,
            ctx.state,
            g,
            MovePlan(g.id, "retreat", bearing=way, goal=goal, facing=None),
            rules=_rules_for_fall_back(ctx.move_rules, d),
        )
        gap = _gap(mover, g)
        if gap >= SKIRMISH_DISTANCE_M - 0.1:
            return res
        if res.distance_m > 0 and (best is None or gap > best[0]):
            best = (gap, res)
        g.set_pose(*start)  # not this way: back where it stood, to try the next
        ctx.state.version += 1
    if best is None:
        return MoveResult(0.0, need, "blocked", None, start, start)
    g.set_pose(*best[1].end)
    ctx.state.version += 1
    return best[1]


def _rules_for_fall_back(rules: MoveRules, need: float) -> MoveRules:
    """The bound's movement rules with the fall back's own allowance: ``need`` metres over
    any ground the light troops may enter (the rolled move is theirs for their own move:
    "no impact on previous or subsequent movement")."""

    def speed_m(f: EngineFormation) -> Any:
        own = rules.speed_m(f)

        def speed(move_class: int) -> float | None:
            return None if own(move_class) is None else need

        return speed

    return MoveRules(
        speed_m=speed_m,
        min_move_m=0.0,
        max_turn_deg=0.0,
        passes=rules.passes,
        pivot_wheels=rules.pivot_wheels,
    )
