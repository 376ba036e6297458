"""``scenario-builder odds``: exact (and simulated) odds of an attack or a panic test.

Attack: the hits of ``--arming`` dice (plus 3.1 outnumbering / 8.1 ordnance ranks) against
``--resilience`` after chart 7.2 cover, with the 1.1 / 8.1 die penalties. Panic: the outcomes of
one 10.5 panic test (or v0.7's rout test with ``--ruleset 2mm-earth-v0.7``). ``--simulate N``
runs the engine's own procedures N times with the seeded dice beside the exact figures.
"""

from __future__ import annotations

import json
from typing import Any

import click

from engine.rulesets.odds_options import fail as _fail
from engine.rulesets.odds_options import flag as _flag
from engine.rulesets.odds_options import reject as _reject
from scenario_builder.cli.options import json_option, ruleset_option, seed_option
from scenario_builder.errors import OddsInputError, RulesetError

__all__ = ["OddsInputError", "check_bounds", "odds"]

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
    scenario_builder.errors.OddsInputError: odds: expected --arming 1..20, got 200
    """
    for name, (low, high) in BOUNDS.items():
        value = opts.get(name)
        if value is not None and not low <= value <= high:
            flag = FLAGS.get(name, _flag(name))
            raise _fail(f"expected {flag} {low}..{high}, got {value}")


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
    from engine.rulesets import get_ruleset, odds_rulesets
    from scenario_builder.cli.odds_medieval import print_medieval

    check_bounds(opts)
    # each ruleset answers its own questions (Ruleset.odds_questions, odds_report); the
    # command's own options are 2mm Earth's vocabulary, read by that family's rulesets
    named = get_ruleset(opts["ruleset"])
    if named.odds_options:  # a book with its own options answers every question itself
        report = named.odds_report(opts)
        if opts["as_json"]:
            click.echo(json.dumps(report, sort_keys=True, indent=2))
        else:
            print_medieval(report)
        return
    books = odds_rulesets()
    for other in books:
        if other.odds_options:
            _reject(opts, other.odds_options, f"2mm Earth odds (use --ruleset {other.name})")
    modes = {
        "attack": bool(opts["attack"]),
        "panic": opts["panic"],
        "wc_mv": opts["wc_mv"] is not None,
        "flee_pursuit": opts["flee_pursuit"],
        "da_troop": opts["da_troop"] is not None,
    }
    asked = [q for q, on in modes.items() if on]
    if len(asked) != 1:
        raise _fail(
            "expected exactly one of --attack melee|ranged, --panic, --wc-morale MV, "
            "--flee-pursuit or --dark-age-move TROOP"
        )
    question = asked[0]
    if question not in ("attack", "panic"):
        # a composed book's own test: answered whichever ruleset is named (as it always was)
        rs = next(b for b in [named, *books] if question in b.odds_questions)
        click.echo(json.dumps(rs.odds_report(opts), sort_keys=True, indent=2))
        return
    if opts["resilience"] is None:
        raise _fail("expected --resilience R (1..7), got none")
    if question not in named.odds_questions:
        raise RulesetError(
            None, f"ruleset {named.name} has no 2mm Earth odds (2.3 attack dice, 10.5 panic test)"
        )
    report = named.odds_report(opts)
    if opts["as_json"]:
        click.echo(json.dumps(report, sort_keys=True, indent=2))
    elif question == "attack":
        _print_attack(report)
    else:
        _print_panic(report)


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
