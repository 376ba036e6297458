"""References for the 2mm Earth planning phases (2.4 front ranks, 9.1 / 10.3 / 11.1 plans and
the sight questions they ask): ``engine.rulesets.two_mm_earth.phases`` as it was before its
shortcuts. See ``tests/reference/__init__.py`` for the rule they follow."""

from __future__ import annotations

from typing import Any

from engine.rulesets.two_mm_earth import phases
from engine.rulesets.two_mm_earth.shooting import range_m, shooting_bases
from engine.state import Formation, Morale


def front_ids(f: Formation) -> tuple[str, ...]:
    """Pins ``engine.rulesets.two_mm_earth.phases._front_ids`` (2.4 the front rank; none for a Loose
    Formation, 4.1; read by 10.2 "front rank destroyed"): the front rank worked out afresh.
    """
    return tuple(b.id for b in f.front_rank()) if not f.loose else ()


def sight_asks(ctx: Any, f: Formation) -> list[str]:
    """Pins ``engine.rulesets.two_mm_earth.phases._plan_steps``' sight questions (9.1 / 10.3 / 11.1
    plans, 6.2 the one sight question each asks): ``phases._sight_asks`` as it was, plan_for's
    tests up to its sight question.
    """
    state = ctx.state
    if f.morale in (Morale.ROUTING, Morale.RETREATING) or f.order != "attack":
        return []
    contacts = state.contacts.get(f.id, ())
    broken = (Morale.RETREATING, Morale.ROUTING)
    if contacts and not (
        f.pursuing in contacts and all(state.formations[c].morale in broken for c in contacts)
    ):
        return []
    if any(b.ladder_ready for b in f.alive_bases):
        return []
    if f.pursuing is not None:
        g = state.formations.get(f.pursuing)
        if g is not None and not g.removed and g.morale in broken:
            return []
    target = state.formations.get(f.target_formation or "")
    if target is None or target.removed or target.side == f.side:
        target = None
    near = phases._near_gaps(ctx, f)
    if shooting_bases(f):
        rng = range_m(f)
        if target is not None:
            return [target.id] if phases._gap(f, target, ctx) <= rng else []
        return [g.id for g, d in near if d <= rng]
    return [g.id for g, _d in near] if target is None else []
