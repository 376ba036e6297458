"""Field walls, fences and hedges are linear obstacles; only fortifications are 2mm Earth 8.3
walls. A stone wall round a field (the Wheatfield at Gettysburg, the Trostle farm) is played by
a table as 7.2 debris: cover, and 7.3's movement through debris; 8.3's walls (no cavalry on
them, ladders from outside, rampart bases) are for walls the sources or the overlay call
fortifications (Kalkriese's turf rampart, a town or castle wall).

Before the vocabulary had ``field_wall``, OSM ``barrier=wall`` and the Gettysburg overlay's
four stone walls were ``wall``, so Gettysburg ran with the siege rules on.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from engine.rulesets import get_ruleset
from engine.rulesets.dark_age.terrain import DarkAgeTerrain
from engine.rulesets.medieval_d10.terrain import Cover, Terrain, load_terrain_table
from engine.rulesets.two_mm_earth import sieges
from engine.rulesets.two_mm_earth.charts import CoverClass, MoveClass
from scenario_builder.codetables import CodeTables


def _cells(bf: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    legend = bf.meta["legend"]["feature"]
    code = next(int(k) for k, v in legend.items() if v == name)
    return np.nonzero(bf.layer("feature") == code)


def test_osm_field_walls_and_fences_are_not_fortifications() -> None:
    osm = CodeTables.load().osm
    assert osm.match({"barrier": "wall"})[0] == "field_wall"
    assert osm.match({"barrier": "fence"})[0] == "fence"
    assert osm.match({"barrier": "city_wall"})[0] == "wall"
    assert osm.match({"historic": "city_walls"})[0] == "wall"


def test_gettysburg_stone_walls_are_debris_and_no_siege(built_gettysburg: Any) -> None:
    bf = built_gettysburg.battlefield
    rows, cols = _cells(bf, "field_wall")
    assert len(rows) > 100  # the four walls of the overlay, burned cell by cell
    assert not sieges.has_fortifications(bf)
    # 7.2 / 7.3: every field-wall cell is debris for movement and cover
    assert set(np.unique(bf.layer("move")[rows, cols]).tolist()) == {int(MoveClass.DEBRIS)}
    assert set(np.unique(bf.layer("cover")[rows, cols]).tolist()) == {int(CoverClass.DEBRIS)}


def test_kalkriese_rampart_keeps_the_siege_rules() -> None:
    from scenario_builder.build import build_site

    bf = build_site("teutoburg_kalkriese").battlefield
    assert sieges.has_fortifications(bf)  # "Germanic turf rampart on the Oberesch"


@pytest.mark.parametrize("feature", ["field_wall", "fence", "hedge"])
def test_every_ruleset_plays_them_as_linear_obstacles(feature: str) -> None:
    medieval = load_terrain_table().rows[feature]
    assert medieval.terrain is Terrain.WALL_FENCE_HEDGE
    assert medieval.cover is (Cover.HARD if feature == "field_wall" else Cover.SOFT)
    dark = get_ruleset("dark-age").terrain.rows()[feature]
    assert dark["move"] == DarkAgeTerrain.MINOR_OBSTACLE.name.lower()  # 5.20
    two = get_ruleset("2mm-earth-v0.9").terrain.rows()[feature]
    assert (two["move"], two["cover"]) == ("debris", "debris")  # 7.2 / 7.3
