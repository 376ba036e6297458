"""``scenario-builder odds`` for 2mm Earth (v0.9 and v0.7): an attack's hits, a panic test.

Attack: the hits of ``--arming`` dice (plus 3.1 outnumbering / 8.1 ordnance ranks) against
``--resilience`` after chart 7.2 cover, with the 1.1 / 8.1 die penalties. Panic: the outcomes of
one 10.5 panic test (or v0.7's rout test, 5.2). ``--simulate N`` runs the engine's own
procedures N times with the seeded dice beside the exact figures
(:mod:`engine.rulesets.two_mm_earth.odds`). The ruleset's :meth:`odds_report` answers with
these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.rulesets.odds_options import OddsOptions, fail, flag, frac, reject
from engine.rulesets.two_mm_earth.charts import CoverClass, UnitType

if TYPE_CHECKING:
    from engine.rulesets.two_mm_earth.rulesets import TwoMmEarth

__all__ = ["attack_report", "panic_report"]

UNIT_TYPES = tuple(u.value for u in UnitType)
COVERS = tuple(c.name.lower() for c in CoverClass)
V07_OPTIONS = ("other_resilience", "seen_fleeing", "seen_routing", "contact_sides")

#: the options only one of the two questions reads, with their defaults
_ATTACK_ONLY = {
    "arming": None,
    "half_range": False,
    "moving": False,
    "skirmisher": False,
    "cover": None,
    "unit_type": None,
    "outnumber": 0,
    "ordnance_ranks": None,
    "volley": False,
}
_PANIC_ONLY = {
    "leadership": 0,
    "modifier": 0,
    "routing": False,
    # the attack dice are the same in every 2mm Earth version (2.2-2.3): --ruleset picks the
    # panic test's version only
    "ruleset": None,
    "other_resilience": None,
    "seen_fleeing": None,
    "seen_routing": None,
    "contact_sides": None,
    "rear_contact": False,
    "army_morale": False,
}


def attack_report(opts: OddsOptions, rs: TwoMmEarth) -> dict[str, Any]:
    """``--attack melee|ranged``: the distribution of hits, exact (and simulated)."""
    from engine.rulesets.two_mm_earth.odds import (
        at_least,
        attack_distribution_exact,
        hit_chance,
        simulate_attack,
    )
    from engine.rulesets.two_mm_earth.resolution import (
        attack_need,
        ordnance_dice,
        outnumbering_bonus,
    )

    reject(opts, _PANIC_ONLY, "--attack")
    kind = opts["attack"]
    if kind not in ("melee", "ranged"):
        raise fail(f"expected --attack melee or ranged, got {kind!r}")
    arming = opts["arming"]
    if arming is None:
        raise fail("expected --arming 1..20, got none")
    volley = opts["volley"]
    ranks = opts["ordnance_ranks"]
    if volley and ranks is None:
        ranks = 2
    ordnance = ranks is not None
    if kind == "melee":
        for name in ("half_range", "moving", "skirmisher", "volley", "ordnance_ranks"):
            if opts[name] not in (None, False):
                raise fail(f"{flag(name)} applies to --attack ranged only")
    elif opts["outnumber"] and not ordnance:
        raise fail("--outnumber applies to melee (3.1) or ordnance fire (8.1) only")

    cover = (opts["cover"] or "open").lower()
    if cover not in COVERS:
        raise fail(f"expected --cover one of {', '.join(COVERS)}, got {cover!r}")
    unit_type = opts["unit_type"]
    if unit_type is not None and unit_type not in UNIT_TYPES:
        raise fail(f"expected --unit-type one of {', '.join(UNIT_TYPES)}, got {unit_type!r}")
    if cover != "open" and unit_type is None:
        raise fail("--cover needs --unit-type (chart 7.2 differs by unit type)")
    cover_class = CoverClass[cover.upper()]
    cover_mod = rs.cover_modifier(unit_type, cover_class, kind) if unit_type else 0
    effective_r = opts["resilience"] + cover_mod

    extra_ranks = ordnance_dice(1, ranks, volley) - 1 if ordnance else 0
    bonus = outnumbering_bonus(opts["outnumber"] + extra_ranks, 0)
    n_dice = arming + bonus
    if kind == "ranged":
        modifier = rs.shooting_modifier(
            half_range_or_more=opts["half_range"],
            moving=opts["moving"],
            skirmisher=opts["skirmisher"],
            ordnance=ordnance,
            into_overhead=cover_class is CoverClass.OVERHEAD,
            volley=volley,
        )
    else:
        modifier = 0
    exact = attack_distribution_exact(n_dice, effective_r, modifier)
    tail = at_least(exact)
    rows: list[dict[str, Any]] = [
        {"hits": k, "p": float(p), "fraction": frac(p), "p_at_least": float(tail[k])}
        for k, p in enumerate(exact)
    ]
    report: dict[str, Any] = {
        "mode": "attack",
        "attack": kind,
        "arming": arming,
        "bonus_dice": bonus,
        "dice": n_dice,
        "resilience": opts["resilience"],
        "cover": cover,
        "unit_type": unit_type,
        "cover_modifier": cover_mod,
        "effective_resilience": effective_r,
        "die_modifier": modifier,
        "ordnance_ranks": ranks,
        "volley": volley,
        "need": attack_need(effective_r, modifier),
        "p_hit": frac(hit_chance(effective_r, modifier)),
        "expected_hits": float(sum(k * p for k, p in enumerate(exact))),
        "distribution": rows,
    }
    if opts["simulate"]:
        sim = simulate_attack(
            n_dice, effective_r, modifier, trials=opts["simulate"], seed=opts["seed"]
        )
        for row, freq in zip(rows, sim, strict=True):
            row["simulated"] = freq
        report["simulation"] = {
            "trials": opts["simulate"],
            "seed": opts["seed"],
            "expected_hits": sum(k * f for k, f in enumerate(sim)),
        }
    return report


def panic_report(opts: OddsOptions, ruleset: TwoMmEarth) -> dict[str, Any]:
    """``--panic``: one panic test's outcomes under ``ruleset`` (v0.7: its rout test, 5.2)."""
    from engine.rulesets.two_mm_earth.odds import panic_distribution_exact, simulate_panic

    reject(opts, _ATTACK_ONLY, "--panic")
    leadership = opts["leadership"]
    situation: dict[str, Any] = {}
    for name in V07_OPTIONS:
        value = opts[name]
        if value is None:
            continue
        situation[name] = value
    for name in ("rear_contact", "army_morale"):
        if opts[name]:
            situation[name] = True
    if situation and ruleset.panic_dice != 1:
        used = ", ".join(flag(n) for n in situation)
        raise fail(f"{used}: v0.7 rout-test options; use --ruleset 2mm-earth-v0.7")
    exact = panic_distribution_exact(
        opts["resilience"],
        leadership,
        opts["modifier"],
        ruleset,
        routing=opts["routing"],
        **situation,
    )
    report: dict[str, Any] = {
        "mode": "panic",
        "ruleset": ruleset.name,
        "resilience": opts["resilience"],
        "leadership": leadership,
        "modifier": opts["modifier"],
        "routing": opts["routing"],
        "situation": situation,
        "outcomes": {k: {"p": float(v), "fraction": frac(v)} for k, v in exact.items()},
    }
    if opts["simulate"]:
        sim = simulate_panic(
            opts["resilience"],
            leadership,
            opts["modifier"],
            ruleset,
            trials=opts["simulate"],
            seed=opts["seed"],
            routing=opts["routing"],
            **situation,
        )
        for k, freq in sim.items():
            report["outcomes"][k]["simulated"] = freq
        report["simulation"] = {"trials": opts["simulate"], "seed": opts["seed"]}
    return report
