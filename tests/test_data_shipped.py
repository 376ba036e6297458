"""Every shipped troop list and scenario loads through the engine models and fits its battlefield.

Troop lists: data/troops/*.yaml (2mm Earth's ``profiles``); scenarios: data/scenarios/*.yaml
(engine.scenario). Positions are checked against the shipped DEM bounds in a local UTM grid, with
each formation's footprint (frontage x 40 m by ranks x 20 m, front edge at the position).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import rasterio
from pyproj import CRS, Transformer
from shapely import affinity
from shapely.geometry import Polygon, box

from engine.rulesets.two_mm_earth.profiles import load_army
from engine.scenario import load_scenario
from scenario_builder.errors import ScenarioError
from scenario_builder.paths import data_dir

TROOPS = sorted((data_dir() / "troops").glob("*.yaml"))
SCENARIOS = sorted((data_dir() / "scenarios").glob("*.yaml"))
BASE_W, BASE_D = 40.0, 20.0


def _utm(lon: float, lat: float) -> CRS:
    zone = int((lon + 180) // 6) + 1
    return CRS.from_epsg((32600 if lat >= 0 else 32700) + zone)


def _site_polygon(slug: str) -> tuple[Polygon, Transformer]:
    """The DEM's footprint in local UTM metres, and the lon/lat -> UTM transformer."""
    with rasterio.open(data_dir() / "battlefields" / slug / "dem.tif") as src:
        to_ll = Transformer.from_crs(src.crs, "EPSG:4326", always_xy=True)
        b = src.bounds
        corners = [
            to_ll.transform(x, y)
            for x, y in ((b.left, b.bottom), (b.right, b.bottom), (b.right, b.top), (b.left, b.top))
        ]
    lon0 = sum(c[0] for c in corners) / 4
    lat0 = sum(c[1] for c in corners) / 4
    to_xy = Transformer.from_crs("EPSG:4326", _utm(lon0, lat0), always_xy=True)
    return Polygon([to_xy.transform(*c) for c in corners]), to_xy


def _footprint(x: float, y: float, frontage: int, ranks: int, facing: float) -> Polygon:
    w, d = frontage * BASE_W, ranks * BASE_D
    rect = box(-w / 2, -d, w / 2, 0)  # front edge on the position, ranks behind it
    return affinity.translate(affinity.rotate(rect, -facing, origin=(0, 0)), x, y)


def test_the_required_lists_and_scenarios_are_shipped() -> None:
    assert {"scots_1513", "english_1513", "roman_ad9", "germanic_ad9"} <= {p.stem for p in TROOPS}
    assert {"flodden_1513", "teutoburg_ad9"} <= {p.stem for p in SCENARIOS}


@pytest.mark.parametrize("path", TROOPS, ids=lambda p: p.stem)
def test_troop_list_loads_with_one_general_and_justified_profiles(path: Path) -> None:
    army = load_army(path)
    assert army.army == path.stem
    assert army.sources, f"{path.name}: no sources"
    assert sum(c.general for c in army.characters) == 1
    for p in army.profiles:
        assert len(p.justification) > 80, f"{path.name}: {p.id} needs a justification"
        # 2.2/2.3 guidance: arming 1-4, resilience 3-6
        for a in (p.arming.melee, p.arming.ranged):
            assert a is None or 1 <= a <= 4, f"{p.id}: arming {a}"
        assert 3 <= p.resilience.melee <= 6 and 3 <= p.resilience.ranged <= 6, p.id


@pytest.mark.parametrize("path", TROOPS, ids=lambda p: p.stem)
def test_1_1_light_troops_act_before_heavy(path: Path) -> None:
    # 1.1/2.1: light units execute first, so every light profile out-initiatives every heavy one.
    army = load_army(path)
    light = [
        p.initiative
        for p in army.profiles
        if p.unit_type.value in ("light_infantry", "light_cavalry")
    ]
    heavy = [
        p.initiative
        for p in army.profiles
        if p.unit_type.value in ("infantry", "war_machine", "baggage")
    ]
    if light and heavy:
        assert min(light) > max(heavy) or min(light) >= 5


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_loads_and_references_exist(path: Path) -> None:
    scen = load_scenario(path)  # check_armies: every profile and character id exists
    assert scen.id == path.stem
    assert scen.battlefield.slug is not None
    side_ids = {s.id for s in scen.sides}
    assert scen.historical_outcome is not None and scen.historical_outcome.winner in side_ids
    assert scen.sources
    for side in scen.sides:
        army = scen.army(side.id)
        assert army.general is not None
        assert side.general == army.general.id, f"{side.id}: general must be the army's general"
        placed = {c.id for c in side.characters}
        assert side.general in placed, f"{side.id}: the general is not on the field"
        total = sum(f.bases for f in side.formations)
        assert 20 <= total <= 60, f"{side.id}: {total} bases (demo target 20-60)"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_formation_lies_inside_the_battlefield_without_overlap(path: Path) -> None:
    scen = load_scenario(path, check_armies=False)
    site, to_xy = _site_polygon(scen.battlefield.slug)
    shapes: list[tuple[str, Polygon]] = []
    for side in scen.sides:
        for f in side.formations:
            assert f.position.lonlat is not None, f"{f.id}: shipped scenarios use lonlat"
            x, y = to_xy.transform(*f.position.lonlat)
            fp = _footprint(x, y, f.frontage, f.ranks, f.facing)
            assert site.buffer(-200).contains(fp), f"{f.id}: not inside {scen.battlefield.slug}"
            shapes.append((f.id, fp))
    for i, (a, pa) in enumerate(shapes):
        for b, pb in shapes[i + 1 :]:
            assert not pa.intersects(pb), f"{a} and {b} overlap at deployment"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_armies_start_facing_each_other(path: Path) -> None:
    scen = load_scenario(path, check_armies=False)
    _site, to_xy = _site_polygon(scen.battlefield.slug)
    centres = {}
    for side in scen.sides:
        pts = [to_xy.transform(*f.position.lonlat) for f in side.formations]
        centres[side.id] = (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))
    a, b = scen.sides[0], scen.sides[1]
    bearing = (
        math.degrees(
            math.atan2(centres[b.id][0] - centres[a.id][0], centres[b.id][1] - centres[a.id][1])
        )
        % 360
    )
    facing = [f.facing for f in a.formations]
    mean_off = sum(min(abs(v - bearing) % 360, 360 - abs(v - bearing) % 360) for v in facing)
    # a marching column (Teutoburg) is caught side-on, so allow up to a right angle on average
    assert mean_off / len(facing) <= 100, (a.id, bearing, facing)


def test_a_bad_profile_id_is_a_one_line_error(tmp_path: Path) -> None:
    src = (data_dir() / "scenarios" / "flodden_1513.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "flodden_bad.yaml"
    bad.write_text(
        src.replace("profile: sc_pike_border", "profile: sc_pike_nonexistent", 1), encoding="utf-8"
    )
    # relative army ids resolve to the shipped lists, so only the profile is wrong
    with pytest.raises(ScenarioError) as err:
        load_scenario(bad)
    assert "sc_pike_nonexistent" in str(err.value) and "\n" not in str(err.value)
