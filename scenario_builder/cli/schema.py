"""``scenario-builder schema``: the JSON Schema of scenario files (plan files, troop lists)."""

from __future__ import annotations

import json

import click

from .options import ruleset_option

__all__ = ["schema"]


@click.command("schema")
@click.option(
    "--kind",
    type=click.Choice(["scenario", "plan", "troops"]),
    default="scenario",
    show_default=True,
    help="Which file format.",
)
@ruleset_option
def schema(kind: str, ruleset: str | None) -> None:
    """Print the JSON Schema of scenario files (--kind plan: a side's plan file, ``plan:
    plans/x.yaml`` in a scenario; --kind troops: the --ruleset's troop lists)."""
    if kind == "scenario":
        from engine.scenario import Scenario

        out = Scenario.json_schema()
    elif kind == "plan":
        from engine.scenario import Plan

        out = Plan.model_json_schema()
    else:
        from engine.rulesets import get_ruleset

        out = get_ruleset(ruleset).troop_list_schema()
    click.echo(json.dumps(out, indent=2, sort_keys=True))
