"""A scenario plan's trigger conditions, judged on the battle state: one reading for every
ruleset (2mm Earth's General, medieval-d10's turn, any ruleset reading ``plan.triggers``).

A condition holds when every part it gives holds (engine.scenario.TriggerCondition): from
``bound`` on; an enemy within ``enemy_within_m`` (gap between rectangles) of ``formation``, or
of any of ``who`` when it names none; ``formation`` has lost ``losses_fraction`` of its bases;
friendly formation ``routs`` is routing or destroyed; formation ``attacked`` has been attacked
(an enemy in contact with it, or one of its bases hit); trigger ``trigger_fired`` has fired;
objective ``objective_taken`` is taken.

>>> from engine.scenario import Trigger, TriggerCondition
>>> from engine.state import BattleState
>>> condition_holds(TriggerCondition(bound=3), [], BattleState({}, {}, {}), 2, fired=set())
False
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import numpy as np

from engine.geometry import obb_array, separation
from engine.scenario import Trigger, TriggerCondition
from engine.state import BaseStatus, BattleState, Formation, Morale

__all__ = ["condition_holds", "enemy_within", "trigger_formations"]


def enemy_within(state: BattleState) -> Callable[[Formation, float], bool]:
    """``within(f, m)``: whether any enemy formation on the table is within ``m`` (gap by
    ``geometry.separation``, never below 0) of ``f``."""

    def within(f: Formation, m: float) -> bool:
        foes = state.enemies_of(f.side)
        if not foes or m < 0.0:
            return False
        gaps = np.maximum(separation(f.obb(), obb_array([g.obb() for g in foes])), 0.0)
        return bool((gaps <= m).any())

    return within


def condition_holds(
    w: TriggerCondition,
    who: list[Formation],
    state: BattleState,
    bound: int,
    *,
    fired: Collection[str],
    taken: Collection[str] = (),
    within: Callable[[Formation, float], bool] | None = None,
) -> bool:
    """Whether ``w`` holds in ``bound`` (the module docstring); ``who`` is whose distance to
    the enemy counts when the condition names no formation; ``fired``: the ids of the
    triggers fired so far; ``taken``: the objectives taken; ``within``: the enemy-distance
    test (default :func:`enemy_within` of ``state``)."""
    if w.bound is not None and bound < w.bound:
        return False
    subject = state.formations.get(w.formation) if w.formation else None
    if w.formation and subject is None:
        return False
    if w.enemy_within_m is not None:
        near = [subject] if subject is not None else who
        near = [f for f in near if not f.removed]
        test = within if within is not None else enemy_within(state)
        if not any(test(f, w.enemy_within_m) for f in near):
            return False
    if w.losses_fraction is not None:
        if subject is None:
            return False
        dead = sum(1 for b in subject.bases if b.status is BaseStatus.DEAD)
        if dead / max(1, subject.start_bases or len(subject.bases)) < w.losses_fraction:
            return False
    if w.routs is not None:
        r = state.formations.get(w.routs)
        if r is None or r.morale not in (Morale.ROUTING, Morale.DESTROYED):
            return False
    if w.attacked is not None:
        a = state.formations.get(w.attacked)
        if a is None or not _attacked(state, a):
            return False
    if w.trigger_fired is not None and w.trigger_fired not in fired:
        return False
    return w.objective_taken is None or w.objective_taken in taken


def _attacked(state: BattleState, f: Formation) -> bool:
    """Whether ``f`` has been attacked: an enemy in contact with it now, or one of its bases
    hit (injured or killed) at any time. A formation that broke was attacked."""
    if f.morale in (Morale.ROUTING, Morale.DESTROYED):
        return True
    if any(b.status is not BaseStatus.OK for b in f.bases):
        return True
    return any(
        (g := state.formations.get(c)) is not None and g.side != f.side
        for c in state.contacts.get(f.id, ())
    )


def trigger_formations(trig: Trigger) -> list[str]:
    """The formations a fired trigger gives its order to: its ``formations``, else the
    formation its condition names."""
    return list(trig.formations) or ([trig.when.formation] if trig.when.formation else [])
