"""``scenario-builder route``: a messenger's route over a built battlefield (9.1–9.2).

scenario-builder route out/gettysburg --from X,Y --to X,Y [--crs EPSG:4326] [--enemy enemy.geojson]
                       [--ruleset NAME] [--json] [--map route.html]

Coordinates are in ``--crs`` (default: the battlefield's CRS; with EPSG:4326 give lon,lat).
``--enemy`` is a GeoJSON/GPKG of enemy base polygons the string must twist around; allies are
simply not given. The routing graph is cached per battlefield (``SCENARIO_BUILDER_CACHE``, else
the user cache directory) so the second route on a battlefield skips the build.

``--ruleset`` reads the ground through that ruleset's terrain table and routes by its own reading
of 9.1 (``Ruleset.route_triple``: medieval-d10 counts marsh and impassable ground triple, besides
the woods and built-up areas that block sight); the default is 2mm Earth's classes as built.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from scenario_builder.atomic import atomic_path, check_writable
from scenario_builder.errors import DataSourceError, ScenarioError

from .options import json_option, ruleset_option

if TYPE_CHECKING:
    import pyproj

    from scenario_builder.routing import Route

# networkx, scipy and shapely (the routing graph) and pyproj are imported when the command
# runs, so `route --help` and a usage error stay quick (tests/test_cli_imports.py).


def parse_xy(text: str, option: str) -> tuple[float, float]:
    """``"X,Y"`` -> two finite floats; a one-line error naming the option otherwise.

    >>> parse_xy("300100.5, 4400000", "--from")
    (300100.5, 4400000.0)
    >>> parse_xy("12", "--to")
    Traceback (most recent call last):
    ...
    scenario_builder.errors.ScenarioError: --to: expected X,Y (two numbers), got '12'
    """
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        x, y = float(parts[0]), float(parts[1])
    except ValueError:
        raise ScenarioError(option, f"expected X,Y (two numbers), got {text!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ScenarioError(option, f"expected finite numbers, got {text!r}")
    return (x, y)


def read_enemy(path: str, bf: Any, crs: pyproj.CRS) -> list[Any]:
    """Enemy polygons from a vector file, in the battlefield CRS.

    A file without a CRS is read in ``crs`` (the ``--crs`` of the coordinates).
    """
    import geopandas as gpd

    p = Path(path)
    if not p.is_file():
        raise DataSourceError(p, "no such file (expected enemy polygons, GeoJSON or GPKG)")
    try:
        gdf = gpd.read_file(p)
    except Exception as exc:  # pyogrio raises several kinds for unreadable files
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataSourceError(p, f"cannot read as a vector file ({first})") from None
    gdf = gdf[~gdf.geometry.isna() & ~gdf.geometry.is_empty]
    if gdf.empty:
        raise DataSourceError(p, "expected enemy polygons, got no geometries")
    kinds = sorted(set(gdf.geom_type) - {"Polygon", "MultiPolygon"})
    if kinds:
        raise DataSourceError(p, f"expected Polygon/MultiPolygon enemy bases, got {kinds}")
    if gdf.crs is None:
        gdf = gdf.set_crs(crs)
    minx, miny, maxx, maxy = gdf.total_bounds
    if gdf.crs.is_geographic and not (-180 <= minx <= maxx <= 180 and -90 <= miny <= maxy <= 90):
        raise DataSourceError(
            p,
            f"expected lon/lat in {gdf.crs.to_string()} (GeoJSON's default), got coordinates "
            f"up to ({maxx:.0f}, {maxy:.0f}); save the file with its CRS",
        )
    gdf = gdf.to_crs(bf.crs)
    return list(gdf.geometry.make_valid())


def _inside(bounds: tuple[float, ...], x: float, y: float) -> bool:
    return bounds[0] <= x <= bounds[2] and bounds[1] <= y <= bounds[3]


def check_on_battlefield(bf: Any, option: str, given: tuple[float, float], xy: Any) -> None:
    """A point off the battlefield is an error in the coordinates the user wrote."""
    from scenario_builder.coords import as_written

    if not _inside(bf.bounds, *xy):
        w, s, e, n = bf.bounds_lonlat()
        raise ScenarioError(
            option,
            f"{as_written(given)} is off the battlefield (lon {w:.4f}..{e:.4f}, lat "
            f"{s:.4f}..{n:.4f})",
        )


def _transformers(bf: Any, crs_text: str | None) -> tuple[pyproj.CRS, Any, Any]:
    import pyproj

    from scenario_builder.coords import parse_crs

    if crs_text is None:
        return bf.crs, None, None
    crs = parse_crs(crs_text)
    fwd = pyproj.Transformer.from_crs(crs, bf.crs, always_xy=True)
    back = pyproj.Transformer.from_crs(bf.crs, crs, always_xy=True)
    return crs, fwd, back


@click.command("route")
@click.argument("battlefield_dir", metavar="BATTLEFIELD_DIR")
@click.option("--from", "from_", required=True, metavar="X,Y", help="Where the message starts.")
@click.option("--to", "to", required=True, metavar="X,Y", help="Where it is going.")
@click.option(
    "--crs",
    "crs_text",
    default=None,
    help="CRS of --from/--to (default: lon,lat or the battlefield's metres, whichever "
    "puts both on the battlefield; EPSG:4326 means lon,lat).",
)
@click.option(
    "--enemy",
    type=str,
    default=None,
    help="Vector file (GeoJSON/GPKG) of enemy base polygons to go around.",
)
@json_option
@click.option("--map", "map_path", default=None, help="Also draw the route to this HTML file.")
@ruleset_option
def route(
    battlefield_dir: str,
    from_: str,
    to: str,
    crs_text: str | None,
    enemy: str | None,
    as_json: bool,
    map_path: str | None,
    ruleset: str | None,
) -> None:
    """Route a messenger across a built battlefield: cost with woods etc. counted triple (9.1)."""
    from scenario_builder.battlefield import Battlefield
    from scenario_builder.coords import describe, guess_crs
    from scenario_builder.routing import RouteGraph
    from scenario_builder.routing.graph import default_cache_dir

    a_in, b_in = parse_xy(from_, "--from"), parse_xy(to, "--to")
    triple = None
    if ruleset is not None:
        from engine.rulesets import get_ruleset

        rs = get_ruleset(ruleset)  # an unknown name is a one-line error, before any loading
    if map_path:
        check_writable(map_path, "--map")
    bf: Any = Battlefield.load(battlefield_dir)  # or a ruleset's view of it (a Ground)
    given_crs = crs_text
    if crs_text is None:
        crs_text = guess_crs(bf, {"--from": a_in, "--to": b_in})
    if ruleset is not None:
        bf, triple = rs.ground(bf), rs.route_triple
    crs, fwd, back = _transformers(bf, crs_text)
    read_as = describe(crs, bf.crs)
    how = "from --crs" if given_crs is not None else "guessed: --crs to choose"
    a = fwd.transform(*a_in) if fwd else a_in
    b = fwd.transform(*b_in) if fwd else b_in
    if given_crs is not None:
        check_on_battlefield(bf, "--from", a_in, a)
        check_on_battlefield(bf, "--to", b_in, b)
    blocked = read_enemy(enemy, bf, crs) if enemy else []
    graph = RouteGraph.from_battlefield(bf, cache_dir=default_cache_dir(), triple=triple)
    r = graph.route(a, b, blocked=blocked)
    shown = [back.transform(x, y) for x, y in r.path] if back else list(r.path)
    if map_path:
        write_map(map_path, bf, r, blocked)
    digits = 7 if crs.is_geographic else 2
    path_shown = [[round(x, digits), round(y, digits)] for x, y in shown]
    report = {
        "battlefield": str(battlefield_dir),
        "crs": crs.to_string(),
        "read_as": read_as,
        "from": list(a_in),
        "to": list(b_in),
        "cost_m": round(r.cost_m, 2),
        "length_m": round(r.length_m, 2),
        "triple_share": round(r.triple_share, 4),
        "n_vertices": r.n_vertices,
        "path": path_shown,
        "enemy_polygons": len(blocked),
        "ruleset": bf.meta.get("ruleset"),
        "triple_terrain": _triple_terrain(triple),
    }
    if as_json:
        click.echo(json.dumps(report, sort_keys=True))
        return
    click.echo(f"Messenger route on {battlefield_dir} ({crs.to_string()})")
    click.echo(f"  read        --from/--to as {read_as} ({how})")
    if ruleset is not None:
        click.echo(
            f"  ruleset     {report['ruleset']}: triple through sight-blocking terrain, "
            f"{report['triple_terrain']}"
        )
    click.echo(f"  cost        {r.cost_m:,.1f} m (triple stretches counted x3, 9.1)")
    click.echo(f"  length      {r.length_m:,.1f} m")
    click.echo(f"  at triple   {r.triple_share:.1%} of the length")
    click.echo(f"  vertices    {r.n_vertices}")
    if blocked:
        click.echo(f"  around      {len(blocked)} enemy polygons")
    for i, (x, y) in enumerate(path_shown):
        click.echo(f"  {i:>3}  {x}, {y}")
    if map_path:
        click.echo(f"  map         {map_path}")


def _triple_terrain(triple: Any) -> str:
    """The triple classes as the report names them (``move: marsh, impassable``).

    >>> _triple_terrain({"move": {"marsh", "impassable"}})
    'move: impassable, marsh'
    """
    from scenario_builder.routing.costs import TWO_MM_EARTH_TRIPLE

    spec = TWO_MM_EARTH_TRIPLE if triple is None else triple
    return "; ".join(f"{role}: {', '.join(sorted(names))}" for role, names in spec.items())


def write_map(path: str, bf: Any, r: Route, blocked: list[Any]) -> Path:
    """A folium map without tiles: route, ends and enemy polygons (written atomically)."""
    try:
        import folium
    except ImportError as exc:  # pragma: no cover - folium is a dependency
        raise ScenarioError(path, "drawing a map needs folium (pip install folium)") from exc
    lonlat = [bf.to_lonlat(x, y) for x, y in r.path]
    latlon = [(lat, lon) for lon, lat in lonlat]
    west, south, east, north = bf.bounds_lonlat()
    from maps.leaflet_offline import make_offline

    m = make_offline(folium.Map(tiles=None, control_scale=True))  # no tiles, no CDN: works offline
    folium.Rectangle(
        [(south, west), (north, east)],
        color="#555555",
        weight=1,
        fill=False,
        tooltip="battlefield",
    ).add_to(m)
    for poly in blocked:
        geo = _to_lonlat_geojson(bf, poly)
        folium.GeoJson(
            geo,
            style_function=lambda _f: {"color": "#c0392b", "fillOpacity": 0.5, "weight": 1},
            tooltip="enemy",
        ).add_to(m)
    tip = f"cost {r.cost_m:,.0f} m, length {r.length_m:,.0f} m, {r.triple_share:.0%} at triple"
    folium.PolyLine(latlon, color="#1f4e9c", weight=4, tooltip=tip).add_to(m)
    for where, label, colour in ((latlon[0], "from", "#27ae60"), (latlon[-1], "to", "#8e44ad")):
        folium.CircleMarker(
            where, radius=7, color=colour, fill=True, fill_opacity=1.0, tooltip=label
        ).add_to(m)
    m.fit_bounds([(south, west), (north, east)])
    out = Path(path)
    try:
        with atomic_path(out) as tmp:
            m.save(str(tmp))
    except ScenarioError:
        raise
    except OSError as exc:
        raise ScenarioError(out, f"cannot write the map ({exc.strerror or exc})") from None
    return out


def _to_lonlat_geojson(bf: Any, geom: Any) -> dict[str, Any]:
    import pyproj
    import shapely

    to_geo = pyproj.Transformer.from_crs(bf.crs, "EPSG:4326", always_xy=True)
    return shapely.geometry.mapping(shapely.ops.transform(to_geo.transform, geom))
