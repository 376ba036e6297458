"""``scenario-builder odds --ruleset medieval-d10``: the medieval d10 game's procedures.

One of: ``--attack ranged|melee`` (figures killed by ``--figures`` firing or fighting with
``--weapon`` against ``--armour``; artillery with ``--guns``), ``--morale COLUMN`` (a morale
test's result distribution), ``--control`` (a control test), ``--initiative FIRST,SECOND``
(commander kinds). Modifier lines of the book's charts are named with ``--factor KEY[=COUNT]``;
``-m`` adds a raw modifier. Exact odds are fractions; ``--simulate N`` runs the engine's own
procedures N times with the seeded dice. The ruleset's ``odds_report`` answers with these;
the command prints them.
"""

from __future__ import annotations

from typing import Any

from engine.odds_options import (
    OddsOption,
    OddsOptions,
    OddsTable,
    OptionKind,
    defaults,
    pct,
)
from engine.odds_options import fail as _odds_fail
from engine.odds_options import frac as _frac
from scenario_builder.errors import OddsInputError

__all__ = ["MEDIEVAL_ONLY", "ODDS_FLAGS", "medieval_odds", "odds_table"]

_INT, _FLAG = OptionKind.INT, OptionKind.FLAG
#: the ``odds`` options this book's questions read (attack, morale, control, initiative)
ODDS_FLAGS: tuple[OddsOption, ...] = (
    OddsOption("weapon", ("--weapon",), "medieval-d10: missile or melee weapon of the attackers."),
    OddsOption(
        "figures",
        ("--figures",),
        "medieval-d10: figures firing or fighting, 1..200.",
        _INT,
        bounds=(1, 200),
    ),
    OddsOption(
        "armour", ("--armour",), "medieval-d10: target's armour grade (super_heavy ... light)."
    ),
    OddsOption("troop_class", ("--class",), "medieval-d10: troop class A-E or M (default C)."),
    OddsOption("range_band", ("--range-band",), "medieval-d10: short, medium or long."),
    OddsOption(
        "range_cm", ("--range-cm",), "medieval-d10: range to target in cm.", OptionKind.FLOAT
    ),
    OddsOption(
        "factor", ("--factor",), "medieval-d10: chart line.", metavar="KEY[=N]", multiple=True
    ),
    OddsOption("part_dice", ("--part-dice",), "medieval-d10: the Part-Dice rule.", _FLAG),
    OddsOption(
        "automatic_kills", ("--automatic-kills",), "medieval-d10: Automatic Kills (melee).", _FLAG
    ),
    OddsOption(
        "guns",
        ("--guns",),
        "medieval-d10: artillery gun models firing, 1..20.",
        _INT,
        bounds=(1, 20),
    ),
    OddsOption(
        "morale", ("--morale",), "medieval-d10: a morale test for this reason.", metavar="COLUMN"
    ),
    OddsOption("control", ("--control",), "medieval-d10: a control test.", _FLAG),
    OddsOption(
        "initiative", ("--initiative",), "medieval-d10: commander kinds.", metavar="FIRST,SECOND"
    ),
    OddsOption(
        "dice_sides", ("--dice-sides",), "medieval-d10 initiative: 10 (default) or 6.", _INT
    ),
    OddsOption("commander", ("--commander",), "medieval-d10: kind of the commander with the unit."),
    OddsOption("cavalry", ("--cavalry",), "medieval-d10 control test: the unit is cavalry.", _FLAG),
)
#: odds options that belong to this ruleset only, with their defaults
MEDIEVAL_ONLY: dict[str, Any] = defaults(ODDS_FLAGS)


def _fail(problem: str) -> OddsInputError:
    return _odds_fail(problem, "odds --ruleset medieval-d10")


def _choice(enum: type[Any], value: str | None, flag: str) -> Any:
    if value is None:
        raise _fail(f"expected {flag} ({', '.join(e.value for e in enum)}), got none")
    for candidate in (value, value.lower(), value.upper()):
        try:
            return enum(candidate)
        except ValueError:
            continue
    raise _fail(f"expected {flag} one of {', '.join(e.value for e in enum)}, got {value!r}")


def _troop_class(opts: OddsOptions) -> Any:
    from engine.rulesets.medieval_d10.charts import TroopClass

    if opts["troop_class"] is None:
        return TroopClass.C
    return _choice(TroopClass, opts["troop_class"], "--class")


def _factors(opts: OddsOptions, table: dict[str, Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for text in opts["factor"]:
        key, _, count = text.partition("=")
        if key not in table:
            raise _fail(f"expected --factor one of {', '.join(table)}, got {key!r}")
        try:
            out[key] = int(count) if count else 1
        except ValueError:
            raise _fail(f"expected --factor {key}=COUNT with a whole count, got {text!r}") from None
    return out


def medieval_odds(opts: OddsOptions) -> dict[str, Any]:
    """The report for one medieval-d10 question (see the module docstring)."""
    modes = [
        name
        for name, on in (
            ("attack", opts["attack"]),
            ("morale", opts["morale"]),
            ("control", opts["control"]),
            ("initiative", opts["initiative"]),
        )
        if on
    ]
    if len(modes) != 1:
        raise _fail(
            "expected exactly one of --attack ranged|melee, --morale, --control, --initiative"
        )
    if opts["panic"]:
        raise _fail("--panic is 2mm Earth's test; use --morale COLUMN or --control")
    for name in ("arming", "resilience", "cover", "unit_type", "ordnance_ranks"):
        if opts.get(name) is not None:
            raise _fail(f"--{name.replace('_', '-')} is a 2mm Earth option")
    return {
        "attack": _attack,
        "morale": _morale,
        "control": _control,
        "initiative": _initiative,
    }[modes[0]](opts)


def _attack(opts: OddsOptions) -> dict[str, Any]:
    from engine.rulesets.medieval_d10 import odds as mo
    from engine.rulesets.medieval_d10.charts import (
        FIRING_MODIFIERS,
        MELEE_MODIFIERS,
        ArmourGrade,
        MissileWeapon,
        RangeBand,
        range_band,
    )
    from engine.rulesets.medieval_d10.procedures import firing_need, melee_need
    from engine.rulesets.medieval_d10.units import MELEE_ROW_OF, MeleeWeapon

    kind = opts["attack"]
    if kind not in ("ranged", "melee"):
        raise _fail(f"expected --attack ranged or melee, got {kind!r}")
    armour = _choice(ArmourGrade, opts["armour"], "--armour")
    troop_class = _troop_class(opts)
    report: dict[str, Any] = {"mode": "attack", "ruleset": "medieval-d10", "attack": kind}
    if kind == "ranged":
        weapon = _choice(MissileWeapon, opts["weapon"], "--weapon")
        if opts["range_cm"] is not None:
            band = range_band(weapon, opts["range_cm"])
            if band is None:
                raise _fail(f"{opts['range_cm']} cm is beyond {weapon.value}'s long range")
        else:
            band = _choice(RangeBand, opts["range_band"], "--range-band (or --range-cm)")
        factors = _factors(opts, FIRING_MODIFIERS)
        need = firing_need(weapon, band, armour, troop_class, factors)
        report |= {"weapon": weapon.value, "range_band": band.value}
    else:
        if opts["range_cm"] is not None or opts["range_band"] is not None:
            raise _fail("--range-cm / --range-band apply to --attack ranged only")
        weapon = _choice(MeleeWeapon, opts["weapon"], "--weapon")
        factors = _factors(opts, MELEE_MODIFIERS)
        need = melee_need(MELEE_ROW_OF[weapon], troop_class, armour, factors)
        report |= {"weapon": weapon.value}
    need = min(10, max(2, need + opts["modifier"]))
    report |= {
        "armour": armour.value,
        "class": troop_class.value,
        "factors": factors,
        "modifier": opts["modifier"],
        "need": need,
    }
    if kind == "ranged" and weapon.is_artillery:
        guns = opts["guns"]
        if guns is None or guns < 1:
            raise _fail(f"expected --guns >= 1 for artillery, got {guns}")
        if opts["figures"] is not None or opts["part_dice"] or opts["automatic_kills"]:
            raise _fail("artillery rolls one d10 per gun: use --guns, not --figures")
        exact = mo.artillery_distribution_exact(guns, need)
        dist, booms = exact["kills"], exact["explosions"]
        report |= {"guns": guns, "p_any_explosion": _frac(1 - booms[0])}
    else:
        figures = opts["figures"]
        if figures is None or figures < 1:
            raise _fail(f"expected --figures >= 1, got {figures}")
        if opts["automatic_kills"] and kind == "ranged":
            raise _fail("--automatic-kills are made in the melee phase only")
        dist = mo.casualty_distribution_exact(
            figures, need, automatic_kills=opts["automatic_kills"], part_dice=opts["part_dice"]
        )
        report |= {
            "figures": figures,
            "part_dice": opts["part_dice"],
            "automatic_kills": opts["automatic_kills"],
        }
    report["expected_kills"] = float(mo.expected(dist))
    report["distribution"] = [
        {"kills": k, "p": float(p), "fraction": _frac(p)} for k, p in enumerate(dist)
    ]
    if opts["simulate"]:
        if "guns" in report:
            sim = mo.simulate_artillery(
                report["guns"], need, trials=opts["simulate"], seed=opts["seed"]
            )["kills"]
        else:
            sim = mo.simulate_casualties(
                report["figures"],
                need,
                automatic_kills=opts["automatic_kills"],
                part_dice=opts["part_dice"],
                trials=opts["simulate"],
                seed=opts["seed"],
            )
        for row, freq in zip(report["distribution"], sim, strict=True):
            row["simulated"] = freq
        report["simulation"] = {"trials": opts["simulate"], "seed": opts["seed"]}
    return report


def _morale(opts: OddsOptions) -> dict[str, Any]:
    from engine.rulesets.medieval_d10 import odds as mo
    from engine.rulesets.medieval_d10.charts import (
        MORALE_FACTORS,
        CommanderKind,
        MoraleColumn,
    )
    from engine.rulesets.medieval_d10.procedures import morale_modifier

    columns = {c.name.lower(): c for c in MoraleColumn}
    name = opts["morale"].lower().replace("-", "_")
    if name not in columns:
        raise _fail(f"expected --morale one of {', '.join(columns)}, got {opts['morale']!r}")
    column = columns[name]
    troop_class = _troop_class(opts)
    commander = (
        _choice(CommanderKind, opts["commander"], "--commander") if opts["commander"] else None
    )
    factors = _factors(opts, MORALE_FACTORS)
    modifier = morale_modifier(troop_class, factors, commander) + opts["modifier"]
    exact = mo.morale_distribution_exact(column, modifier)
    report: dict[str, Any] = {
        "mode": "morale",
        "ruleset": "medieval-d10",
        "column": column.value,
        "class": troop_class.value,
        "factors": factors,
        "commander_with": opts["commander"],
        "modifier": modifier,
        "outcomes": {r.value: {"p": float(p), "fraction": _frac(p)} for r, p in exact.items()},
    }
    if opts["simulate"]:
        sim = mo.simulate_morale(column, modifier, trials=opts["simulate"], seed=opts["seed"])
        for r in exact:
            report["outcomes"][r.value]["simulated"] = sim.get(r, 0.0)
        report["simulation"] = {"trials": opts["simulate"], "seed": opts["seed"]}
    return report


def _control(opts: OddsOptions) -> dict[str, Any]:
    from engine.rulesets.medieval_d10 import odds as mo
    from engine.rulesets.medieval_d10.charts import CONTROL_FACTORS, CommanderKind
    from engine.rulesets.medieval_d10.procedures import control_modifier

    troop_class = _troop_class(opts)
    commander = (
        _choice(CommanderKind, opts["commander"], "--commander") if opts["commander"] else None
    )
    factors = _factors(opts, CONTROL_FACTORS)
    modifier = control_modifier(troop_class, opts["cavalry"], factors, commander) + opts["modifier"]
    exact = mo.control_distribution_exact(modifier)
    report: dict[str, Any] = {
        "mode": "control",
        "ruleset": "medieval-d10",
        "class": troop_class.value,
        "cavalry": opts["cavalry"],
        "factors": factors,
        "modifier": modifier,
        "outcomes": {k: {"p": float(p), "fraction": _frac(p)} for k, p in exact.items()},
    }
    if opts["simulate"]:
        sim = mo.simulate_control(modifier, trials=opts["simulate"], seed=opts["seed"])
        for k in exact:
            report["outcomes"][k]["simulated"] = sim[k]
        report["simulation"] = {"trials": opts["simulate"], "seed": opts["seed"]}
    return report


def _initiative(opts: OddsOptions) -> dict[str, Any]:
    from engine.rulesets.medieval_d10 import odds as mo
    from engine.rulesets.medieval_d10.charts import CommanderKind
    from engine.rulesets.medieval_d10.procedures import INITIATIVE_SIDES

    parts = opts["initiative"].split(",")
    if len(parts) != 2:
        raise _fail(
            f"expected --initiative FIRST,SECOND commander kinds, got {opts['initiative']!r}"
        )
    first, second = (_choice(CommanderKind, p.strip(), "--initiative") for p in parts)
    sides = opts["dice_sides"] or INITIATIVE_SIDES
    if sides not in (6, 10):
        raise _fail(f"expected --dice-sides 6 or 10 (the book says both), got {sides}")
    p = mo.initiative_exact(first, second, sides)
    report: dict[str, Any] = {
        "mode": "initiative",
        "ruleset": "medieval-d10",
        "first": first.value,
        "second": second.value,
        "sides": sides,
        "outcomes": {
            "first wins": {"p": float(p), "fraction": _frac(p)},
            "second wins": {"p": float(1 - p), "fraction": _frac(1 - p)},
        },
    }
    if opts["simulate"]:
        f = mo.simulate_initiative(first, second, sides, trials=opts["simulate"], seed=opts["seed"])
        report["outcomes"]["first wins"]["simulated"] = f
        report["outcomes"]["second wins"]["simulated"] = 1 - f
        report["simulation"] = {"trials": opts["simulate"], "seed": opts["seed"]}
    return report


def odds_table(rep: dict[str, Any]) -> OddsTable:
    """How ``odds --ruleset medieval-d10`` prints a :func:`medieval_odds` report."""
    sim = rep.get("simulation")
    if rep["mode"] == "attack":
        what = f"{rep['guns']} guns" if "guns" in rep else f"{rep['figures']} figures"
        band = f", {rep['range_band']} range" if "range_band" in rep else ""
        title = (
            f"medieval-d10 {rep['attack']}: {what} with {rep['weapon']} (class {rep['class']}) "
            f"vs {rep['armour']} armour{band}: "
            f"kill on {rep['need']}+"
        )
        columns = [("kills", True)]
        labelled = [(str(r["kills"]), r) for r in rep["distribution"]]
    else:
        title = f"medieval-d10 {rep['mode']}: modifier {rep.get('modifier', 0):+d}"
        if rep["mode"] == "morale":
            title += f", {rep['column']}"
        if rep["mode"] == "initiative":
            title = f"medieval-d10 initiative: {rep['first']} vs {rep['second']} (d{rep['sides']})"
        columns = [("outcome", False)]
        labelled = list(rep["outcomes"].items())
    columns += [("P", True), ("exact", True)]
    if sim:
        columns.append((f"simulated ({sim['trials']}, seed {sim['seed']})", True))
    rows = []
    for label, row in labelled:
        cells = [label, pct(row["p"]), row["fraction"]]
        if sim:
            cells.append(pct(row["simulated"]))
        rows.append(tuple(cells))
    footer = f"expected kills: {rep['expected_kills']:.3f}" if rep["mode"] == "attack" else ""
    return OddsTable(title, tuple(columns), tuple(rows), footer)
