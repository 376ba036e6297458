"""``scenario-builder demo``: the whole product on the shipped default, in one command.

Builds the default battlefield, fights the default battle with a fixed seed, and writes the
terrain map, the battle playback, the printable true-scale layout of the battle's ground and its
cut layers, then says where they are and who won. Everything lands in ``--out`` at once (written
to a temporary directory and moved into place), so an interrupted demo leaves nothing behind.

Layout of ``--out``::

    battlefield/        the built battlefield (battlefield.tif, .gpkg, .json)
    battlefield.html    terrain classes, height levels, contours (offline unless --online)
    run/                battle_log.json, summary.json, battlefield/  (as ``run`` writes)
    playback.html       the battle bound by bound, with fog of war per side
    layout.pdf          the battle's ground at true table scale, tiled on sheets
    layers/             the cut layers: a base board and the boards above it (SVG + PDF)
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import click

from scenario_builder.atomic import atomic_dir, claim_out_dir

from .options import force_option

DEFAULT_SCENARIO = "flodden_1513"
DEFAULT_SEED = 7
#: ground printed around the armies' footprint (metres)
PRINT_MARGIN_M = 250.0


def battle_bbox(
    log: Any, bf: Any, margin_m: float = PRINT_MARGIN_M
) -> tuple[float, float, float, float]:
    """(W, S, E, N) degrees around every position any base held during the battle (``log``: a
    BattleLog or a read log, whose bounds after the first hold only their changes)."""
    from engine.log import expanded

    xs: list[float] = []
    ys: list[float] = []
    snaps = (
        [b["snapshot"] for b in expanded(log)["bounds"]]
        if isinstance(log, dict)
        else [r.snapshot for r in log.bounds]
    )
    for snap in snaps:
        for base in snap["bases"].values():
            xs.append(base["x"])
            ys.append(base["y"])
    minx, miny, maxx, maxy = bf.bounds
    x0, x1 = max(min(xs) - margin_m, minx), min(max(xs) + margin_m, maxx)
    y0, y1 = max(min(ys) - margin_m, miny), min(max(ys) + margin_m, maxy)
    lon, lat = bf.to_lonlat([x0, x1, x0, x1], [y0, y0, y1, y1])
    # a small inward pad so the reprojected box stays inside the battlefield
    return (max(lon[0], lon[2]), max(lat[0], lat[1]), min(lon[1], lon[3]), min(lat[2], lat[3]))


@click.command("demo")
@click.option(
    "--out",
    "out",
    default="demo-out",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Output directory.",
)
@click.option(
    "--scenario",
    "scenario",
    default=DEFAULT_SCENARIO,
    show_default=True,
    help="Shipped scenario id or a scenario file.",
)
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True)
@click.option(
    "--scale",
    "scale_text",
    default="2mm",
    show_default=True,
    help="Table scale for the printed layout: 2mm, 6mm or 1:N.",
)
@click.option(
    "--paper",
    "paper_text",
    default="A3",
    show_default=True,
    help="Paper for the printed layout: A4, A3, Letter or WxHmm.",
)
@click.option(
    "--online",
    is_flag=True,
    help="Maps with online tile base layers (default: offline, self-contained pages).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable summary.")
@force_option
def demo(
    out: Path,
    scenario: str,
    seed: int,
    scale_text: str,
    paper_text: str,
    online: bool,
    as_json: bool,
    force: bool,
) -> None:
    """Build, fight, map and print the default battle (Flodden 1513) in one go."""
    from rich.console import Console

    from engine.log import expanded
    from engine.scenario import load_scenario
    from maps.battlefield_map import battlefield_map, draw_base_map, write_html
    from maps.cutlayers import write_cut_layers
    from maps.deployment import deployment
    from maps.layout import LayoutOptions, write_layout_pdf
    from maps.playback import playback_map
    from maps.table import Paper, TableScale
    from scenario_builder.battle import build_battlefield, fight
    from scenario_builder.run_folder import write_run

    console = Console(stderr=True, quiet=as_json)
    opts_scale = TableScale.from_text(scale_text)
    opts_paper = Paper.from_text(paper_text)
    timings: dict[str, float] = {}
    start = time.perf_counter()

    def lap(name: str, t0: float) -> float:
        now = time.perf_counter()
        timings[name] = round(now - t0, 2)
        return now

    sc = load_scenario(scenario)
    stamp = {"command": "demo", "scenario": sc.id}
    claim_out_dir(out, stamp, force=force)
    t = time.perf_counter()
    with atomic_dir(out, stamp=stamp, replace=force) as tmp:
        building = f"Building {sc.battlefield.slug or 'the battlefield'}"
        with console.status(f"{building}...") as status:
            built = build_battlefield(sc, progress=lambda s: status.update(f"{building}: {s}..."))
            built.save(tmp / "battlefield")
        t = lap("build", t)
        fighting = f"Fighting {sc.name} (seed {seed})"
        with console.status(f"{fighting}...") as status:

            def bound(done: int, limit: int) -> None:
                status.update(f"{fighting}: bound {done} of at most {limit}...")

            log, summary = fight(sc, built, seed, settle=True, progress=bound)
            (tmp / "run").mkdir()
            write_run(tmp / "run", log, summary, built, scenario=sc)
            # once, every bound whole (as a reader of the file gets it: engine.log.expanded),
            # for the playback, the print's box and deployment
            log_dict = expanded(log.to_dict())
        t = lap("battle", t)
        with console.status("Drawing maps..."):
            # the base map (rasters, contours, roads) is drawn once, for both pages
            bf = built.battlefield
            slug = bf.meta.get("slug") or "battlefield"
            base = draw_base_map(bf)
            write_html(
                battlefield_map(bf, offline=not online, title=f"{slug} battlefield", base=base),
                tmp / "battlefield.html",
            )
            page = playback_map(bf, log_dict, offline=not online, base=base)
            write_html(page, tmp / "playback.html")
        t = lap("maps", t)
        with console.status("Laying out the table...") as status:

            def sheet(done: int, total: int) -> None:
                status.update(f"Laying out the table: sheet {done} of {total}...")

            def board(done: int, total: int) -> None:
                status.update(f"Cutting layers: board {done} of {total}...")

            bf = built.battlefield
            opts = LayoutOptions(scale=opts_scale, paper=opts_paper, bbox=battle_bbox(log_dict, bf))
            lay = write_layout_pdf(bf, opts, tmp / "layout.pdf", deployment(log_dict), sheet)
            stack = write_cut_layers(bf, opts, tmp / "layers", progress=board)
        t = lap("print", t)
        report = {
            "scenario": sc.id,
            "seed": seed,
            "winner": summary["winner"],
            "bounds": summary["bounds"],
            "reason": summary["reason"],
            "losses": summary["losses"],
            "bases": summary["bases"],
            "historical_winner": sc.historical_outcome.winner if sc.historical_outcome else None,
            "sheets": lay.tiling.count,
            "table_m": [round(lay.table_mm[0] / 1000, 2), round(lay.table_mm[1] / 1000, 2)],
            "cut_layers": len(stack.boards),
            "boards": stack.board_count,
            "board_thickness_mm": round(stack.thickness_mm, 1),
            "levels_per_board": stack.levels_per_board,
            "cut_sheets": stack.sheet_count,
            "board_area_m2": round(stack.board_area_m2, 1),
            "cut_length_m": round(stack.cut_length_m, 1),
            "seconds": {**timings, "total": round(time.perf_counter() - start, 2)},
        }
        (tmp / "demo.json").write_text(json.dumps(report, indent=2, sort_keys=True))
    if as_json:
        click.echo(json.dumps(report, sort_keys=True))
        return
    _print_report(report, sc, out)


def _print_report(report: dict[str, Any], sc: Any, out: Path) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    winner = report["winner"] or "nobody"
    names = {s.id: s.name for s in sc.sides}
    console.print(
        f"[bold]{sc.name}[/bold] (seed {report['seed']}): "
        f"[bold]{names.get(winner, winner)}[/bold] won after {report['bounds']} bounds "
        f"— {report['reason']}."
    )
    hist = report["historical_winner"]
    if hist:
        same = "as in" if hist == winner else "unlike"
        console.print(f"  {same} history ({names.get(hist, hist)} won).")
    table = Table("side", "bases", "lost")
    for sid, n in report["bases"].items():
        table.add_row(names.get(sid, sid), str(n), str(report["losses"].get(sid, 0)))
    console.print(table)
    rows = [
        ("Terrain map", out / "battlefield.html"),
        ("Battle playback", out / "playback.html"),
        ("Printable layout", out / "layout.pdf"),
        ("Cut layers", out / "layers"),
        ("Battle log", out / "run" / "battle_log.json"),
        ("Battlefield", out / "battlefield"),
    ]
    files = Table("output", "path", show_header=False, box=None)
    for what, path in rows:
        files.add_row(what, str(path))
    console.print(files)
    tm = report["table_m"]
    console.print(
        f"Layout: {report['sheets']} sheets for a {tm[0]} x {tm[1]} m table; "
        f"{report['cut_layers']} cut layers, {report['boards']} boards "
        f"({report['levels_per_board']} levels a board) stacking "
        f"{report['board_thickness_mm']:g} mm, {report['board_area_m2']:g} m2 of board, "
        f"{report['cut_length_m']:g} m of cut line on {report['cut_sheets']} template sheets. "
        f"Took {report['seconds']['total']} s."
    )
