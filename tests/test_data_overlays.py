"""The shipped historical overlays (data/battlefields/<slug>/overlay.geojson) against the real DEMs.

Streams must run in valleys, hills must be where the DEM has hills, every feature must name a
feature from data/codes/features.csv and cite a source with an honest uncertainty note.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import rasterio
from pyproj import Geod, Transformer
from rasterio.coords import BoundingBox
from shapely.geometry import LineString, Point, shape
from shapely.geometry.base import BaseGeometry

from scenario_builder.codetables import load_features
from scenario_builder.paths import data_dir

SITES = data_dir() / "battlefields"
OVERLAYS = sorted(SITES.glob("*/overlay.geojson"))
GEOD = Geod(ellps="WGS84")


def _load(slug: str) -> list[dict]:
    return json.loads((SITES / slug / "overlay.geojson").read_text(encoding="utf-8"))["features"]


def _named(slug: str, text: str) -> BaseGeometry:
    hits = [shape(f["geometry"]) for f in _load(slug) if text in f["properties"]["name"]]
    assert len(hits) == 1, f"{slug}: expected one feature named like {text!r}, got {len(hits)}"
    return hits[0]


class Dem:
    """Nearest-cell elevation lookups by lon/lat on a shipped DEM (SRTM in EPSG:4326, or the
    Gettysburg EPSG:3857 grid: positions are reprojected and ``bounds`` is in lon/lat)."""

    def __init__(self, slug: str) -> None:
        with rasterio.open(SITES / slug / "dem.tif") as src:
            self.a = src.read(1).astype(float)
            self.transform = src.transform
            self.to_dem = Transformer.from_crs("EPSG:4326", src.crs, always_xy=True)
            b = src.bounds
            if src.crs.is_geographic:
                self.bounds = b
            else:
                back = Transformer.from_crs(src.crs, "EPSG:4326", always_xy=True)
                w, s = back.transform(b.left, b.bottom)
                e, n = back.transform(b.right, b.top)
                self.bounds = BoundingBox(w, s, e, n)

    def at(self, lon: float, lat: float) -> float:
        col, row = ~self.transform @ self.to_dem.transform(lon, lat)
        return float(self.a[int(row), int(col)])

    def inside(self, geom: BaseGeometry) -> bool:
        b = self.bounds
        x0, y0, x1, y1 = geom.bounds
        return b.left <= x0 and x1 <= b.right and b.bottom <= y0 and y1 <= b.top

    def mean_in(self, poly: BaseGeometry, n: int = 30) -> float:
        x0, y0, x1, y1 = poly.bounds
        vals = [
            self.at(x, y)
            for x in np.linspace(x0, x1, n)
            for y in np.linspace(y0, y1, n)
            if poly.contains(Point(x, y))
        ]
        assert vals, "polygon too small to sample"
        return float(np.mean(vals))


def _valley_share(dem: Dem, line: LineString, offset_m: float = 300.0, n: int = 40) -> float:
    """Share of points along ``line`` lower than the mean of the ground ±offset_m across it."""
    lat0 = line.centroid.y
    m_lon = 111_320.0 * math.cos(math.radians(lat0))
    lower = 0
    for t in np.linspace(0.02, 0.98, n):
        p = line.interpolate(t, normalized=True)
        q = line.interpolate(min(t + 0.01, 1.0), normalized=True)
        dx, dy = (q.x - p.x) * m_lon, (q.y - p.y) * 110_540.0
        norm = math.hypot(dx, dy) or 1.0
        nx, ny = -dy / norm, dx / norm  # unit normal in metres
        sides = []
        for s in (-1, 1):
            lon = p.x + s * nx * offset_m / m_lon
            lat = p.y + s * ny * offset_m / 110_540.0
            if dem.inside(Point(lon, lat)):
                sides.append(dem.at(lon, lat))
        if sides and dem.at(p.x, p.y) <= float(np.mean(sides)):
            lower += 1
    return lower / n


def test_both_required_overlays_are_shipped() -> None:
    slugs = {p.parent.name for p in OVERLAYS}
    assert {"flodden", "teutoburg_kalkriese"} <= slugs


@pytest.mark.parametrize("path", OVERLAYS, ids=lambda p: p.parent.name)
def test_every_feature_is_in_the_vocabulary_cited_and_inside_the_dem(path: Path) -> None:
    vocab = load_features()
    fc = json.loads(path.read_text(encoding="utf-8"))
    assert fc["type"] == "FeatureCollection"
    dem = Dem(path.parent.name)
    assert fc["features"], f"{path}: empty"
    for f in fc["features"]:
        props = f["properties"]
        where = f"{path.parent.name}: {props.get('name')!r}"
        assert props["feature"] in vocab, f"{where}: {props['feature']!r} not in features.csv"
        assert isinstance(props.get("name"), str) and props["name"].strip(), where
        for key in ("source", "uncertainty"):
            assert isinstance(props.get(key), str) and len(props[key]) > 20, f"{where}: {key}"
        assert props["evidence"] in ("attested", "reconstruction"), where
        geom = shape(f["geometry"])
        assert geom.is_valid and not geom.is_empty, where
        assert dem.inside(geom), f"{where}: outside the DEM {tuple(dem.bounds)}"
        if geom.geom_type in ("LineString", "MultiLineString"):
            assert float(props["width_m"]) > 0, f"{where}: lines need width_m"


def test_flodden_till_and_pallins_burn_run_in_valleys() -> None:
    dem = Dem("flodden")
    for name in ("River Till", "Pallins Burn"):
        line = _named("flodden", name)
        share = _valley_share(dem, line)
        assert share >= 0.75, f"{name}: only {share:.0%} of the line is below the ground beside it"
        elev = [
            dem.at(*line.interpolate(t, normalized=True).coords[0]) for t in np.linspace(0, 1, 30)
        ]
        assert max(elev) <= 60, f"{name}: climbs to {max(elev)} m"


def test_flodden_scots_hill_stands_above_the_english_ridge_and_the_mire() -> None:
    dem = Dem("flodden")
    hill = dem.mean_in(_named("flodden", "Branxton Hill (Scottish"))
    piper = dem.mean_in(_named("flodden", "Piper Hill"))
    mire = dem.mean_in(_named("flodden", "Boggy hollow"))
    edge = _named("flodden", "Flodden Edge")
    assert hill > piper + 40, (hill, piper)
    assert mire < hill - 40, (mire, hill)
    x0, y0, x1, y1 = edge.bounds
    top = max(
        dem.at(x, y)
        for x in np.linspace(x0, x1, 25)
        for y in np.linspace(y0, y1, 25)
        if edge.contains(Point(x, y))
    )
    assert top >= 160, f"Flodden Edge should reach its 165-183 m summits, got {top}"
    # the mire lies between the two armies' hills
    names = ("Piper Hill", "Boggy hollow", "Branxton Hill (")
    north = [_named("flodden", n).centroid.y for n in names]
    assert north == sorted(north, reverse=True), north


def test_kalkriese_bog_is_low_the_hill_is_wooded_and_high() -> None:
    dem = Dem("teutoburg_kalkriese")
    bog = _named("teutoburg_kalkriese", "Großes Moor")
    forest = _named("teutoburg_kalkriese", "Woods on the Kalkrieser Berg")
    assert 41 <= dem.mean_in(bog) <= 47
    assert dem.mean_in(forest) > 90
    assert not bog.intersects(forest)


def test_kalkriese_wall_is_400_m_between_bog_and_wood() -> None:
    wall = _named("teutoburg_kalkriese", "turf rampart")
    length = GEOD.geometry_length(wall)
    assert 350 <= length <= 500, f"the excavated wall is c. 400 m, got {length:.0f} m"
    bog = _named("teutoburg_kalkriese", "Großes Moor")
    forest = _named("teutoburg_kalkriese", "Woods on the Kalkrieser Berg")
    assert not wall.intersects(bog) and not wall.intersects(forest)
    assert wall.centroid.y < bog.boundary.interpolate(bog.boundary.project(wall.centroid)).y
    dem = Dem("teutoburg_kalkriese")
    elev = [dem.at(*wall.interpolate(t, normalized=True).coords[0]) for t in np.linspace(0, 1, 15)]
    assert min(elev) >= 55 and max(elev) <= 80, f"wall should sit above the hill foot: {elev}"


def test_kalkriese_creeks_flow_downhill_into_the_bog() -> None:
    dem = Dem("teutoburg_kalkriese")
    bog = _named("teutoburg_kalkriese", "Großes Moor")
    for name in ("West creek", "East creek"):
        line = _named("teutoburg_kalkriese", name)
        start, end = line.coords[0], line.coords[-1]
        assert dem.at(*start) > dem.at(*end) + 10, name
        assert bog.distance(Point(end)) < 0.002, f"{name} should end at the bog"


def test_kalkriese_line_of_march_keeps_to_the_dry_strip() -> None:
    march = _named("teutoburg_kalkriese", "Line of the Roman march")
    assert not march.intersects(_named("teutoburg_kalkriese", "Großes Moor"))
    assert not march.intersects(_named("teutoburg_kalkriese", "Woods on the Kalkrieser Berg"))


def test_towton_cock_beck_runs_in_its_valley_below_the_wood_and_the_plateau() -> None:
    dem = Dem("towton")
    beck = _named("towton", "Cock Beck")
    share = _valley_share(dem, beck, offset_m=200.0)
    assert share >= 0.75, f"Cock Beck: only {share:.0%} of the line is below the ground beside it"
    elev = [dem.at(*beck.interpolate(t, normalized=True).coords[0]) for t in np.linspace(0, 1, 40)]
    assert max(elev) <= 40 and elev[0] > elev[-1] + 20, elev  # from Aberford down to the Wharfe
    meadow = dem.mean_in(_named("towton", "Flood meadows"))
    wood = dem.mean_in(_named("towton", "Castle Hill Wood"))
    assert meadow < 22 < wood < 44, (meadow, wood)  # valley floor < the slopes < the 44-52 m top
    # the wood stands on the spur west of the Yorkist left, between the lines' latitudes
    wood_c = _named("towton", "Castle Hill Wood").centroid
    for village, north in (("Saxton", False), ("Towton", True)):
        assert (_named("towton", f"{village} (").centroid.y > wood_c.y) is north, village
