"""How ``scenario-builder odds --ruleset medieval-d10`` prints the book's answers.

The questions and their options are the ruleset's own
(:mod:`engine.rulesets.medieval_d10.odds_report`, asked through ``Ruleset.odds_report``):
``--attack``, ``--morale COLUMN``, ``--control``, ``--initiative FIRST,SECOND``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["print_medieval"]


def print_medieval(rep: dict[str, Any]) -> None:
    """A rich table of a :func:`medieval_odds` report."""
    from rich.console import Console
    from rich.table import Table

    sim = rep.get("simulation")
    table = Table()
    if rep["mode"] == "attack":
        what = f"{rep['guns']} guns" if "guns" in rep else f"{rep['figures']} figures"
        band = f", {rep['range_band']} range" if "range_band" in rep else ""
        title = (
            f"medieval-d10 {rep['attack']}: {what} with {rep['weapon']} (class {rep['class']}) "
            f"vs {rep['armour']} armour{band}: "
            f"kill on {rep['need']}+"
        )
        table.add_column("kills", justify="right")
        rows = [(str(r["kills"]), r) for r in rep["distribution"]]
    else:
        title = f"medieval-d10 {rep['mode']}: modifier {rep.get('modifier', 0):+d}"
        if rep["mode"] == "morale":
            title += f", {rep['column']}"
        if rep["mode"] == "initiative":
            title = f"medieval-d10 initiative: {rep['first']} vs {rep['second']} (d{rep['sides']})"
        table.add_column("outcome")
        rows = [(k, r) for k, r in rep["outcomes"].items()]
    table.add_column("P", justify="right")
    table.add_column("exact", justify="right")
    if sim:
        table.add_column(f"simulated ({sim['trials']}, seed {sim['seed']})", justify="right")
    for label, row in rows:
        cells = [label, f"{100 * row['p']:.2f}%", row["fraction"]]
        if sim:
            cells.append(f"{100 * row['simulated']:.2f}%")
        table.add_row(*cells)
    console = Console(highlight=False)
    console.print(title, markup=False, soft_wrap=True)
    console.print(table)
    if rep["mode"] == "attack":
        console.print(f"expected kills: {rep['expected_kills']:.3f}")
