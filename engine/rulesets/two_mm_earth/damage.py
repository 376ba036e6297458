"""Casualties (2.4): hits on the facing rank injure, then kill.

"A Hit ... will be distributed onto one of the bases in the facing rank of the formation (the rank
facing the aggressor). ... Once a front rank has been completely injured, further hits will become
Kills and bases removed. Hit allocation is up to the aggressor's choice, unless the target
formation is, or contains in it, a Character." Then the base is drawn at random with the one
:class:`~engine.dice.Dice` (a ``len(candidates)``-sided die, recorded). In a Loose Formation the
aggressor always chooses (4.1).

The aggressor's choice: the candidate nearest the aggressor (ties by base id), which is how a
player concentrates hits where they can follow up.

>>> from engine.rulesets.two_mm_earth.profiles import Profile
>>> from engine.state import Formation
>>> from engine.dice import ScriptedDice
>>> p = Profile.model_validate({"id": "p", "name": "P", "unit_type": "infantry",
...     "initiative": 2, "arming": {"melee": 3}, "resilience": {"melee": 4, "ranged": 4}})
>>> from engine.rulesets.two_mm_earth.rulesets import BASE_SIZE
>>> f = Formation.build("f", "a", "F", p, n_bases=4, frontage=2, cx=0.0, cy=0.0, facing=0.0,
...                     **BASE_SIZE)
>>> ev = allocate_hits(f, 3, (0.0, 500.0), ScriptedDice([]), by="e", phase="shooting_damage")
>>> [(e.type, e.base) for e in ev]
[('injured', 'f.1'), ('injured', 'f.2'), ('killed', 'f.1')]
"""

from __future__ import annotations

import math

from engine.dice import Dice
from engine.log import Event, Injured, Killed
from engine.state import Base, BaseStatus, Formation

__all__ = ["allocate_hits"]


def _nearest(cands: list[Base], at: tuple[float, float]) -> Base:
    return min(cands, key=lambda b: (round(math.hypot(b.x - at[0], b.y - at[1]), 6), b.id))


def allocate_hits(
    target: Formation,
    hits: int,
    aggressor_xy: tuple[float, float],
    dice: Dice,
    *,
    by: str,
    phase: str,
    characters: dict | None = None,
    exclude: set[str] | frozenset[str] = frozenset(),
) -> list[Event]:
    """Apply ``hits`` to ``target`` from an aggressor at ``aggressor_xy`` (2.4); return events.

    Killing a base that carries a character kills the character (5.1); ``characters`` (the
    state's) is updated and the formation's ``characters_killed`` grows. ``exclude``: bases that
    cannot be hit (3.2: an assisting shot only hits bases not in contact with the shooter's
    side); the facing rank's others take the hits, else the nearest of the rest.
    """
    events: list[Event] = []
    for _ in range(hits):
        if target.n_alive == 0:
            break
        rank = target.rank_of(target.side_toward(*aggressor_xy))
        if exclude:
            rank = [b for b in rank if b.id not in exclude] or [
                b for b in target.alive_bases if b.id not in exclude
            ]
            if not rank:
                break
        ok = [b for b in rank if b.status is BaseStatus.OK]
        cands = ok or rank
        random_pick = bool(target.character_ids()) and not target.loose
        roll = None
        if random_pick and len(cands) > 1:
            ordered = sorted(cands, key=lambda b: b.id)
            roll = dice.roll(1, f"allocate hit {by}->{target.id}", sides=len(ordered))
            base = ordered[roll.faces[0] - 1]
        else:
            base = _nearest(cands, aggressor_xy)
        if ok and not base.ladder_ready:
            base.status = BaseStatus.INJURED
            events.append(Injured(phase, base.id, target.id, by, roll))
        else:  # 8.3: a base on its ladder is destroyed, not injured
            base.status = BaseStatus.DEAD
            target.killed_in_bound += 1
            ch = base.character
            if ch is not None:
                target.characters_killed = (*target.characters_killed, ch)
                if characters is not None and ch in characters:
                    characters[ch].alive = False
            events.append(Killed(phase, base.id, target.id, by, ch, roll))
    return events


def kill_base(
    target: Formation, base: Base, *, by: str, phase: str, characters: dict | None = None
) -> Event:
    """Remove a base outright (8.3 ladder base injured before deploying; 11.1 rout destroyed)."""
    base.status = BaseStatus.DEAD
    target.killed_in_bound += 1
    ch = base.character
    if ch is not None:
        target.characters_killed = (*target.characters_killed, ch)
        if characters is not None and ch in characters:
            characters[ch].alive = False
    return Killed(phase, base.id, target.id, by, ch, None)
