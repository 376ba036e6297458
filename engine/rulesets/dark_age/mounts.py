"""Dark Age 5.25 mount and dismount as orders: "Replace the mounted troops by figures on foot
(or visa versa) Takes ½ move and 1 DP for all troops (including unformed). Two mounted stands
form one dismounted stand. Dismounted troops should have a horse and horseholder marker placed
close to them".

Readings (docs/rules-interpretations.md, "Dark Age 5.25 mount and dismount"):

- a scenario orders it (``manoeuvre: dismount`` with ``profile``: the troop list's profile the
  riders fight as on foot; ``manoeuvre: mount``, back to the profiles they rode as); the
  chapter's troop type, grade and formation, the move rates (5.9), the ground they may enter
  (5.13) and 2mm Earth's combat all follow the stands' profile, so all change with it;
- dismounting: the living stands in rank then file order, the first half (rounded up) stay on
  foot, each with the stand after it as its horses (an odd stand dismounts alone); a block two
  or more deep keeps its width (the rear rank's riders join the front), one rank deep halves
  it; the stands re-form on the spot, the front rank's centre kept (5.18's way). The horses
  and their holders are the chapter's marker, not a body on the table: they leave the
  formation and its strength (``start_bases`` halved with it) and come back on a ``mount``.
  The marker stays "close to them", so a unit mounts where it stands;
- mounting: every dismounted stand brings back its horses' stand, both on their mounted
  profiles, the width it had mounted; a dismounted stand killed on foot costs its horses' stand
  too (two mounted stands lost: its pair comes back dead). Refused if the mounted block would
  overlap another body or stand on ground closed to it (5.13);
- the move after it: the bound's roll read again for the troops as they now are, then halved
  (5.28 second), so riders who dismount walk on at foot pace.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from engine.rulesets.dark_age.formations import is_mounted
from engine.state import Base, BaseStatus, UnitProfile

__all__ = ["Horses", "check_dismount_profiles", "dismount", "mount", "reread_roll"]


@dataclass(slots=True)
class Horses:
    """A dismounted unit's horses and horse-holders (5.25's marker): each stand on foot's pair
    (None: it dismounted alone), every stand's mounted profile, and the strength and width it
    had mounted."""

    partners: dict[str, Base | None]
    mounted: dict[str, UnitProfile]
    start_bases: int
    frontage: int


def dismount(ctx: Any, f: Any, foot: UnitProfile, reform: Any) -> str | None:
    """Put ``f``'s riders on foot as ``foot`` (``reform(ctx, f, frontage)``: the manoeuvres'
    re-forming on the spot); why not, if it may not (nothing changed)."""
    from engine.rulesets.dark_age.battle import chapter_view

    horses: dict[str, Horses] = ctx.horses
    if f.id in horses:
        return "already on foot (5.25)"
    if not is_mounted(chapter_view(f)[0]):
        return "only mounted troops dismount (5.25)"
    alive = sorted(f.alive_bases, key=lambda b: (b.rank, b.file))
    wide = f.frontage
    k = math.ceil(len(alive) / 2)
    kept, spare = alive[:k], alive[k:]
    width = min(k, f.frontage) if f.ranks >= 2 else max(1, math.ceil(f.frontage / 2))
    saved = (list(f.bases), f.start_bases, {b.id: b.profile for b in alive})
    f.bases = [b for b in f.bases if b not in spare]
    for b in kept:
        b.profile = foot
    f.start_bases = max(1, math.ceil(f.start_bases / 2))
    if not reform(ctx, f, width):
        f.bases, f.start_bases = saved[0], saved[1]
        for b in alive:
            b.profile = saved[2][b.id]
        return "its new place is taken"
    horses[f.id] = Horses(
        {b.id: (spare[i] if i < len(spare) else None) for i, b in enumerate(kept)},
        saved[2],
        saved[1],
        wide,
    )
    return None


def mount(ctx: Any, f: Any, reform: Any, on_ground: Any) -> str | None:
    """Put ``f``'s stands back on their horses (``on_ground(ctx, f)``: why the mounted block
    may not stand where it is, or None); why not, if it may not (nothing changed)."""
    horses: dict[str, Horses] = ctx.horses
    h = horses.get(f.id)
    if h is None:
        return "not dismounted: only troops on foot with their horses mount (5.25)"
    saved = (list(f.bases), f.start_bases, {b.id: b.profile for b in f.bases}, f.frontage)
    order = sorted(f.bases, key=lambda b: (b.status is BaseStatus.DEAD, b.rank, b.file))
    back: list[Base] = []
    for b in order:
        pair = h.partners.get(b.id)
        if b.id in h.mounted:
            b.profile = h.mounted[b.id]
        if pair is not None:
            pair.profile = h.mounted[pair.id]
            pair.x, pair.y, pair.facing = b.x, b.y, b.facing
            # the horses of a stand killed on foot go with it (two mounted stands lost)
            pair.status = BaseStatus.DEAD if b.status is BaseStatus.DEAD else BaseStatus.OK
            back.append(pair)
    f.bases = [*f.bases, *back]
    f.start_bases = h.start_bases
    alive = sum(1 for b in f.bases if b.status is not BaseStatus.DEAD)
    why = None if reform(ctx, f, max(1, min(alive, h.frontage))) else "its new place is taken"
    if why is None:
        why = on_ground(ctx, f)
    if why is not None:
        f.bases, f.start_bases = saved[0], saved[1]
        for b in f.bases:
            b.profile = saved[2][b.id]
        if f.frontage != saved[3]:
            reform(ctx, f, saved[3])
        return why
    del horses[f.id]
    return None


def reread_roll(roll: Any, troop: Any, form: Any, kind: Any) -> Any:
    """The bound's move roll read for the troops as they now are (the same die face), as
    :func:`.movement.roll_move` reads it; unchanged when no die was rolled."""
    from engine.rulesets.dark_age.movement import allowance

    if roll.face is None:
        return roll
    return dataclasses.replace(roll, allowance=allowance(troop, roll.face, kind, form))


def check_dismount_profiles(scenario: Any, ruleset: Any) -> None:
    """Every ``dismount`` order names a profile of its side's troop list that fights on foot;
    else a ScenarioFileError naming the file and line."""
    from engine.rulesets.dark_age.battle import troop_of
    from scenario_builder.errors import ScenarioFileError

    for si, side in enumerate(scenario.sides):
        for mi, m in enumerate(side.manoeuvres):
            if m.manoeuvre != "dismount":
                continue
            army = scenario.army(side.id, ruleset)
            known = [p.id for p in army.profiles]
            why = None
            if m.profile not in known:
                why = f"expected a profile of {side.army} ({', '.join(known)}), got {m.profile!r}"
            else:
                p = army.profile(m.profile)
                troop = troop_of(
                    str(p.unit_type),
                    has_ranged=p.arming.ranged is not None,
                    skirmisher="skirmisher" in {str(x) for x in p.flags},
                )
                if is_mounted(troop):
                    why = (
                        f"expected a profile on foot to dismount as, got {m.profile} "
                        f"({troop.value})"
                    )
            if why is not None:
                loc = ("sides", si, "manoeuvres", mi, "profile")
                line = scenario.line_of(loc)
                where = f"line {line}: " if line else ""
                raise ScenarioFileError(
                    str(scenario.path or scenario.id), f"{where}{'.'.join(map(str, loc))}: {why}"
                )
