"""Towton 1461 (data/scenarios/towton_1461.yaml) on its OS Terrain 50 ground with the overlay
(data/battlefields/towton/overlay.geojson): under ``medieval-d10`` Castle Hill Wood is wood, the
Cock Beck a stream with its flood meadows marsh, the London road a road, Towton and Saxton
built-up, and the plateau between the armies stays open. Points are OS grid references of the
places the sources name (OVERLAY_SOURCES.md), not read back from the overlay."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
import rasterio
from pyproj import Transformer
from shapely.geometry import shape

from engine.battle import Battle
from engine.dice import Dice
from engine.movement import footprint_classes
from engine.rulesets import get_ruleset
from engine.scenario import load_scenario
from scenario_builder.paths import data_dir

BNG = Transformer.from_crs("EPSG:27700", "EPSG:4326", always_xy=True)


@pytest.fixture(scope="module")
def towton() -> tuple[Any, Any]:
    from scenario_builder.battle import build_battlefield

    sc = load_scenario("towton_1461")
    return sc, get_ruleset("medieval-d10").ground(build_battlefield(sc).battlefield)


def _move(ground: Any, e: float, n: float) -> str:
    """The medieval-d10 TERRAIN CHART class at OS grid point (e, n)."""
    x, y = ground.to_xy(*BNG.transform(e, n))
    codes, inside = ground.codes_on_map("move", np.array([x]), np.array([y]))
    assert inside[0]
    names: list[str] = get_ruleset("medieval-d10").terrain_classes()["move"]
    return names[int(codes[0])]


@pytest.mark.parametrize(
    ("where", "e", "n", "expected"),
    [
        ("Castle Hill Wood, west slope of the spur", 446850, 438000, "wood"),
        ("Castle Hill Wood, north slope above the beck", 447000, 438200, "wood"),
        ("Towton village", 448550, 439650, "built_up"),
        ("Saxton village", 447500, 436850, "built_up"),
        ("the plateau between the lines, east of the road", 448250, 438300, "open"),
        ("the plateau behind the Yorkist left", 447600, 437950, "open"),
        ("the Lancastrian line", 448000, 438850, "open"),
    ],
)
def test_the_named_ground_has_its_class(
    towton: tuple[Any, Any], where: str, e: float, n: float, expected: str
) -> None:
    assert _move(towton[1], e, n) == expected, where


def test_the_cock_beck_valley_floor_is_stream_or_marsh_from_lead_to_the_crossing(
    towton: tuple[Any, Any],
) -> None:
    ground = towton[1]
    # the lowest DEM cell of the valley across each section (Lead, Castle Hill, Bloody Meadow,
    # below the Lancastrian right, below Towton): the beck or its meadows, never dry ground
    with rasterio.open(data_dir() / "battlefields" / "towton" / "dem.tif") as src:
        a = src.read(1)
        for e0, e1, n in (
            (446200, 446700, 436875),  # at Lead
            (446500, 446800, 437975),  # under Castle Hill Wood
            (447300, 447700, 438550),  # the gap below Bloody Meadow
            (446900, 447400, 439100),  # below the Lancastrian right
            (447100, 447500, 439700),  # below the north end of the plateau
        ):
            cols = np.arange(e0 + 25, e1, 50)
            heights = [a[src.index(c, n)] for c in cols]
            low = float(cols[int(np.argmin(heights))])
            assert _move(ground, low, n) in ("stream_ford", "marsh"), (low, n)
    # Bloody Meadow: the flat valley floor north of Castle Hill
    assert _move(ground, 447100, 438325) in ("stream_ford", "marsh")


def test_the_london_road_runs_over_the_plateau_and_through_towton(
    towton: tuple[Any, Any],
) -> None:
    ground = towton[1]
    path = data_dir() / "battlefields" / "towton" / "overlay.geojson"
    feats = json.loads(path.read_text(encoding="utf-8"))["features"]
    road = next(shape(f["geometry"]) for f in feats if f["properties"]["name"].startswith("London"))
    on = [road.interpolate(t, normalized=True) for t in np.linspace(0.05, 0.95, 40)]
    names = get_ruleset("medieval-d10").terrain_classes()["move"]
    x, y = ground.to_xy(np.array([p.x for p in on]), np.array([p.y for p in on]))
    codes, _ = ground.codes_on_map("move", x, y)
    got = {names[int(c)] for c in codes}
    # the road, and where it passes the villages or fords the beck their classes
    assert got <= {"road_track", "built_up", "stream_ford"}, got
    # between the armies, by Dacre's Cross, it is a road the Yorkist centre stands on
    assert _move(ground, 447900, 438100) == "road_track"


def test_every_formation_deploys_off_the_marsh_and_the_ambush_in_the_wood(
    towton: tuple[Any, Any],
) -> None:
    sc, ground = towton
    battle = Battle(ground, sc, Dice(1))
    names = battle.ruleset.terrain_classes()["move"]
    for f in battle.state.formations.values():
        classes, off = footprint_classes(battle.bf, f)
        under = {names[int(c)] for c in classes}
        assert not off and not under & {"marsh", "impassable"}, (f.id, under)
        if f.id == "ln_ambush":
            assert "wood" in under, under  # Trollope's men hidden in Castle Hill Wood
