"""``scenario-builder rulesets [--json]``: the registered rulesets and what each declares.

For every ruleset: name (and aliases), version, family, die, its phases in order, its terrain
classes (per role, from its own code table over the battlefield's feature layer), its morale
states, order words and table scales (ground metres per table millimetre for each figure scale,
base size, the book's named distances). A composed ruleset (:mod:`engine.rulesets.compose`) also
says which book each part of its game comes from (turn sequence, movement and formations, combat,
morale and command).

``--special``: the scenario special rules instead (engine.special_rules, docs/special-rules.md):
each rule's procedure, its parameters (type, default, meaning) and the rulesets that play it.
"""

from __future__ import annotations

import json
from typing import Any

import click

from .options import json_option

__all__ = ["describe_rulesets", "describe_special", "rulesets"]


def describe_rulesets() -> list[dict[str, Any]]:
    """``Ruleset.describe()`` of every registered ruleset, by name."""
    from engine.rulesets import available_rulesets, get_ruleset

    return [get_ruleset(name).describe() for name in available_rulesets()]


def describe_special() -> list[dict[str, Any]]:
    """Every scenario special rule, its parameters and the rulesets that play it."""
    from engine.rulesets import available_rulesets, get_ruleset
    from engine.special_rules import describe_special_rules

    plays = {n: type(get_ruleset(n)).special_rules for n in available_rulesets()}
    return describe_special_rules(plays)


def _print_special(as_json: bool) -> None:
    data = describe_special()
    if as_json:
        click.echo(json.dumps(data, indent=2, sort_keys=True))
        return
    from rich.table import Table

    from scenario_builder.cli.options import print_table

    for d in data:
        table = Table(
            "parameter",
            "type",
            "default",
            "meaning",
            title=f"{d['rule']}: {d['title']} (rulesets: {', '.join(d['rulesets']) or 'none'})",
            title_justify="left",
        )
        for p in d["parameters"]:
            default = (
                "required"
                if p["required"]
                else ("none" if p["default"] is None else json.dumps(p["default"]))
            )
            table.add_row(p["name"], p["type"], default, p["description"])
        print_table(table)


@click.command("rulesets")
@json_option
@click.option(
    "--special",
    is_flag=True,
    help="List the scenario special rules (docs/special-rules.md) and their parameters.",
)
def rulesets(as_json: bool, special: bool) -> None:
    """List the rulesets the engine can fight with (name, die, phases, terrain, scales)."""
    if special:
        _print_special(as_json)
        return
    data = describe_rulesets()
    if as_json:
        click.echo(json.dumps(data, indent=2, sort_keys=True))
        return
    from rich.table import Table

    from engine.rulesets import DEFAULT_RULESET
    from scenario_builder.cli.options import print_table

    table = Table("ruleset", "version", "family", "die", "phases", "terrain classes", "scales")
    for d in data:
        name = d["name"] + (" (default)" if d["name"] == DEFAULT_RULESET else "")
        if d["aliases"]:
            name += "\n" + ", ".join(d["aliases"])
        terrain = "\n".join(
            f"{role}: {', '.join(names)}" for role, names in d["terrain_classes"].items()
        )
        sc = d["scales"]
        scales = "\n".join(
            [f"{fig}: 1 mm = {m:g} m" for fig, m in sc["ground_m_per_mm"].items()]
            + [f"base {sc['base_m'][0]:g} x {sc['base_m'][1]:g} m"]
        )
        table.add_row(
            name, d["version"], d["family"], d["die"], "\n".join(d["phases"]), terrain, scales
        )
    print_table(table)  # piped: the natural width, not cut at 80 columns
    for d in data:
        if not d.get("composition"):
            continue
        parts = Table(
            "part",
            "module",
            "book",
            "seed",
            title=f"{d['name']} is composed of",
            title_justify="left",
        )
        for row in d["composition"]:
            parts.add_row(row["part"], row["module"], row["book"], row["seed"])
        print_table(parts)
