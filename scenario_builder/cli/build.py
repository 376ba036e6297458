"""``scenario-builder build``: DEM + land cover + overlays -> a Battlefield directory.

scenario-builder build gettysburg --out out/gettysburg
scenario-builder build --dem dem.tif [--landcover lc.tif|osm.geojson ...] [--overlay o.geojson ...]
                       [--bbox W,S,E,N [--crs CRS]] [--codes table.csv ...] --out DIR
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.table import Table

from scenario_builder.atomic import atomic_dir, claim_out_dir
from scenario_builder.build_defaults import (
    CLIFF_DEG,
    MAX_CELLS,
    MIN_AREA_M2,
    SMOOTH_M,
    STAGES,
    STEP_M,
)
from scenario_builder.errors import ScenarioError

from .options import force_option, out_dir_option
from .progress import progress_bar

if TYPE_CHECKING:
    from scenario_builder.build import BuildResult

# The pipeline (scenario_builder.build: geopandas, pandas, scipy, rasterio) and pyproj are
# imported by the command when it runs, so `build --help` and a usage error stay quick
# (tests/test_cli_imports.py).


def _bbox(
    _ctx: click.Context, _param: click.Parameter, value: str | None
) -> tuple[float, ...] | None:
    if value is None:
        return None
    from scenario_builder.coords import parse_bbox

    try:
        return parse_bbox(value)
    except ScenarioError as exc:
        raise click.BadParameter(exc.problem) from None


def read_bbox(
    bbox: tuple[float, float, float, float], crs_text: str | None, dem: str | Path
) -> tuple[str | None, str]:
    """The CRS ``--bbox`` is in (None: WGS84 degrees) and the line saying how it was read.

    With ``--crs`` that CRS; otherwise metres on the UTM grid the build makes of the DEM if the
    box overlaps it there, else lon,lat (``scenario_builder.coords``).
    """
    from scenario_builder.coords import as_written, describe, guess_box_crs, parse_crs
    from scenario_builder.dem import dem_extent

    extent = dem_extent(dem)
    if crs_text is not None:
        crs = parse_crs(crs_text)
        how = "from --crs"
    else:
        guessed = guess_box_crs(extent, "--bbox", bbox, what="the DEM")
        crs = extent.crs if guessed is None else parse_crs(guessed)
        how = "guessed: --crs to choose"
    line = f"read --bbox {as_written(bbox)} as {describe(crs, extent.crs)} ({how})"
    if crs.equals(parse_crs("EPSG:4326")):
        return None, line
    return crs.to_string(), line


@click.command("build")
@click.argument("slug", required=False)
@click.option("--dem", type=click.Path(dir_okay=False), help="DEM raster (GeoTIFF, any CRS).")
@click.option(
    "--landcover",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="Land cover: raster (WorldCover/CORINE/NLCD) or vector (OSM GeoJSON/GPKG). Repeatable.",
)
@click.option(
    "--overlay",
    "overlays",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="Historical overlay (GeoJSON/GPKG with a 'feature' property); wins over land cover.",
)
@click.option(
    "--bbox",
    callback=_bbox,
    help="Area to build, W,S,E,N: lon/lat degrees or map metres (said which; see --crs).",
)
@click.option(
    "--crs",
    "crs_text",
    default=None,
    help="CRS of --bbox (default: lon,lat, or the metres of the UTM grid the build makes, "
    "whichever overlaps the DEM; EPSG:4326 means lon,lat).",
)
@click.option(
    "--codes",
    multiple=True,
    help="Code table CSV overriding a shipped one (kind from its header), "
    "or a shipped raster table name: worldcover, corine, corine_grid, nlcd. Repeatable.",
)
@click.option(
    "--unknown-as",
    "unknown_as",
    metavar="CLASS",
    default=None,
    help="Feature (data/codes/features.csv, e.g. open) for land-cover raster codes missing "
    "from the table (default: such codes are an error).",
)
@click.option(
    "--resolution",
    type=click.FloatRange(min=0.5),
    help="Cell size in metres (default: from the DEM).",
)
@click.option(
    "--step",
    type=click.FloatRange(min=0.1),
    default=None,
    help=f"Height step in metres (6.2) [default: the site's site.json levels, else {STEP_M:g}].",
)
@click.option(
    "--min-region",
    "min_region",
    type=click.FloatRange(min=0),
    default=MIN_AREA_M2 / 10_000,
    show_default=True,
    help="Smallest hill top or hollow in hectares; smaller ones are levelled with the ground "
    "around them (area opening and closing at every level).",
)
@click.option(
    "--smooth",
    "smooth_m",
    type=click.FloatRange(min=0),
    default=None,
    help="Gaussian smoothing of the DEM before levelling (sigma, metres) [default: the "
    f"site's site.json levels, else {SMOOTH_M:g}, or half the DEM's cell if that is more].",
)
@click.option(
    "--cliff",
    "cliff_deg",
    type=click.FloatRange(min=0, max=90),
    default=CLIFF_DEG,
    show_default=True,
    help="Slopes steeper than this (degrees) are cliffs: impractical.",
)
@click.option(
    "--max-cells",
    "max_cells",
    type=click.IntRange(min=1),
    default=MAX_CELLS,
    show_default=True,
    help="Refuse a grid of more cells than this (about 90 bytes of memory a cell), checked "
    "before anything is read; the largest shipped site builds to 1.2 M.",
)
@out_dir_option
@force_option
def build(
    slug: str | None,
    dem: str | None,
    landcover: tuple[str, ...],
    overlays: tuple[str, ...],
    bbox: tuple[float, float, float, float] | None,
    crs_text: str | None,
    codes: tuple[str, ...],
    unknown_as: str | None,
    resolution: float | None,
    step: float | None,
    min_region: float,
    smooth_m: float | None,
    cliff_deg: float,
    max_cells: int,
    out: str,
    force: bool,
) -> None:
    """Build a battlefield: a shipped SLUG (see `scenario-builder sites`) or your own --dem."""
    if (slug is None) == (dem is None):
        raise click.UsageError("give either a shipped SLUG or --dem PATH (not both)")
    if slug is not None and (landcover or overlays):
        raise click.UsageError("--landcover/--overlay go with --dem; a shipped SLUG brings its own")
    if crs_text is not None and bbox is None:
        raise click.UsageError("--crs says what --bbox is in; give --bbox too")
    bbox_crs, read_line = None, ""
    if bbox is not None:
        from scenario_builder.sites import get_site

        source = get_site(slug).dem if slug is not None else dem
        assert source is not None  # checked above: a SLUG or --dem
        bbox_crs, read_line = read_bbox(bbox, crs_text, source)
    if slug is not None:
        from scenario_builder.sites import get_site

        dem_path: str | Path = get_site(slug).dem
    else:
        assert dem is not None  # checked above: a SLUG or --dem
        dem_path = dem
    from scenario_builder.build import build_from_paths, build_site, check_size

    # Sized from the DEM's header before --out is claimed or a cell is read: a grid too fine
    # for the machine is one line now, not minutes of swapping.
    check_size(dem_path, resolution=resolution, bbox=bbox, bbox_crs=bbox_crs, max_cells=max_cells)
    stamp = {"command": "build", "input": slug or str(dem)}
    claim_out_dir(out, stamp, force=force)
    options: dict[str, Any] = dict(
        resolution=resolution,
        step=step if step is not None or slug is not None else STEP_M,
        min_area_m2=min_region * 10_000,
        smooth_m=smooth_m,
        cliff_deg=cliff_deg,
        codes=codes,
        unknown_as=unknown_as,
        bbox=bbox,
        bbox_crs=bbox_crs,
        max_cells=max_cells,
    )
    if read_line:
        click.echo(read_line)
    with progress_bar("building") as bar:

        def tell(stage: str) -> None:
            bar.stage(stage, STAGES.index(stage), len(STAGES) + 1)

        if slug is not None:
            result = build_site(slug, progress=tell, **options)
        else:
            assert dem is not None  # checked above: a SLUG or --dem
            result = build_from_paths(
                dem, landcover=landcover, overlays=overlays, progress=tell, **options
            )
        bar.stage("writing", len(STAGES), len(STAGES) + 1)
        try:
            with atomic_dir(out, stamp=stamp, replace=force) as tmp:
                result.save(tmp)
        except OSError as exc:
            if isinstance(exc, ScenarioError):
                raise
            raise ScenarioError(
                out, f"cannot write the battlefield ({exc.strerror or exc})"
            ) from exc
    Console(file=sys.stdout).print(summary_table(result, Path(out)))


def summary_table(result: BuildResult, out: Path) -> Table:
    """Area per movement class, cover class and feature; number of levels."""
    bf = result.battlefield
    table = Table(
        title=f"{bf.meta.get('slug') or out.name}: {bf.shape[1]}x{bf.shape[0]} cells of "
        f"{bf.res:g} m, {bf.crs.to_string()}, {bf.n_levels} levels of {bf.step:g} m -> {out}"
    )
    table.add_column("layer")
    table.add_column("class")
    table.add_column("area (ha)", justify="right")
    table.add_column("share", justify="right")
    total = bf.shape[0] * bf.shape[1] * bf.res * bf.res
    for layer in ("move", "cover", "feature"):
        for name, area in sorted(bf.area_by_class(layer).items(), key=lambda kv: -kv[1]):
            table.add_row(layer, name, f"{area / 10_000:,.1f}", f"{area / total:.1%}")
    table.caption = f"{len(result.regions)} regions, {len(result.contours)} contour lines"
    return table
