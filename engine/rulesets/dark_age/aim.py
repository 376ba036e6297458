"""The automatic commander's aim under the Dark Age chapter: a formed unit keeps its target and
its facing while the way to the target lies within 5.15's 22.5 degrees of its front.

The commander it borrows (2mm Earth's, :func:`engine.rulesets.two_mm_earth.phases.plan_for`)
plans every bound afresh: the nearest seen enemy, and a facing square to it. Under 2mm Earth a
turn is free; under this chapter every turn of a formed unit is a wheel (5.17, 5.21 "the only
turn allowed") and a wheel costs a shieldwall 1 DP, so re-aiming by a tenth of a degree, or
swapping between two enemies at equal distance, piled up DPs each bound (benchmarks/
dark_age_aims.py on Maldon). A table moves the unit on within the deviation 5.15 allows and
wheels only when the enemy it is going for has moved out of that arc. Reading
(docs/rules-interpretations.md, "Dark Age: a formed unit keeps its aim"):

- formed units (shieldwall, cuneus) that are steady and closing on the enemy (advance, attack,
  charge) and not ordered to manoeuvre this bound (the order's wheel is made as ordered);
- the target: last bound's, if the commander now picks another while the old one is still on
  the table, not fleeing, and within 22.5 degrees of the unit's facing (:class:`AimKept`);
- the facing: kept if the way to the goal and the facing the commander wants are both within
  22.5 degrees of the present facing (the move goes that way, 5.15); otherwise the unit wheels
  square to its target, as the commander planned.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.geometry import bearing
from engine.log import Event, Names, keep_ids
from engine.movement import MovePlan
from engine.rulesets.dark_age.formations import Formation
from engine.rulesets.dark_age.movement import within_deviation
from engine.state import Morale

__all__ = ["AimKept", "facing_kept", "keep_aim"]

#: the plans that close on an enemy; fleeing, pursuing and retiring moves are unformed (5.2)
_CLOSING = frozenset({"advance", "attack", "charge"})
_FORMED = frozenset({Formation.SHIELDWALL, Formation.CUNEUS})


@dataclass(frozen=True, slots=True)
class AimKept(Event):
    """A formed unit kept going for ``target`` although the commander picked ``instead``: the
    old target is still within 5.15's 22.5 degrees of its front, so a table would not wheel."""

    type: ClassVar[str] = "aim_kept"
    formation: str
    target: str
    instead: str
    section: str = "5.15"

    def actor_id(self) -> str:
        return self.formation

    def describe(self, names: Names = keep_ids) -> str:
        """
        >>> AimKept("execute_moves", "a", "b", "c").describe()
        'a keeps its aim on b, not c: within 22.5 degrees of its front (5.15, no wheel)'
        """
        return (
            f"{names(self.formation)} keeps its aim on {names(self.target)}, not "
            f"{names(self.instead)}: within 22.5 degrees of its front ({self.section}, no wheel)"
        )


def _way(f: Any, plan: MovePlan) -> float:
    """The bearing the plan's move goes: to its goal, else its bearing."""
    if plan.goal is None:
        return plan.bearing
    return bearing(f.cx, f.cy, *plan.goal)


def _aimed_at(f: Any, g: Any, plan: MovePlan) -> MovePlan:
    """``plan`` redirected at ``g`` as the commander's charge plans are made (the point where
    our front would meet theirs), facing kept."""
    fx, fy = f.centre()
    gx, gy = g.centre()
    b = bearing(fx, fy, gx, gy)
    return dataclasses.replace(
        plan, bearing=b, goal=(gx + (f.cx - fx), gy + (f.cy - fy)), facing=b, target=g.id
    )


def _keeps_facing(f: Any, plan: MovePlan) -> MovePlan:
    """5.15: the plan without its turn if the way and the wanted facing are both within the
    deviation of the present facing."""
    if (
        plan.facing is not None
        and within_deviation(f.facing, plan.facing)
        and within_deviation(f.facing, _way(f, plan))
    ):
        return dataclasses.replace(plan, facing=None)
    return plan


def _aiming(f: Any, plan: MovePlan, view: Any, ordered: set[str]) -> bool:
    """Whether the reading applies to ``f``'s ``plan`` (module docstring)."""
    return (
        not f.removed
        and f.morale is Morale.STEADY
        and plan.kind in _CLOSING
        and f.id not in ordered
        and view(f)[2] in _FORMED
    )


def facing_kept(view: Any, ordered: set[str]) -> Any:
    """The host's ``aim_anew`` (its move aims again at a target that moved first): the same
    reading, so that re-aim does not turn the unit either."""

    def aim_anew(f: Any, plan: MovePlan) -> MovePlan:
        return _keeps_facing(f, plan) if _aiming(f, plan, view, ordered) else plan

    return aim_anew


def keep_aim(
    ctx: Any, aims: dict[str, str], view: Any, ordered: set[str], phase: str
) -> list[Event]:
    """Apply the reading above to ``ctx.plans`` (in place); ``aims``: each unit's target of
    last bound, updated; ``view``: the chapter's (troop, grade, formation) of a formation;
    ``ordered``: units with an ordered manoeuvre this bound."""
    state = ctx.state
    events: list[Event] = []
    for fid in sorted(ctx.plans):
        plan = ctx.plans[fid]
        f = state.formations[fid]
        if not _aiming(f, plan, view, ordered):
            aims.pop(fid, None)
            continue
        old = aims.get(fid)
        if plan.target is not None and old is not None and old != plan.target:
            g = state.formations.get(old)
            if (
                g is not None
                and not g.removed
                and g.side != f.side
                and g.morale is not Morale.ROUTING
                and within_deviation(f.facing, bearing(*f.centre(), *g.centre()))
            ):
                events.append(AimKept(phase, fid, old, plan.target))
                plan = _aimed_at(f, g, plan)
        plan = _keeps_facing(f, plan)  # 5.15: on within the deviation
        ctx.plans[fid] = plan
        if plan.target is not None:
            aims[fid] = plan.target
        else:
            aims.pop(fid, None)
    return events
