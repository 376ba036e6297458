"""Dark Age 5.13 terrain kinds the feature table alone could not give (``003_e8e36df29227b52b
.txt``): "Difficult terrain ... can include woods, heavy scrub, built up areas, soft sand, bogs,
steep hill slopes and rocky outcrops"; "troops mounted on camels are not affected by soft sand";
"All mounted troops ... may also negotiate steep hill slopes on a road". Steep slopes come from
the DEM (10 degrees, :data:`STEEP_SLOPE_DEG`), played on Teutoburg's Kalkriese slope under
``dark-age``; soft sand is a feature of its own (``sand``: CORINE 331, OSM ``natural=sand``) -
no shipped battlefield has any, so it is shown on the tables (docs/rules-interpretations.md,
"Dark Age: steep slopes and soft sand")."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.movement import footprint_classes
from engine.rulesets import get_ruleset
from engine.rulesets.dark_age.formations import Troop
from engine.rulesets.dark_age.terrain import (
    STEEP_SLOPE_DEG,
    DarkAgeTerrain,
    difficult,
    load_dark_age_table,
    passable,
)
from engine.scenario import load_scenario
from scenario_builder.codetables import (
    load_features,
    load_osm_table,
    load_raster_table,
    load_ruleset_table,
)

DA = "dark-age"
#: the kinds 5.13's steep slope makes difficult; roads (and what is rough already) stay
MADE_STEEP = (
    DarkAgeTerrain.OPEN,
    DarkAgeTerrain.LIGHT_COVER,
    DarkAgeTerrain.MINOR_OBSTACLE,
    DarkAgeTerrain.SOFT_SAND,
)
ROUGH = {int(DarkAgeTerrain.DIFFICULT), int(DarkAgeTerrain.MINOR_OBSTACLE)}


@pytest.fixture(scope="module")
def teutoburg() -> tuple[Any, Any, Any]:
    """Teutoburg's scenario, its ground as ``dark-age`` reads it, and the same ground read
    through the feature table only (no slopes)."""
    from scenario_builder.battle import build_battlefield

    sc = load_scenario("teutoburg_ad9")
    rs = get_ruleset(DA)
    built = build_battlefield(sc).battlefield
    return sc, rs.ground(built), built.with_layers(rs.terrain.classify(built))


def test_5_13_steep_slopes_on_the_kalkriese_ground_are_difficult(teutoburg: Any) -> None:
    """Every cell of 10 degrees or more that the table makes open going, light cover, a minor
    obstacle or sand is difficult; roads stay roads, and gentler ground is the table's."""
    _sc, ground, flat = teutoburg
    slope = np.asarray(ground.layer("slope"))
    move, table = np.asarray(ground.layer("move")), np.asarray(flat.layer("move"))
    steep = slope >= STEEP_SLOPE_DEG
    made = steep & np.isin(table, [int(k) for k in MADE_STEEP])
    # the open strips of the wooded Kalkriese hillside (the woods are difficult already)
    assert made.sum() >= 10
    assert (move[made] == int(DarkAgeTerrain.DIFFICULT)).all()
    assert (move[~made] == table[~made]).all()
    road = steep & (table == int(DarkAgeTerrain.ROAD))
    assert (move[road] == int(DarkAgeTerrain.ROAD)).all()
    assert ground.meta["slope_bands"] == [[STEEP_SLOPE_DEG, "steep_slope"]]


def test_5_13_a_shieldwall_on_the_slope_takes_a_dp_on_a_4(teutoburg: Any) -> None:
    """Seed 3, bound 4: the German warband on the western slope (a shieldwall on ground the
    table calls open, but steeper than 10 degrees) rolls a 4 and takes the difficult-terrain
    DP; on open ground a 4 costs a shieldwall nothing (5.11)."""
    from scenario_builder.battle import commanders

    sc, ground, flat = teutoburg
    rs = get_ruleset(DA)
    b = Battle(ground, sc, Dice(3), ruleset=rs, commanders=commanders(sc, ground, rs))
    for _ in range(3):
        b.step()
    f = b.state.formations["gm_slope_west"]
    assert set(footprint_classes(ground, f, "move")[0]) & ROUGH
    assert not set(footprint_classes(flat, f, "move")[0]) & ROUGH  # the slope, nothing else
    b.step()
    _troop, form, roll = b.ctx.move_rolls["gm_slope_west"]  # type: ignore[attr-defined]
    assert (form.value, roll.face, roll.dps) == ("shieldwall", 4, 1)
    (rec,) = [r for r in b.log.bounds if r.bound == 4]
    assert any(
        e.type == "disorder"
        and getattr(e, "formation", "") == "gm_slope_west"
        and "move die 4" in getattr(e, "reason", "")
        for e in rec.events
    )


def test_5_13_soft_sand_is_its_own_feature_difficult_but_to_camels() -> None:
    """CORINE 331 (beaches, dunes, sands) and OSM ``natural=sand`` are ``sand``, which the
    Dark Age table reads as soft sand: difficult, closed to horse, open to camels; the other
    books read it as they read heath before (2mm Earth plain going, medieval-d10 open)."""
    vocab = load_features()
    assert load_raster_table("corine").mapping[331] == "sand"
    assert load_raster_table("corine_grid").mapping[30] == "sand"
    assert load_osm_table().match({"natural": "sand"}) == ("sand", None)
    kind = load_dark_age_table(vocab=vocab).terrain["sand"]
    assert kind is DarkAgeTerrain.SOFT_SAND
    assert difficult(kind, Troop.DARK_AGE_INFANTRY) and not difficult(kind, Troop.CAMELS)
    assert not passable(kind, Troop.HEAVY_CAVALRY, on_road=False)
    assert passable(kind, Troop.CAMELS, on_road=False)
    two_mm = load_ruleset_table("2mm-earth", vocab).rows
    assert (two_mm["sand"].move, two_mm["sand"].cover) == ("plain", "open")
