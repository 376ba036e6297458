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

from engine.odds_options import (
    OddsOption,
    OddsOptions,
    OddsTable,
    OptionKind,
    fail,
    flag,
    frac,
    pct,
    reject,
)
from engine.rulesets.two_mm_earth.charts import CoverClass, UnitType

if TYPE_CHECKING:
    from engine.rulesets.two_mm_earth.rulesets import TwoMmEarth

__all__ = [
    "ODDS_FLAGS",
    "ODDS_FLAGS_V07",
    "attack_report",
    "attack_table",
    "panic_report",
    "panic_table",
]

UNIT_TYPES = tuple(u.value for u in UnitType)
COVERS = tuple(c.name.lower() for c in CoverClass)
V07_OPTIONS = ("other_resilience", "seen_fleeing", "seen_routing", "contact_sides")

_INT, _FLAG = OptionKind.INT, OptionKind.FLAG
# The range each whole-number option accepts, checked before any work. Exact odds are fractions
# over 6^dice, so the dice are kept to tables a person reads (a troop's A is 1-5, 3.1 adds one
# die a base of overlap: 20 dice and 20 bases leave room for house rules, at most 43 rows). R-like
# values follow the charts (2.3, 10.5); v0.7's situation counts are well past any table.
#: ``odds --attack`` (2.2-2.3 with chart 7.2, 3.1, 8.1) and ``odds --panic`` (10.5)
ODDS_FLAGS: tuple[OddsOption, ...] = (
    OddsOption("attack", ("--attack",), "Odds of an attack's hits.", metavar="melee|ranged"),
    OddsOption("panic", ("--panic",), "Odds of one panic test (10.5).", _FLAG),
    OddsOption("arming", ("--arming",), "Attack dice (A, 2.2), 1..20.", _INT, bounds=(1, 20)),
    OddsOption(
        "resilience",
        ("--resilience", "-r"),
        "Target's (or tester's) R, 1..7 (2.3).",
        _INT,
        bounds=(1, 7),
    ),
    OddsOption(
        "half_range",
        ("--half-range", "--long-range"),
        "Shooting at half range or more: -1 (1.1); ordnance -2 (8.1).",
        _FLAG,
    ),
    OddsOption("moving", ("--moving",), "Shooter moves this bound: -1 (2.2).", _FLAG),
    OddsOption(
        "skirmisher", ("--skirmisher",), "Shooter is a skirmisher: no moving penalty.", _FLAG
    ),
    OddsOption("cover", ("--cover",), "Target's cover, chart 7.2.", metavar="|".join(COVERS)),
    OddsOption(
        "unit_type",
        ("--unit-type",),
        f"Target's unit type: {', '.join(UNIT_TYPES)}.",
        metavar="TYPE",
    ),
    OddsOption(
        "outnumber",
        ("--outnumber",),
        "Own bases minus enemy bases (3.1), -20..20.",
        _INT,
        default=0,
        bounds=(-20, 20),
    ),
    OddsOption(
        "ordnance_ranks",
        ("--ordnance-ranks",),
        "Fire as ordnance with this many ranks (8.1), 1..10.",
        _INT,
        bounds=(1, 10),
    ),
    OddsOption("volley", ("--volley",), "Flintlock volley: 2-rank ordnance (8.2).", _FLAG),
    OddsOption(
        "leadership",
        ("--leadership", "-l"),
        "Highest L in the formation, 0..3.",
        _INT,
        default=0,
        bounds=(0, 3),
    ),
    OddsOption(
        "modifier",
        ("--modifier", "-m"),
        "Change to R for the panic test, -10..10.",
        _INT,
        default=0,
        bounds=(-10, 10),
    ),
    OddsOption("routing", ("--routing",), "The formation is routing: no L deducted.", _FLAG),
)
#: v0.7's rout test (5.2) reads the situation besides
ODDS_FLAGS_V07: tuple[OddsOption, ...] = (
    *ODDS_FLAGS,
    OddsOption(
        "other_resilience",
        ("--other-resilience",),
        "v0.7: the other R (lowest is used), 1..7.",
        _INT,
        bounds=(1, 7),
    ),
    OddsOption(
        "seen_fleeing",
        ("--seen-fleeing",),
        "v0.7: friendly formations seen fleeing (+1), 0..20.",
        _INT,
        bounds=(0, 20),
    ),
    OddsOption(
        "seen_routing",
        ("--seen-routing",),
        "v0.7: friendly formations seen routing (+2), 0..20.",
        _INT,
        bounds=(0, 20),
    ),
    OddsOption(
        "contact_sides",
        ("--contact-sides",),
        "v0.7: sides in enemy contact (+1 each), 0..3.",
        _INT,
        bounds=(0, 3),
    ),
    OddsOption(
        "rear_contact", ("--rear-contact",), "v0.7: enemy in contact at the rear (+2).", _FLAG
    ),
    OddsOption("army_morale", ("--army-morale",), "v0.7: army-morale test (9.1).", _FLAG),
)

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


def attack_table(rep: dict[str, Any]) -> OddsTable:
    """How ``odds --attack`` prints :func:`attack_report`: P(k hits), P(at least k), exact."""
    sim = rep.get("simulation")
    bonus = f" + {rep['bonus_dice']} bonus" if rep["bonus_dice"] else ""
    cover = f", {rep['cover']} cover {rep['cover_modifier']:+d}" if rep["unit_type"] else ""
    # 2.3: no natural 6, so a need above 6 means the attack cannot hit at all
    hits_on = (
        f"each die hits on {rep['need']}+"
        if rep["need"] <= 6
        else f"needs {rep['need']}+ on a d6: cannot hit (2.3)"
    )
    title = (
        f"{rep['attack']} attack: {rep['dice']} dice (A{rep['arming']}{bonus}) vs "
        f"R{rep['resilience']}{cover} -> R{rep['effective_resilience']}, die modifier "
        f"{rep['die_modifier']:+d}: {hits_on} (p = {rep['p_hit']})"
    )
    columns = [("hits", True), ("P(k)", True), ("exact", True), ("P(>=k)", True)]
    if sim:
        columns.append((f"simulated ({sim['trials']}, seed {sim['seed']})", True))
    rows = []
    for row in rep["distribution"]:
        cells = [str(row["hits"]), pct(row["p"]), row["fraction"], pct(row["p_at_least"])]
        if sim:
            cells.append(pct(row["simulated"]))
        rows.append(tuple(cells))
    footer = f"expected hits: {rep['expected_hits']:.3f}"
    if sim:
        footer += f" (simulated {sim['expected_hits']:.3f})"
    return OddsTable(title, tuple(columns), tuple(rows), footer)


def panic_table(rep: dict[str, Any]) -> OddsTable:
    """How ``odds --panic`` prints :func:`panic_report`: P(no effect / retreat / rout)."""
    sim = rep.get("simulation")
    extra = "".join(f", {k} {v}" for k, v in rep["situation"].items())
    title = (
        f"panic test ({rep['ruleset']}): R{rep['resilience']} modifier {rep['modifier']:+d}, "
        f"L{rep['leadership']}{' routing' if rep['routing'] else ''}{extra}"
    )
    columns = [("outcome", False), ("P", True), ("exact", True)]
    if sim:
        columns.append((f"simulated ({sim['trials']}, seed {sim['seed']})", True))
    labels = {"none": "no effect", "retreat": "retreat", "rout": "rout"}
    rows = []
    for key, row in rep["outcomes"].items():
        cells = [labels[key], pct(row["p"]), row["fraction"]]
        if sim:
            cells.append(pct(row["simulated"]))
        rows.append(tuple(cells))
    return OddsTable(title, tuple(columns), tuple(rows))
