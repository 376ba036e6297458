"""Options shared by several subcommands, defined once."""

from __future__ import annotations

from typing import Any

import click
from rich.table import Table

out_dir_option = click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False, dir_okay=True, writable=True),
    help="Output directory (created; written atomically).",
)
force_option = click.option(
    "--force",
    is_flag=True,
    help="Replace an --out folder that holds another run's output.",
)
seed_option = click.option(
    "--seed", type=int, default=1, show_default=True, help="Seed of the one random generator."
)
json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
ruleset_option = click.option(
    "--ruleset",
    "ruleset",
    default=None,
    metavar="NAME",
    help="Ruleset (see `scenario-builder rulesets`; default: the scenario's, else 2mm-earth-v0.9).",
)

plan_option = click.option(
    "--plan",
    "plans",
    multiple=True,
    metavar="SIDE=FILE",
    help="A plan file for SIDE in place of the scenario's plan for it (repeatable; schema: "
    "`scenario-builder schema --kind plan`).",
)


def parse_plans(values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """``--plan SIDE=FILE`` values as (side, file) pairs; a malformed one is a one-line error.

    >>> parse_plans(("english=plans/a.yaml",))
    (('english', 'plans/a.yaml'),)
    """
    from scenario_builder.errors import ScenarioFileError

    out = []
    for v in values:
        side, sep, file = v.partition("=")
        if not sep or not side or not file:
            raise ScenarioFileError(f"--plan {v}", "expected SIDE=FILE")
        out.append((side, file))
    return tuple(out)


def drawable_ground(bf: Any, ruleset: str | None) -> Any:
    """``bf`` read through ``ruleset``'s terrain table, for ``map`` and ``print`` (None: as
    built, 2mm Earth's classes). The view names the ruleset's own classes and its table
    (``engine.terrain.ruleset_ground``), so the maps draw medieval-d10's built-up, broken ground,
    wood, marsh ... under their own names and colours (``maps.palettes``); an unknown name is a
    one-line error."""
    if ruleset is None:
        return bf
    from engine.rulesets import get_ruleset

    return get_ruleset(ruleset).ground(bf)


def id_column(table: Table, header: str, values: list[str]) -> None:
    """Add a column of identifiers the user copies (slugs, ids): never wrapped or truncated.

    rich shrinks columns to fit the console (80 columns when piped); this one keeps its width
    and the other columns wrap instead.
    """
    width = max([len(header), *map(len, values)])
    table.add_column(header, no_wrap=True, min_width=width, overflow="ignore")


def print_table(table: Table) -> None:
    """Print ``table`` on stdout; piped or redirected output gets the table's natural width.

    rich assumes 80 columns when stdout is not a terminal, which would wrap cells a script or a
    ``grep`` then has to stitch together.
    """
    import sys

    from rich.console import Console

    console = Console(file=sys.stdout)
    if not console.is_terminal:
        console = Console(
            file=sys.stdout,
            width=console.measure(table, options=console.options.update_width(10_000)).maximum,
        )
    console.print(table)
