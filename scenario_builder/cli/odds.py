"""``scenario-builder odds``: exact (and simulated) odds of an attack or a panic test.

Attack: the hits of ``--arming`` dice (plus 3.1 outnumbering / 8.1 ordnance ranks) against
``--resilience`` after chart 7.2 cover, with the 1.1 / 8.1 die penalties. Panic: the outcomes of
one 10.5 panic test (or v0.7's rout test with ``--ruleset 2mm-earth-v0.7``). ``--simulate N``
runs the engine's own procedures N times with the seeded dice beside the exact figures.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import click

from scenario_builder.cli.options import json_option, ruleset_option, seed_option
from scenario_builder.errors import ScenarioError

UNIT_TYPES = (
    "infantry",
    "light_infantry",
    "cavalry",
    "light_cavalry",
    "wheel_cavalry",
    "war_machine",
    "baggage",
    "monster",
)
COVERS = ("open", "wet", "debris", "overhead")
V07_OPTIONS = ("other_resilience", "seen_fleeing", "seen_routing", "contact_sides")


# The range each whole-number option accepts, checked before any work. Exact odds are fractions
# over 6^dice, so the dice are kept to tables a person reads (a troop's A is 1-5, 3.1 adds one
# die a base of overlap: 20 dice and 20 bases leave room for house rules, at most 43 rows); a
# simulation runs ~400 k trials a second, so a million is a few seconds. R-like values follow
# the charts (2.3, 10.5); the counts of v0.7's situation and medieval-d10's figures and guns are
# well past any table.
BOUNDS: dict[str, tuple[int, int]] = {
    "arming": (1, 20),
    "resilience": (1, 7),
    "outnumber": (-20, 20),
    "ordnance_ranks": (1, 10),
    "leadership": (0, 3),
    "modifier": (-10, 10),
    "other_resilience": (1, 7),
    "seen_fleeing": (0, 20),
    "seen_routing": (0, 20),
    "contact_sides": (0, 3),
    "wc_mv": (-2, 14),
    "figures": (1, 200),
    "guns": (1, 20),
    "simulate": (1, 1_000_000),
}
FLAGS = {"wc_mv": "--wc-morale"}


def check_bounds(opts: dict[str, Any]) -> None:
    """A one-line error for the first whole-number option outside :data:`BOUNDS`.

    >>> check_bounds({"arming": 3, "simulate": None})
    >>> check_bounds({"arming": 200})
    Traceback (most recent call last):
    ...
    scenario_builder.cli.odds.OddsInputError: odds: expected --arming 1..20, got 200
    """
    for name, (low, high) in BOUNDS.items():
        value = opts.get(name)
        if value is not None and not low <= value <= high:
            flag = FLAGS.get(name, _flag(name))
            raise _fail(f"expected {flag} {low}..{high}, got {value}")


class OddsInputError(ScenarioError, ValueError):
    """A bad combination of ``odds`` options."""


def _fail(problem: str) -> OddsInputError:
    return OddsInputError(None, f"odds: {problem}")


def _frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}" if x.denominator != 1 else str(x.numerator)


@click.command("odds")
@click.option("--attack", "attack", metavar="melee|ranged", help="Odds of an attack's hits.")
@click.option("--panic", is_flag=True, help="Odds of one panic test (10.5).")
@click.option("--arming", type=int, help="Attack dice (A, 2.2), 1..20.")
@click.option("--resilience", "-r", type=int, help="Target's (or tester's) R, 1..7 (2.3).")
@click.option(
    "--half-range",
    "--long-range",
    "half_range",
    is_flag=True,
    help="Shooting at half range or more: -1 (1.1); ordnance -2 (8.1).",
)
@click.option("--moving", is_flag=True, help="Shooter moves this bound: -1 (2.2).")
@click.option("--skirmisher", is_flag=True, help="Shooter is a skirmisher: no moving penalty.")
@click.option("--cover", metavar="|".join(COVERS), help="Target's cover, chart 7.2.")
@click.option("--unit-type", metavar="TYPE", help=f"Target's unit type: {', '.join(UNIT_TYPES)}.")
@click.option(
    "--outnumber", type=int, default=0, help="Own bases minus enemy bases (3.1), -20..20."
)
@click.option(
    "--ordnance-ranks", type=int, help="Fire as ordnance with this many ranks (8.1), 1..10."
)
@click.option("--volley", is_flag=True, help="Flintlock volley: 2-rank ordnance (8.2).")
@click.option("--leadership", "-l", type=int, default=0, help="Highest L in the formation, 0..3.")
@click.option(
    "--modifier", "-m", type=int, default=0, help="Change to R for the panic test, -10..10."
)
@click.option("--routing", is_flag=True, help="The formation is routing: no L deducted.")
@ruleset_option
@click.option("--other-resilience", type=int, help="v0.7: the other R (lowest is used), 1..7.")
@click.option(
    "--seen-fleeing", type=int, help="v0.7: friendly formations seen fleeing (+1), 0..20."
)
@click.option(
    "--seen-routing", type=int, help="v0.7: friendly formations seen routing (+2), 0..20."
)
@click.option("--contact-sides", type=int, help="v0.7: sides in enemy contact (+1 each), 0..3.")
@click.option("--rear-contact", is_flag=True, help="v0.7: enemy in contact at the rear (+2).")
@click.option("--army-morale", is_flag=True, help="v0.7: army-morale test (9.1).")
@click.option(
    "--wc-morale",
    "wc_mv",
    type=int,
    metavar="MV",
    help="War & Conquest morale/command test against this (modified) MV, -2..14.",
)
@click.option("--flee-pursuit", is_flag=True, help="W&C: a fleeing unit caught (<= pursuer).")
@click.option("--dark-age-move", "da_troop", metavar="TROOP", help="Dark Age move roll (5.9).")
@click.option("--grade", default="B", show_default=True, help="Dark Age grade A|B|C.")
@click.option(
    "--formation",
    "da_formation",
    default="shieldwall",
    show_default=True,
    help="Dark Age formation: unformed|shieldwall|column|cuneus|single_model.",
)
@click.option("--fast", is_flag=True, help="Dark Age fast move (charge, evade, rout...).")
@click.option("--difficult", is_flag=True, help="Dark Age move in difficult terrain (5.13).")
@click.option("--weapon", help="medieval-d10: missile or melee weapon of the attackers.")
@click.option("--figures", type=int, help="medieval-d10: figures firing or fighting, 1..200.")
@click.option("--armour", help="medieval-d10: target's armour grade (super_heavy ... light).")
@click.option("--class", "troop_class", help="medieval-d10: troop class A-E or M (default C).")
@click.option("--range-band", help="medieval-d10: short, medium or long.")
@click.option("--range-cm", type=float, help="medieval-d10: range to target in cm.")
@click.option("--factor", multiple=True, metavar="KEY[=N]", help="medieval-d10: chart line.")
@click.option("--part-dice", is_flag=True, help="medieval-d10: the Part-Dice rule.")
@click.option("--automatic-kills", is_flag=True, help="medieval-d10: Automatic Kills (melee).")
@click.option("--guns", type=int, help="medieval-d10: artillery gun models firing, 1..20.")
@click.option("--morale", metavar="COLUMN", help="medieval-d10: a morale test for this reason.")
@click.option("--control", is_flag=True, help="medieval-d10: a control test.")
@click.option("--initiative", metavar="FIRST,SECOND", help="medieval-d10: commander kinds.")
@click.option("--dice-sides", type=int, help="medieval-d10 initiative: 10 (default) or 6.")
@click.option("--commander", help="medieval-d10: kind of the commander with the unit.")
@click.option("--cavalry", is_flag=True, help="medieval-d10 control test: the unit is cavalry.")
@click.option(
    "--simulate", type=int, metavar="N", help="Also roll it N times with the dice, 1..1000000."
)
@seed_option
@json_option
def odds(**opts: Any) -> None:
    """Odds of an attack (hits) or a panic test (no effect / retreat / rout), exact and simulated.

    \b
    scenario-builder odds --attack melee --arming 3 --resilience 4
    scenario-builder odds --attack ranged --arming 2 -r 4 --half-range --cover debris \\
        --unit-type infantry
    scenario-builder odds --panic -r 4 -l 1 --simulate 100000 --seed 7
    scenario-builder odds --wc-morale 7
    scenario-builder odds --flee-pursuit
    scenario-builder odds --dark-age-move heavy_infantry --grade A --formation shieldwall
    scenario-builder odds --ruleset medieval-d10 --attack ranged --weapon longbow \\
        --figures 20 --armour heavy --range-band medium --factor shields
    scenario-builder odds --ruleset medieval-d10 --morale receiving_charge --class D
    """
    from scenario_builder.cli.odds_medieval import (
        MEDIEVAL_NAMES,
        MEDIEVAL_ONLY,
        medieval_odds,
        print_medieval,
    )

    check_bounds(opts)

    if opts["ruleset"] in MEDIEVAL_NAMES:
        report = medieval_odds(opts)
        if opts["as_json"]:
            click.echo(json.dumps(report, sort_keys=True, indent=2))
        else:
            print_medieval(report)
        return
    _reject(opts, MEDIEVAL_ONLY, "2mm Earth odds (use --ruleset medieval-d10)")
    modes = [
        bool(opts["attack"]),
        opts["panic"],
        opts["wc_mv"] is not None,
        opts["flee_pursuit"],
        opts["da_troop"] is not None,
    ]
    if sum(modes) != 1:
        raise _fail(
            "expected exactly one of --attack melee|ranged, --panic, --wc-morale MV, "
            "--flee-pursuit or --dark-age-move TROOP"
        )
    if not (opts["attack"] or opts["panic"]):
        report = _module_odds(opts)
        click.echo(json.dumps(report, sort_keys=True, indent=2))
        return
    r = opts["resilience"]
    if r is None:
        raise _fail("expected --resilience R (1..7), got none")
    report = _attack(opts) if opts["attack"] else _panic(opts)
    if opts["as_json"]:
        click.echo(json.dumps(report, sort_keys=True, indent=2))
    elif opts["attack"]:
        _print_attack(report)
    else:
        _print_panic(report)


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
    "ruleset": None,
    "other_resilience": None,
    "seen_fleeing": None,
    "seen_routing": None,
    "contact_sides": None,
    "rear_contact": False,
    "army_morale": False,
}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _reject(opts: dict[str, Any], defaults: dict[str, Any], mode: str) -> None:
    for name, default in defaults.items():
        if opts[name] != default:
            raise _fail(f"{_flag(name)} does not apply to {mode}")


def _attack(opts: dict[str, Any]) -> dict[str, Any]:
    from engine.rulesets.two_mm_earth.charts import CoverClass
    from engine.rulesets.two_mm_earth.odds import (
        at_least,
        attack_distribution_exact,
        hit_chance,
        simulate_attack,
        two_mm_ruleset,
    )
    from engine.rulesets.two_mm_earth.resolution import (
        attack_need,
        ordnance_dice,
        outnumbering_bonus,
    )

    _reject(opts, _PANIC_ONLY, "--attack")
    rs = two_mm_ruleset(opts["ruleset"])  # the ruleset's own charts (a ruleset without them: error)
    kind = opts["attack"]
    if kind not in ("melee", "ranged"):
        raise _fail(f"expected --attack melee or ranged, got {kind!r}")
    arming = opts["arming"]
    if arming is None:
        raise _fail("expected --arming 1..20, got none")
    volley = opts["volley"]
    ranks = opts["ordnance_ranks"]
    if volley and ranks is None:
        ranks = 2
    ordnance = ranks is not None
    if kind == "melee":
        for name in ("half_range", "moving", "skirmisher", "volley", "ordnance_ranks"):
            if opts[name] not in (None, False):
                raise _fail(f"{_flag(name)} applies to --attack ranged only")
    elif opts["outnumber"] and not ordnance:
        raise _fail("--outnumber applies to melee (3.1) or ordnance fire (8.1) only")

    cover = (opts["cover"] or "open").lower()
    if cover not in COVERS:
        raise _fail(f"expected --cover one of {', '.join(COVERS)}, got {cover!r}")
    unit_type = opts["unit_type"]
    if unit_type is not None and unit_type not in UNIT_TYPES:
        raise _fail(f"expected --unit-type one of {', '.join(UNIT_TYPES)}, got {unit_type!r}")
    if cover != "open" and unit_type is None:
        raise _fail("--cover needs --unit-type (chart 7.2 differs by unit type)")
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
        {"hits": k, "p": float(p), "fraction": _frac(p), "p_at_least": float(tail[k])}
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
        "p_hit": _frac(hit_chance(effective_r, modifier)),
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


def _panic(opts: dict[str, Any]) -> dict[str, Any]:
    from engine.rulesets.two_mm_earth.odds import (
        panic_distribution_exact,
        simulate_panic,
        two_mm_ruleset,
    )

    _reject(opts, _ATTACK_ONLY, "--panic")
    ruleset = two_mm_ruleset(opts["ruleset"])
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
        used = ", ".join(_flag(n) for n in situation)
        raise _fail(f"{used}: v0.7 rout-test options; use --ruleset 2mm-earth-v0.7")
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
        "outcomes": {k: {"p": float(v), "fraction": _frac(v)} for k, v in exact.items()},
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


def _module_odds(opts: dict[str, Any]) -> dict[str, Any]:
    """The composed rulesets' procedures (exact, every face enumerated through the procedure):
    W&C's morale and command tests, its flee/pursuit roll-off, a Dark Age move roll."""
    if opts["wc_mv"] is not None:
        from engine.rulesets.war_and_conquest.morale import DiceMethod, Discipline
        from engine.rulesets.war_and_conquest.odds import command_pass_chance, morale_pass_chance

        mv = opts["wc_mv"]
        rows = {}
        methods = (
            (DiceMethod.TWO_D6, "2d6"),
            (DiceMethod.THREE_D6_KEEP_TWO_LOWEST, "3d6 keep two lowest"),
        )
        for method, label in methods:
            p = morale_pass_chance(mv, method)
            hero = morale_pass_chance(mv, method, combat=True)
            drilled = command_pass_chance(mv, method, Discipline.DRILLED)
            rows[label] = {
                "pass": _frac(p),
                "p": float(p),
                "combat_with_hero_of_the_day": _frac(hero),
                "drilled_command_test": _frac(drilled),
            }
        return {"mode": "wc-morale", "mv": mv, "tests": rows}
    if opts["flee_pursuit"]:
        from engine.rulesets.war_and_conquest.odds import flee_destroyed_chance

        p = flee_destroyed_chance()
        return {"mode": "flee-pursuit", "dice": "2d6 v 2d6", "destroyed": _frac(p), "p": float(p)}
    from engine.rulesets.dark_age.formations import Formation, Grade, Troop
    from engine.rulesets.dark_age.movement import JAVELIN_THROW_M, MoveKind
    from engine.rulesets.dark_age.odds import move_distribution

    names = {t.name.lower(): t for t in Troop}
    troop = names.get(opts["da_troop"].lower())
    if troop is None:
        raise _fail(f"expected --dark-age-move one of {', '.join(names)}, got {opts['da_troop']!r}")
    try:
        grade = Grade(opts["grade"].upper())
        form = Formation[opts["da_formation"].upper()]
    except (ValueError, KeyError):
        raise _fail(
            f"expected --grade A|B|C and --formation one of "
            f"{', '.join(f.name.lower() for f in Formation)}, got {opts['grade']!r}, "
            f"{opts['da_formation']!r}"
        ) from None
    kind = MoveKind.FAST if opts["fast"] else MoveKind.NORMAL
    d = move_distribution(troop, grade, form, kind, difficult=opts["difficult"])
    return {
        "mode": "dark-age-move",
        "troop": troop.name.lower(),
        "grade": grade.value,
        "formation": form.name.lower(),
        "kind": kind.value,
        "difficult": opts["difficult"],
        "javelin_throw_m": JAVELIN_THROW_M,
        "allowance_jt": {str(k): _frac(v) for k, v in d.allowance.items()},
        "mean_jt": _frac(d.mean_jt),
        "dp_chance": _frac(d.dp_chance),
    }


def _pct(p: float) -> str:
    return f"{100 * p:.2f}%"


def _print_attack(rep: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

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
    table = Table()
    table.add_column("hits", justify="right")
    table.add_column("P(k)", justify="right")
    table.add_column("exact", justify="right")
    table.add_column("P(>=k)", justify="right")
    if sim:
        table.add_column(f"simulated ({sim['trials']}, seed {sim['seed']})", justify="right")
    for row in rep["distribution"]:
        cells = [str(row["hits"]), _pct(row["p"]), row["fraction"], _pct(row["p_at_least"])]
        if sim:
            cells.append(_pct(row["simulated"]))
        table.add_row(*cells)
    console = Console(highlight=False)
    console.print(title, markup=False, soft_wrap=True)
    console.print(table)
    line = f"expected hits: {rep['expected_hits']:.3f}"
    if sim:
        line += f" (simulated {sim['expected_hits']:.3f})"
    console.print(line)


def _print_panic(rep: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    sim = rep.get("simulation")
    extra = "".join(f", {k} {v}" for k, v in rep["situation"].items())
    title = (
        f"panic test ({rep['ruleset']}): R{rep['resilience']} modifier {rep['modifier']:+d}, "
        f"L{rep['leadership']}{' routing' if rep['routing'] else ''}{extra}"
    )
    table = Table()
    table.add_column("outcome")
    table.add_column("P", justify="right")
    table.add_column("exact", justify="right")
    if sim:
        table.add_column(f"simulated ({sim['trials']}, seed {sim['seed']})", justify="right")
    labels = {"none": "no effect", "retreat": "retreat", "rout": "rout"}
    for key, row in rep["outcomes"].items():
        cells = [labels[key], _pct(row["p"]), row["fraction"]]
        if sim:
            cells.append(_pct(row["simulated"]))
        table.add_row(*cells)
    console = Console(highlight=False)
    console.print(title, markup=False, soft_wrap=True)
    console.print(table)
