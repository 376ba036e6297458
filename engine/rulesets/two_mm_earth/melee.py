"""Melee (1.1, 3.1-3.4): formations in base contact strike in initiative order.

- Every formation in combat (3.2: one base in contact is enough) strikes the enemy formation it
  touches with most bases (ties by id), with its melee arming value - the lowest among its bases
  (5.1) - plus one die for each base its facing rank has more than the enemy's facing rank (3.1,
  :func:`resolution.outnumbering_bonus`; "extra ranks do not count"). Bases of the
  formation not in contact assist (3.3) by counting in the facing rank.
- The target's R is its facing rank's melee R (11.3 mean), chart 7.2 cover (melee column), -1
  retreating, -2 routing.
- Strike order (1.1): higher initiative first ("light before heavy"); troops armed with missiles
  - ranged arming or throwing weapons (3.4), but not if they fired Ordnance this bound (8.1) -
  strike before enemies of the same foot/mounted status or the same initiative. Strikes of equal
  order are simultaneous. Hits are applied after each step of the order, so a base killed before
  its turn does not strike (docs/rules-interpretations.md, 1.1).
- 10.2 / 10.5: a formation whose front rank or character is killed, or that loses over half its
  bases, in a step tests at once (:func:`morale.immediate_tests`), before the next step; a
  formation routing when its turn comes does not strike (it is running, 10.4).
"""

from __future__ import annotations

from engine.log import Event, Hit, Melee
from engine.rulesets.two_mm_earth.context import TwoMmContext
from engine.rulesets.two_mm_earth.damage import allocate_hits
from engine.rulesets.two_mm_earth.profiles import profile_of
from engine.rulesets.two_mm_earth.resolution import outnumbering_bonus
from engine.rulesets.two_mm_earth.shooting import target_resilience
from engine.state import Formation, Morale

__all__ = ["melee_arming", "melee_phase", "missile_first", "strike_key"]


def melee_arming(f: Formation) -> int:
    """5.1: the lowest melee arming in the formation (no melee arming counts as 0)."""
    vals = [profile_of(b.profile).arming.melee or 0 for b in f.alive_bases]
    return min(vals) if vals else 0


def is_missile(f: Formation) -> bool:
    """Armed with missiles for the strike order: all living bases, and no Ordnance fired (8.1)."""
    bases = f.alive_bases
    if not bases or f.fired_ordnance:
        return False
    return all(profile_of(b.profile).missile for b in bases)


def mounted(f: Formation) -> bool:
    return profile_of(f.profile).mounted


def missile_first(f: Formation, g: Formation) -> bool:
    """1.1: does ``f`` strike before ``g`` by the missile rule?

    "Soldiers armed with ranged weapons will always strike first against enemies of the same
    foot/mounted status, and will also always strike first against enemies of the same
    initiative value."
    """
    if not is_missile(f) or is_missile(g):
        return False
    return mounted(f) == mounted(g) or f.initiative == g.initiative


def strike_key(f: Formation, g: Formation) -> float:
    """Bigger strikes earlier: the initiative, lifted just above the opponent's by the
    missile rule, lowered just below it when the opponent has that rule against us."""
    if missile_first(f, g):
        return max(float(f.initiative), g.initiative + 0.5)
    if missile_first(g, f):
        return min(float(f.initiative), g.initiative - 0.5)
    return float(f.initiative)


def opponent_of(ctx: TwoMmContext, f: Formation) -> Formation | None:
    enemies = ctx.state.contacts.get(f.id, ())
    best, best_n = None, -1
    for eid in enemies:
        g = ctx.state.formations[eid]
        if g.removed:
            continue
        n = len(ctx.base_pairs.get((f.id, eid), ()))
        if n > best_n:
            best, best_n = g, n
    return best


def still_touching(ctx: TwoMmContext, f: Formation, g: Formation) -> bool:
    pairs = ctx.base_pairs.get((f.id, g.id), ())
    bases = ctx.state.bases
    return any(bases[a].alive and bases[b].alive for a, b in pairs)


def melee_phase(ctx: TwoMmContext) -> list[Event]:
    """Resolve all melee of the bound in strike order; returns the events."""
    state = ctx.state
    strikers: list[tuple[float, int, Formation, Formation]] = []
    order = {fid: i for i, fid in enumerate(state.formations)}
    for f in state.active():
        if not state.contacts.get(f.id):
            continue
        g = opponent_of(ctx, f)
        if g is None:
            continue
        f.fought = True
        g.fought = True
        strikers.append((strike_key(f, g), order[f.id], f, g))
    strikers.sort(key=lambda s: (-s[0], s[1]))
    events: list[Event] = []
    step = 0
    i = 0
    while i < len(strikers):
        key = strikers[i][0]
        group = []
        while i < len(strikers) and strikers[i][0] == key:
            group.append(strikers[i])
            i += 1
        step += 1
        results = []
        for _, _, f, g in group:
            if f.removed or g.removed or not still_touching(ctx, f, g):
                continue
            if f.morale is Morale.ROUTING:
                continue  # 10.4: routing troops run, they do not strike
            a = melee_arming(f)
            if a <= 0:
                continue
            gx, gy = g.centre()
            fx, fy = f.centre()
            own = len(f.rank_of(f.side_toward(gx, gy)))
            theirs = len(g.rank_of(g.side_toward(fx, fy)))
            n = a + outnumbering_bonus(own, theirs)
            cover = ctx.cover_class(g, "melee")
            r = target_resilience(g, (fx, fy), "melee", cover, ctx.rs)
            r += ctx.rs.resilience_modifier(ctx, g)
            # W&C Morale Tests (engaged): +1 against a unit that failed while its combat went on
            mod = 1 if ctx.melee_bonus_against.get(g.id) == ctx.state.bound else 0
            if ctx.special.exhaustion is not None:  # special rule exhaustion: spent troops
                r += ctx.special.resilience_modifier(g, ctx.state.bound)
                mod += ctx.special.dice_modifier(f, ctx.state.bound)
            res = ctx.rs.roll_attack(ctx.dice, n, r, mod, purpose=f"melee {f.id}->{g.id}")
            events.append(Melee("melee", f.id, g.id, n, res.need, res.hits, step, res.dice))
            results.append((f, g, res.hits))
        for f, g, hits in results:  # simultaneous within one step of the order
            if hits:
                g.hits_melee += hits
                events.append(Hit("melee", g.id, f.id, hits, "melee"))
                events.extend(
                    allocate_hits(
                        g,
                        hits,
                        f.centre(),
                        ctx.dice,
                        by=f.id,
                        phase="melee",
                        characters=state.characters,
                    )
                )
        # 10.2 / 10.5: front rank or character killed, heavy losses: tested now, not after
        hurt = {g.id: g for _, g, hits in results if hits}
        if hurt:
            from engine.rulesets.two_mm_earth.morale import immediate_tests

            events.extend(immediate_tests(ctx, list(hurt.values()), "melee"))
    return events
