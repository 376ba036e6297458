"""Coasts and rivers are ground truth.

Real data: the Halidon Hill crop of OS Terrain 50 (data/battlefields/halidon_hill, provenance in
data/SOURCES.md section 5), whose 156 nodata cells in the NE corner are the North Sea (OS has no
tile NU06: there is no land). Before this change they were filled from their neighbours and
classed ``open``: a formation could be deployed, and fight, in the sea.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import rasterio

from engine.deploy import deploy
from engine.rulesets import get_ruleset
from engine.scenario import load_scenario
from scenario_builder.battlefield import MoveClass
from scenario_builder.build import build_site
from scenario_builder.dem import read_dem
from scenario_builder.errors import ScenarioFileError
from scenario_builder.sites import get_site

# A point in the North Sea corner of the crop (OS Terrain 50 void; ODN rim -1.5 m), as lon/lat
# and as metres in the battlefield's UTM zone 30N.
SEA_LONLAT = (-1.98359, 55.83347)
SEA_XY = (563662.5, 6188012.5)
# Halidon Hill summit (NT 9688 5483, 161.9 m): where the English stood.
HILL_LONLAT = (-2.0486, 55.7895)
RULES = get_ruleset("2mm-earth-v0.9")


@pytest.fixture(scope="module")
def halidon():
    return build_site("halidon_hill").battlefield


def test_sea_voids_found_where_the_source_has_no_tile() -> None:
    src = read_dem(get_site("halidon_hill").dem)
    with rasterio.open(get_site("halidon_hill").dem) as ds:
        nodata = ds.read_masks(1) == 0
    assert src.voids == int(nodata.sum()) == 156
    assert src.sea is not None and np.array_equal(src.sea, nodata)


def test_inland_srtm_voids_stay_land() -> None:
    src = read_dem(get_site("minden").dem)  # 3 SRTM voids at 17-51 m, far from the edge
    assert src.voids == 3 and src.sea_cells == 0 and src.sea is None


def test_built_coast_is_impractical_water_not_open_land(halidon) -> None:
    x, y = halidon.to_xy(*SEA_LONLAT)
    assert halidon.feature_at(x, y) == "water"
    assert halidon.category_at(x, y) is MoveClass.IMPRACTICAL
    assert np.isfinite(halidon.elevation_at(x, y))  # the surface stays continuous for levels
    assert halidon.elevation_at(x, y) < 0.0  # filled from a rim at low water, about -1.5 m ODN
    dem = next(s for s in halidon.meta["sources"] if s["kind"] == "dem")
    assert dem["voids_filled"] == 156 and dem["sea_cells"] == 156
    area = halidon.area_by_class("feature")
    # the part of the 156 x 50 m x 50 m corner inside the UTM grid: well over a third of it
    assert 0.3 * 156 * 2500 < area["water"] <= 156 * 2500
    assert "Crown copyright" in halidon.meta["attribution"][0]


SCENARIO = """\
id: halidon_sea
name: "Halidon Hill, deployment check"
battlefield: {{slug: halidon_hill}}
sides:
  - id: english
    name: English
    army: english_1513
    formations:
      - {{id: en_hill, profile: en_bills, bases: 4, frontage: 2,
         position: {{lonlat: [{hill[0]}, {hill[1]}]}}}}
  - id: scots
    name: Scots
    army: scots_1513
    formations:
      - {{id: sc_boats, profile: sc_pike_border, bases: 2, frontage: 2,
         position: {pos}}}
"""


def _scenario(tmp_path: Path, pos: str) -> Path:
    path = tmp_path / "halidon_sea.yaml"
    path.write_text(SCENARIO.format(hill=HILL_LONLAT, pos=pos), encoding="utf-8")
    # the troop lists are shipped ones; a scenario outside data/ names them by id
    return path


@pytest.mark.parametrize(
    ("pos", "written"),
    [
        (f"{{lonlat: [{SEA_LONLAT[0]}, {SEA_LONLAT[1]}]}}", "lonlat [-1.98359, 55.83347]"),
        (f"{{xy: [{SEA_XY[0]}, {SEA_XY[1]}]}}", "xy [563662.5, 6188012.5]"),
    ],
)
def test_deploying_in_the_sea_names_formation_file_line_and_coordinates(
    tmp_path: Path, halidon, pos: str, written: str
) -> None:
    path = _scenario(tmp_path, pos)
    sc = load_scenario(path)
    with pytest.raises(ScenarioFileError) as err:
        deploy(sc, RULES.ground(halidon), RULES)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith(f"{path}: line 16: formation sc_boats: ")
    assert "water 100 %" in msg and "impractical" in msg
    assert msg.endswith(written)


def test_the_same_army_on_the_hill_deploys(tmp_path: Path, halidon) -> None:
    sc = load_scenario(_scenario(tmp_path, f"{{lonlat: [{HILL_LONLAT[0]}, {55.785}]}}"))
    state = deploy(sc, RULES.ground(halidon), RULES)
    assert set(state.formations) == {"en_hill", "sc_boats"}


def test_cli_run_fails_with_one_line(tmp_path: Path, run_cli) -> None:
    path = _scenario(tmp_path, f"{{lonlat: [{SEA_LONLAT[0]}, {SEA_LONLAT[1]}]}}")
    code, _out, err = run_cli("run", str(path), "--seed", "1", "--out", str(tmp_path / "out"))
    assert code == 1
    assert err.count("\n") == 1 and "formation sc_boats" in err and "line 16" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out" / "battle_log.json").exists()
