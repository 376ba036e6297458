"""Gettysburg, 2 July 1863: the overlay against the shipped 3DEP DEM, the built battlefield, and the
readings of 8.2 (rifle-musket volleys) and 9.2 (age) pinned on the shipped troop lists and scenario.

The DEM is EPSG:3857; positions in the overlay are lon/lat and are reprojected for every lookup.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
import rasterio
from pyproj import Geod, Transformer
from shapely.geometry import LineString, Point, shape
from shapely.geometry.base import BaseGeometry

from engine.rulesets.two_mm_earth.charts import CoverClass, MoveClass
from engine.rulesets.two_mm_earth.profiles import Flag, load_army
from engine.scenario import load_scenario
from scenario_builder.paths import data_dir

SITE = data_dir() / "battlefields" / "gettysburg"
GEOD = Geod(ellps="WGS84")
FEATURES = json.loads((SITE / "overlay.geojson").read_text(encoding="utf-8"))["features"]


def named(text: str) -> BaseGeometry:
    hits = [shape(f["geometry"]) for f in FEATURES if f["properties"]["name"].startswith(text)]
    assert len(hits) == 1, f"expected one feature named {text!r}, got {len(hits)}"
    return hits[0]


class Dem:
    """Elevation by lon/lat on the EPSG:3857 DEM (nearest cell)."""

    def __init__(self) -> None:
        with rasterio.open(SITE / "dem.tif") as src:
            self.a = src.read(1).astype(float)
            self.inv = ~src.transform
            self.to_dem = Transformer.from_crs("EPSG:4326", src.crs, always_xy=True)

    def at(self, lon: float, lat: float) -> float:
        col, row = self.inv @ self.to_dem.transform(lon, lat)
        return float(self.a[int(row), int(col)])

    def max_in(self, poly: BaseGeometry, n: int = 120) -> tuple[float, Point]:
        x0, y0, x1, y1 = poly.bounds
        pts = [Point(x, y) for x in np.linspace(x0, x1, n) for y in np.linspace(y0, y1, n)]
        best = max((p for p in pts if poly.contains(p)), key=lambda p: self.at(p.x, p.y))
        return self.at(best.x, best.y), best


@pytest.fixture(scope="module")
def dem() -> Dem:
    return Dem()


def _along(line: LineString, n: int = 40) -> list[Point]:
    return [line.interpolate(t, normalized=True) for t in np.linspace(0, 1, n)]


@pytest.mark.parametrize("name", ["Plum Run", "Rose Run"])
def test_runs_flow_downhill_in_valleys(dem: Dem, name: str) -> None:
    line = named(name)
    pts = _along(line)
    elev = [dem.at(p.x, p.y) for p in pts]
    assert elev[0] > elev[-1] + 5, f"{name} should fall along its course: {elev[0]} -> {elev[-1]}"
    # each point lies below the mean of the ground 60 m either side across the stream
    lower = 0
    for p, q in itertools.pairwise(pts):
        az, _, _ = GEOD.inv(p.x, p.y, q.x, q.y)
        sides = [dem.at(*GEOD.fwd(p.x, p.y, az + s, 60.0)[:2]) for s in (-90, 90)]
        lower += dem.at(p.x, p.y) <= float(np.mean(sides))
    assert lower / (len(pts) - 1) >= 0.85, f"{name}: only {lower} of {len(pts) - 1} in the valley"


def test_plum_run_runs_between_houcks_ridge_and_little_round_top(dem: Dem) -> None:
    run = named("Plum Run")
    ward_ridge = Point(-77.2425, 39.7935)  # crest of Houck's Ridge above the Triangular Field
    lrt_top, lrt_at = dem.max_in(
        named("Boulders on the western face").union(named("Little Round Top: lightly wooded")), n=60
    )
    cut = LineString([(ward_ridge.x, ward_ridge.y), (lrt_at.x, lrt_at.y)])
    cross = run.intersection(cut)
    assert not cross.is_empty, "Plum Run should cross the line from Houck's Ridge to the summit"
    valley = (
        dem.at(cross.centroid.x, cross.centroid.y)
        if cross.geom_type == "Point"
        else min(dem.at(g.x, g.y) for g in getattr(cross, "geoms", [cross]))
    )
    assert valley < dem.at(ward_ridge.x, ward_ridge.y) - 5
    assert valley < lrt_top - 40  # the western face rises c. 46 m above Plum Run


def test_round_tops_heights_and_cover(dem: Dem) -> None:
    brt, _ = dem.max_in(named("Big Round Top woods"))
    assert brt == pytest.approx(239.0, abs=1.0)
    lrt, _ = dem.max_in(
        named("Little Round Top: lightly wooded").union(named("Boulders on the western face"))
    )
    assert 198 <= lrt <= 205  # 199.7 m at the published point, 203.7 m at the DEM's highest cell
    # the western face is cleared and rocky, not woods: the rock lies west of the wooded part
    face, woods = named("Boulders on the western face"), named("Little Round Top: lightly wooded")
    assert face.centroid.x < woods.centroid.x
    assert woods.intersection(face).area < 0.2 * face.area


def test_devils_den_is_at_the_published_place_above_plum_run(dem: Dem) -> None:
    den = named("Devil's Den: the great boulders")
    _, _, dist = GEOD.inv(den.centroid.x, den.centroid.y, -77.2423861, 39.79150583)
    assert dist < 40, f"{dist:.0f} m from the published coordinate"
    assert not den.intersects(named("Plum Run"))
    run_near = min(
        dem.at(p.x, p.y) for p in _along(named("Plum Run"), 200) if p.distance(den.centroid) < 0.002
    )
    assert dem.at(den.centroid.x, den.centroid.y) > run_near + 3


def test_peach_orchard_is_at_the_road_crossing() -> None:
    cross = named("Emmitsburg Road").intersection(named("Wheatfield Road"))
    assert cross.geom_type == "Point"
    orchard = named("The Peach Orchard (Sherfy)")
    corner = orchard.exterior.coords[0]
    _, _, d = GEOD.inv(cross.x, cross.y, corner[0], corner[1])
    assert d < 30, "the orchard's north-west corner is at the crossing"
    assert orchard.centroid.x > cross.x and orchard.centroid.y < cross.y  # south-east corner


def test_wheatfield_is_about_twenty_acres_with_its_walls() -> None:
    field = named("The Wheatfield")
    area_m2 = abs(GEOD.geometry_area_perimeter(field)[0])
    assert 7.0e4 <= area_m2 <= 9.5e4, f"c. 20 acres (8.1 ha), got {area_m2 / 1e4:.1f} ha"
    for wall in ("Stone wall on the south edge", "Stone wall on the east edge"):
        assert named(wall).distance(field.exterior) < 1e-6, wall
    assert not field.intersects(named("Rose Woods").buffer(-1e-5))


def test_built_battlefield_has_the_1863_ground(built_gettysburg) -> None:
    bf = built_gettysburg.battlefield

    def at(lon: float, lat: float) -> tuple[str, MoveClass]:
        x, y = bf.to_xy(lon, lat)
        return bf.feature_at(x, y), MoveClass(int(bf.category_at(x, y)))

    assert at(-77.24245, 39.79160) == ("cliff", MoveClass.IMPRACTICAL)  # Devil's Den
    assert at(-77.2433, 39.7980)[0] == "farmland"  # the Wheatfield
    assert at(-77.2498, 39.8001)[0] == "orchard"  # the Peach Orchard
    assert at(-77.2392, 39.7865) == ("forest", MoveClass.WOODS)  # Big Round Top
    assert at(-77.2380, 39.7925)[1] == MoveClass.DEBRIS  # LRT western face
    x, y = bf.to_xy(-77.2367, 39.7921)
    assert bf.elevation_at(x, y) > 195


def test_8_2_rifle_musket_lines_volley_skirmishers_do_not() -> None:
    for army in ("union_1863", "confederate_1863"):
        for p in load_army(army).profiles:
            if p.unit_type.value == "infantry":
                assert p.has(Flag.VOLLEYS), f"{army}: {p.id} is a rifle-musket line"
            else:
                assert not p.has(Flag.VOLLEYS), f"{army}: {p.id} should not volley"
            if p.has(Flag.SKIRMISHER):
                assert p.unit_type.value == "light_infantry"


def test_9_2_gettysburg_orders_travel_by_horse() -> None:
    scen = load_scenario(data_dir() / "scenarios" / "gettysburg_1863_day2.yaml")
    assert scen.age == "ancients"
    assert (scen.time, scen.weather, scen.date) == ("day", "clear", "1863-07-02")


def test_8_1_no_battery_starts_in_overhead_cover(built_gettysburg) -> None:
    # 8.1: troops cannot fire Ordnance from overhead cover, so guns deploy at the woods' edge.
    bf = built_gettysburg.battlefield
    scen = load_scenario(data_dir() / "scenarios" / "gettysburg_1863_day2.yaml")
    for side in scen.sides:
        army = scen.army(side.id)
        for f in side.formations:
            if army.profile(f.profile).has(Flag.ORDNANCE_ONLY):
                x, y = bf.to_xy(*f.position.lonlat)
                assert bf.cover_at(x, y) != CoverClass.OVERHEAD, f.id
