"""``scenario-builder model BATTLEFIELD_DIR --out DIR [--bed 220x220mm] [--terraces]``.

The print window as 3D-printable terrain: one watertight STL per printer-bed tile at table scale,
a uint16 heightmap GeoTIFF for CNC / foam cutters and ``model.json`` (``maps.model``).
"""

from __future__ import annotations

from pathlib import Path

import click

from scenario_builder.atomic import atomic_dir, claim_out_dir
from scenario_builder.cli.options import force_option, ruleset_option
from scenario_builder.coords import parse_bbox
from scenario_builder.errors import DataSourceError


@click.command("model")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder for tile_<label>.stl, heightmap.tif and model.json (written atomically).",
)
@click.option(
    "--scale",
    "scale_text",
    default=None,
    help="Table scale: 2mm (1 m = 1 mm, the default), 6mm (1 m = 3 mm) or 1:N; with --ruleset "
    "one of its figure scales.",
)
@click.option(
    "--bed",
    "bed_text",
    default="220x220mm",
    show_default=True,
    help="Printer bed WxHmm; each tile fits it (turned if that needs fewer tiles).",
)
@click.option(
    "--base",
    "base_mm",
    type=float,
    default=3.0,
    show_default=True,
    help="Solid base under the window's lowest ground, mm (above 0).",
)
@click.option(
    "--terraces",
    is_flag=True,
    help="Print the ruleset's height levels as flat steps (as the cut layers) instead of the "
    "smooth DEM.",
)
@click.option(
    "--exaggerate",
    type=float,
    default=1.0,
    show_default=True,
    help="Vertical exaggeration factor (above 0).",
)
@click.option(
    "--mesh-mm",
    "mesh_mm",
    type=float,
    default=1.0,
    show_default=True,
    help="Mesh vertex spacing on the table, mm (0.1 to 50).",
)
@click.option(
    "--bbox",
    "bbox_text",
    default=None,
    help="Model only this area: W,S,E,N in lon/lat degrees or map metres, as `print` reads it "
    "(default: the whole battlefield).",
)
@click.option("--crs", "crs_text", default=None, help="CRS of --bbox (as `print --crs`).")
@click.option(
    "--max-tiles",
    type=int,
    default=300,
    show_default=True,
    help="Refuse models needing more tiles than this (1 or more).",
)
@ruleset_option
@force_option
def model(
    directory: Path,
    out: Path,
    scale_text: str | None,
    bed_text: str,
    base_mm: float,
    terraces: bool,
    exaggerate: float,
    mesh_mm: float,
    bbox_text: str | None,
    crs_text: str | None,
    max_tiles: int,
    ruleset: str | None,
    force: bool,
) -> None:
    """Write the battlefield as 3D-printable terrain tiles (STL) and a heightmap (GeoTIFF)."""
    import dataclasses
    import time

    from maps.layout import LayoutOptions
    from maps.model import ModelOptions, Surface, parse_bed, plan_model, write_model
    from scenario_builder.battlefield import Battlefield
    from scenario_builder.cli.print_cmd import check_crs_option, read_bbox, table_scale

    t0 = time.perf_counter()
    check_crs_option(crs_text, bbox_text)
    scale = table_scale(scale_text, ruleset)
    opts = ModelOptions(
        scale=scale,
        bed=parse_bed(bed_text),
        base_mm=base_mm,
        exaggerate=exaggerate,
        surface=Surface.TERRACES if terraces else Surface.SMOOTH,
        mesh_mm=mesh_mm,
        bbox=parse_bbox(bbox_text) if bbox_text else None,
        max_tiles=max_tiles,
    )
    opts.check()
    if not directory.exists():
        raise DataSourceError(directory, "does not exist (expected a built battlefield directory)")
    if (directory / "battle_log.json").exists() and (directory / "battlefield").is_dir():
        directory = directory / "battlefield"  # a run directory: model its battlefield
    stamp = {"command": "model", "input": str(directory)}
    claim_out_dir(out, stamp, force=force)
    bf = Battlefield.load(directory)
    read_line = ""
    if opts.bbox is not None:
        # the same reading of --bbox as print's (lon/lat or map metres, said which)
        lay, read_line = read_bbox(bf, LayoutOptions(scale, opts.bed, bbox=opts.bbox), crs_text)
        opts = dataclasses.replace(opts, bbox_crs=lay.bbox_crs)
    plan_model(bf, opts)  # every size check before anything is written
    with atomic_dir(out, stamp=stamp, replace=True) as tmp:
        built = write_model(bf, opts, tmp)
    p = built.plan
    tw, th = p.tile_mm
    if read_line:
        click.echo(read_line)
    how = "terraces" if opts.surface is Surface.TERRACES else "smooth ground"
    tiles = "1 tile" if p.count == 1 else f"{p.count} tiles"
    click.echo(
        f"wrote {out}: {tiles} ({p.rows} x {p.cols}) of {tw:.1f} x {th:.1f} mm for a "
        f"{opts.bed} bed, table {p.table_mm[0] / 1000:.2f} x {p.table_mm[1] / 1000:.2f} m at "
        f"{p.scale}"
    )
    click.echo(
        f"  {how}, x{opts.exaggerate:g} vertical, {opts.base_mm:g} mm base: print volume "
        f"{built.volume_cm3:,.0f} cm³, max height {built.max_mm:.1f} mm; "
        f"{sum(t.triangles for t in built.tiles):,} triangles; heightmap.tif (uint16); "
        f"{time.perf_counter() - t0:.1f} s"
    )
