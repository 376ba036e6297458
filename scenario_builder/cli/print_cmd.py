"""``scenario-builder print BATTLEFIELD_DIR --scale 2mm --paper A4 --out layout.pdf``.

The battlefield at true table scale, tiled over sheets with overlap, crop and registration marks,
labels and an index page; ``--layers DIR`` adds the cut layers (SVG and PDF template per board).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from scenario_builder.atomic import atomic_path, check_writable
from scenario_builder.cli.options import drawable_ground, ruleset_option
from scenario_builder.cli.progress import progress_bar
from scenario_builder.coords import as_written, describe, guess_box_crs, parse_bbox, parse_crs
from scenario_builder.errors import DataSourceError, ScenarioError


@click.command("print")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option(
    "--scale",
    "scale_text",
    default=None,
    help="Table scale: 2mm (1 m = 1 mm, the default), 6mm (1 m = 3 mm) or 1:N; with --ruleset "
    "one of its figure scales (medieval-d10: 15mm, 25mm, default the first).",
)
@click.option(
    "--paper",
    "paper_text",
    default="A4",
    show_default=True,
    help="A4, A3, A2, Letter, Legal, Tabloid or WxHmm.",
)
@click.option(
    "--overlap",
    "overlap",
    type=float,
    default=10.0,
    show_default=True,
    help="Millimetres each sheet repeats of its neighbours.",
)
@click.option(
    "--margin",
    "margin",
    type=float,
    default=10.0,
    show_default=True,
    help="Unprinted margin in mm (marks and labels go there).",
)
@click.option(
    "--bbox",
    "bbox_text",
    default=None,
    help="Print only this area: W,S,E,N in lon/lat degrees or map metres (said which; see "
    "--crs) (default: the whole battlefield).",
)
@click.option(
    "--crs",
    "crs_text",
    default=None,
    help="CRS of --bbox (default: lon,lat or the battlefield's metres, whichever overlaps it; "
    "EPSG:4326 means lon,lat).",
)
@click.option(
    "--max-pages",
    type=click.IntRange(min=1),
    default=300,
    show_default=True,
    help="Refuse layouts needing more sheets than this (1 or more).",
)
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="PDF to write (atomically).",
)
@click.option(
    "--layers",
    "layers",
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
    help="Also write the cut layers (base board + the boards above it, SVG + PDF) here.",
)
@click.option(
    "--levels-per-board",
    "levels_per_board",
    type=int,
    default=None,
    help="Height levels each cut board stands for (default: the fewest that keep the stack "
    "within 20 boards, or from --board-mm).",
)
@click.option(
    "--board-mm",
    "board_mm",
    type=float,
    default=None,
    help="Thickness of the board you cut from, mm (default: its levels at table scale).",
)
@click.option(
    "--bed",
    "bed_text",
    default=None,
    help="Split each layer's SVG to a cutter bed of WxHmm (default: one drawing per layer).",
)
@ruleset_option
def print_cmd(
    directory: Path,
    scale_text: str | None,
    paper_text: str,
    overlap: float,
    margin: float,
    bbox_text: str | None,
    crs_text: str | None,
    max_pages: int,
    out: Path,
    layers: Path | None,
    levels_per_board: int | None,
    board_mm: float | None,
    bed_text: str | None,
    ruleset: str | None,
) -> None:
    """Print the battlefield at true table scale on tiled sheets (and cut layers)."""
    from maps.cutlayers import CutOptions, parse_bed
    from maps.layout import LayoutOptions, plan_layout, write_layout_pdf
    from maps.table import Paper

    check_crs_option(crs_text, bbox_text)
    scale = table_scale(scale_text, ruleset)
    opts = LayoutOptions(
        scale=scale,
        paper=Paper.from_text(paper_text),
        overlap_mm=overlap,
        margin_mm=margin,
        bbox=parse_bbox(bbox_text) if bbox_text else None,
        max_pages=max_pages,
    )
    cut = CutOptions(levels_per_board, board_mm, parse_bed(bed_text) if bed_text else None)
    if not directory.exists():
        raise DataSourceError(directory, "does not exist (expected a built battlefield directory)")
    deployed = None
    if (directory / "battle_log.json").exists() and (directory / "battlefield").is_dir():
        # a run directory: print its battlefield with the armies where they deployed
        from maps.battlelog import load_battle_log
        from maps.deployment import deployment

        deployed = deployment(load_battle_log(directory / "battle_log.json"))
        directory = directory / "battlefield"
    if out.exists() and out.is_dir():
        raise ScenarioError(out, "is a directory (expected a PDF file name for --out)")
    check_writable(out, "--out")
    if layers is not None:
        check_writable(layers, "--layers")
    from scenario_builder.battlefield import Battlefield

    bf = drawable_ground(Battlefield.load(directory), ruleset)
    read_line = ""
    if opts.bbox is not None:
        opts, read_line = read_bbox(bf, opts, crs_text)
    lay = plan_layout(bf, opts)  # every size check before anything is written
    if layers is not None:
        from maps.cutlayers import plan_stack

        plan_stack(bf, lay, cut)  # bad board options fail before the PDF is written
    # The PDF is renamed into place only after the cut layers are written: a failure in either
    # leaves neither behind.
    stack = None
    with atomic_path(out) as pdf, progress_bar("print") as bar:
        lay = write_layout_pdf(bf, opts, pdf, deployed, progress=bar.count("sheet"))
        if layers is not None:
            from maps.cutlayers import write_cut_layers

            stack = write_cut_layers(bf, opts, layers, cut, progress=bar.count("board"))
    t = lay.tiling
    if read_line:
        click.echo(read_line)
    click.echo(
        f"wrote {out}: {t.count} sheets ({t.rows} x {t.cols}) of {lay.paper} + index, "
        f"table {lay.table_mm[0] / 1000:.2f} x {lay.table_mm[1] / 1000:.2f} m at "
        f"{lay.scale}"
    )
    if stack is not None:
        from maps.cutlayers import stack_summary

        click.echo(f"wrote cut layers to {layers}: {stack_summary(stack)}")
        click.echo(f"  {stack.why}")


def check_crs_option(crs_text: str | None, bbox_text: str | None) -> None:
    """``--crs`` only with ``--bbox``, and a CRS name that parses, before anything is read
    (``print`` and ``model`` share the window options)."""
    if crs_text is not None:
        if bbox_text is None:
            raise click.UsageError("--crs says what --bbox is in; give --bbox too")
        parse_crs(crs_text)


def table_scale(scale_text: str | None, ruleset: str | None) -> Any:
    """The ``--scale`` asked for: one of the ruleset's own figure scales (its first by
    default) with ``--ruleset``, else 2mm Earth's ``2mm``/``6mm`` words (``2mm`` by default)."""
    from maps.table import TableScale

    if ruleset is not None:
        from engine.rulesets import get_ruleset

        rs = get_ruleset(ruleset)
        scales = dict(rs.scales.ground_m_per_mm)
        return TableScale.for_ruleset(scale_text or next(iter(scales)), scales, rs.name)
    return TableScale.from_text(scale_text or "2mm")


def read_bbox(bf: Any, opts: Any, crs_text: str | None) -> tuple[Any, str]:
    """``opts`` with the CRS its ``--bbox`` is in (``--crs``, else lon,lat or the battlefield's
    metres, whichever overlaps it: ``scenario_builder.coords``) and the line saying which."""
    import dataclasses

    if crs_text is not None:
        crs, how = parse_crs(crs_text), "from --crs"
    else:
        guessed = guess_box_crs(bf, "--bbox", opts.bbox)
        crs, how = (bf.crs if guessed is None else parse_crs(guessed)), "guessed: --crs to choose"
    line = f"read --bbox {as_written(opts.bbox)} as {describe(crs, bf.crs)} ({how})"
    bbox_crs = None if crs.equals(parse_crs("EPSG:4326")) else crs.to_string()
    return dataclasses.replace(opts, bbox_crs=bbox_crs), line
