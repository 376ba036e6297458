"""Shooting (1.1, 2.2-2.3, 8.1-8.2): who may shoot, at what, how many dice, what penalties.

- Only formations with ranged arming shoot, with the lowest ranged arming among their shooting
  bases (5.1: the lowest-value rule applies to mixed missile strengths, not to missiles mixed
  with non-missiles). Range is measured between the nearest points of the two formations.
- Orders (9.1): Attack shoots; Hold holds fire; Advance shoots on the move (not NM&F); with no
  order, troops fire at an enemy in range unless last commanded to Hold; retreating and routing
  troops do not shoot; formations in combat do not shoot (docs/rules-interpretations.md, 3.2).
- A target must be seen (6.2) unless the shooter has the ``indirect`` flag and fires Ordnance.
  Enemy formations in contact with our own troops are not shot at.
- Dice: the ranged arming value. Ordnance (8.1) and volleys (8.2) add the 3.1 outnumbering bonus
  of the shooters (front rank + 1 per extra rank, :func:`resolution.ordnance_dice`) over
  the target's facing rank. A formation fires Ordnance when it expects more hits that way, never
  from overhead cover; ``ordnance_only`` troops can only fire Ordnance.
- Penalties from :func:`resolution.shooting_modifier`; the target's R is its facing rank's
  ranged R (11.3 mean for mixed ranks) changed by chart 7.2 cover and -1 retreating / -2 routing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from engine.dice import Dice
from engine.rulesets.two_mm_earth.charts import CoverClass
from engine.rulesets.two_mm_earth.profiles import Flag, profile_of
from engine.rulesets.two_mm_earth.resolution import (
    AttackResult,
    attack_need,
    mean_resilience,
    ordnance_dice,
    outnumbering_bonus,
    shooting_modifier,
)
from engine.state import Base, Formation, Morale

if TYPE_CHECKING:
    from engine.rulesets.two_mm_earth.rulesets import TwoMmEarth


__all__ = ["ShotPlan", "choose_mode", "ranged_arming", "shooting_bases", "target_resilience"]

STATE_R = {Morale.STEADY: 0, Morale.RETREATING: -1, Morale.ROUTING: -2, Morale.DESTROYED: 0}


@dataclass(slots=True)
class ShotPlan:
    shooter: str
    target: str
    mode: str  # normal | ordnance | volley
    distance_m: float
    moving: bool


def _shooters(f: Formation) -> list[Any]:
    """The living bases with ranged arming (do not change the list): asked ~10^4 times a
    battle, so kept with the formation's revision (``Formation.kept``: its bases, their
    status and profiles); typed Any, 2mm Earth's profiles, no cast per base."""
    kept = f.kept()
    hit = kept.get("shooting_bases")
    if hit is None:
        alive: list[Any] = f.alive_bases
        hit = kept["shooting_bases"] = [b for b in alive if b.profile.arming.ranged]
    return cast("list[Any]", hit)


def shooting_bases(f: Formation) -> list[Base]:
    return list(_shooters(f))


def ranged_arming(f: Formation) -> int:
    bases = _shooters(f)
    return min(b.profile.arming.ranged or 0 for b in bases) if bases else 0


def range_m(f: Formation) -> float:
    kept = f.kept()
    hit = kept.get("range_m")
    if hit is None:
        bases = _shooters(f)
        hit = kept["range_m"] = min(b.profile.range_m for b in bases) if bases else 0.0
    return cast(float, hit)


def all_have(bases: list[Base], flag: Flag) -> bool:
    return bool(bases) and all(b.profile.has(flag) for b in bases)


def facing_r(target: Formation, toward: tuple[float, float], kind: str) -> int:
    """11.3: the mean R (rounded down) of the rank under attack."""
    rank = target.rank_of(target.side_toward(*toward))
    vals = [getattr(profile_of(b.profile).resilience, kind) for b in rank] or [
        getattr(profile_of(target.profile).resilience, kind)
    ]
    return mean_resilience(vals)


def target_resilience(
    target: Formation, toward: tuple[float, float], kind: str, cover: int, ruleset: TwoMmEarth
) -> int:
    """R to beat: facing rank R, chart 7.2 cover, 11.1 retreating -1 / routing -2."""
    r = facing_r(target, toward, kind)
    r += ruleset.cover_modifier(target.unit_type, cover, kind)
    return r + STATE_R[target.morale]


def shooter_counts(f: Formation, toward: tuple[float, float]) -> tuple[int, int]:
    """(shooting bases in the rank facing the target, ranks holding shooters)."""
    bases = _shooters(f)
    if not bases:
        return 0, 0
    side = f.side_toward(*toward)
    if f.loose:
        return len(bases), 1
    by_rank = side in ("front", "rear")

    def key(b: Base) -> int:
        return b.rank if by_rank else b.file

    groups = sorted({key(b) for b in bases})
    edge = groups[0] if side in ("front", "left") else groups[-1]
    return sum(1 for b in bases if key(b) == edge), len(groups)


def choose_mode(
    f: Formation,
    *,
    n_front: int,
    ranks: int,
    enemy_facing: int,
    resilience: int,
    half_range: bool,
    moving: bool,
    into_overhead: bool,
    shooter_in_overhead: bool,
    modifier_fn: Callable[..., int] = shooting_modifier,
) -> tuple[str, int, int] | None:
    """(mode, dice, die modifier) with the most expected hits, or None if it cannot shoot.
    ``modifier_fn``: the ruleset's die penalties (``Ruleset.shooting_modifier``)."""
    bases = _shooters(f)
    a = ranged_arming(f)
    if not bases or a <= 0:
        return None
    skirm = all_have(bases, Flag.SKIRMISHER)
    options: list[tuple[str, int, int]] = []
    only = all_have(bases, Flag.ORDNANCE_ONLY)
    if not only:
        options.append(
            (
                "normal",
                a,
                modifier_fn(half_range_or_more=half_range, moving=moving, skirmisher=skirm),
            )
        )
    # 8.1: no ordnance from overhead cover
    if not shooter_in_overhead:
        if all_have(bases, Flag.ORDNANCE) or only:
            n = a + outnumbering_bonus(ordnance_dice(n_front, ranks), enemy_facing)
            options.append(
                (
                    "ordnance",
                    n,
                    modifier_fn(
                        half_range_or_more=half_range,
                        moving=moving,
                        skirmisher=skirm,
                        ordnance=True,
                        into_overhead=into_overhead,
                    ),
                )
            )
        if all_have(bases, Flag.VOLLEYS):
            n = a + outnumbering_bonus(ordnance_dice(n_front, ranks, volley=True), enemy_facing)
            options.append(
                (
                    "volley",
                    n,
                    modifier_fn(
                        half_range_or_more=half_range,
                        moving=moving,
                        skirmisher=skirm,
                        volley=True,
                        into_overhead=into_overhead,
                    ),
                )
            )
    if not options:
        return None

    def expected(opt: tuple[str, int, int]) -> float:
        need = attack_need(resilience, opt[2])
        return opt[1] * max(0, 7 - need) / 6.0  # 2.3: a need of 7+ never hits

    return max(options, key=expected)  # first listed (normal) wins ties


def resolve_shot(
    ruleset: TwoMmEarth,
    dice: Dice,
    f: Formation,
    target: Formation,
    n: int,
    resilience: int,
    modifier: int,
    mode: str,
) -> AttackResult:
    """2.2-2.3 through the ruleset's attack roll (``Ruleset.roll_attack``)."""
    purpose = f"shoot {f.id}->{target.id} {mode}"
    result: AttackResult = ruleset.roll_attack(dice, n, resilience, modifier, purpose)
    return result


def in_overhead(classes: list[int]) -> bool:
    return int(CoverClass.OVERHEAD) in classes
