"""References for the 2mm Earth morale phase (10.2 / 11.1 triggers, 10.5 panic test's friends
seen): ``engine.rulesets.two_mm_earth.morale`` as it was before its passes were made cheaper.
See ``tests/reference/__init__.py`` for the rule they follow."""

from __future__ import annotations

from typing import Any

from engine.rulesets.two_mm_earth import morale
from engine.state import BaseStatus, Formation, Morale


def own_triggers(ctx: Any, f: Formation, crossed: tuple[str, ...]) -> list[str]:
    """Pins ``engine.rulesets.two_mm_earth.morale._own_triggers`` (10.2 / 11.1 a formation's own
    morale triggers): as it was, the dead counted base by base every time, with the game
    thresholds already crossed passed in (it does not touch ``f``).
    """
    out: list[str] = []
    if f.front_at_start and f.killed_in_bound:
        bases = ctx.state.bases
        if all(bases[b].status is BaseStatus.DEAD for b in f.front_at_start):
            out.append("front_rank_killed_in_bound")
    if f.characters_killed:
        out.append("character_killed")
    if "flank" in f.new_contact_sides:
        out.append("enemy_contact_flank")
    if "rear" in f.new_contact_sides:
        out.append("enemy_contact_rear")
    if f.morale is Morale.RETREATING and f.new_contact_sides:
        out.append("retreating_touched")
    dead = sum(1 for b in f.bases if b.status is BaseStatus.DEAD)
    start = f.start_bases or len(f.bases)
    for frac, name in ((0.5, "killed_over_50pct_game"), (0.75, "killed_over_75pct_game")):
        if dead / start > frac and name not in crossed:
            out.append(name)
    if f.alive_at_start:
        share = f.killed_in_bound / f.alive_at_start
        if share > 0.75:
            out.append("killed_over_75pct_bound")
        elif share > 0.5:
            out.append("killed_over_50pct_bound")
    return out


def seen_counts(ctx: Any, f: Formation) -> tuple[int, int]:
    """Pins ``TwoMmEarth.morale_reads_seen_friends`` and the counts the 10.5 panic test reads (10.2
    "seen friends retreating / routing"): the friends ``f`` sees or hears retreating and routing,
    as the panic test always asked ``morale._aware_of``.
    """
    friends = [
        g
        for g in ctx.state.active(f.side)
        if g.id != f.id and g.morale in (Morale.RETREATING, Morale.ROUTING)
    ]
    seen = morale._aware_of(ctx, f, friends)
    return (
        sum(1 for g in seen if g.morale is Morale.RETREATING),
        sum(1 for g in seen if g.morale is Morale.ROUTING),
    )
