"""Troop lists and scenario files: loading, round trips, errors naming file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.rulesets.two_mm_earth.profiles import load_army
from engine.scenario import Scenario, load_scenario
from scenario_builder.errors import DataSourceError, OffMapError, ScenarioFileError
from scenario_builder.paths import data_dir

SCENARIOS = sorted((data_dir() / "scenarios").glob("*.yaml"))
ARMIES = sorted((data_dir() / "troops").glob("*.yaml"))


@pytest.mark.parametrize("path", ARMIES, ids=lambda p: p.stem)
def test_2_2_shipped_troop_lists_load(path):
    army = load_army(path.stem)
    assert army.army == path.stem and army.profiles
    for p in army.profiles:
        assert 1 <= p.initiative <= 6  # 2.1


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_shipped_scenarios_load_and_round_trip(path, tmp_path):
    sc = load_scenario(path)
    out = tmp_path / "again.yaml"
    sc.save(out)
    assert load_scenario(out, check_armies=False) == sc


def test_troop_list_error_names_file_line_and_field(tmp_path):
    bad = tmp_path / "bad_army.yaml"
    text = (data_dir() / "troops" / "english_1513.yaml").read_text()
    bad.write_text(text.replace("initiative: 2", "initiative: 9", 1))
    with pytest.raises(ScenarioFileError) as err:
        load_army(bad)
    msg = str(err.value)
    assert "bad_army.yaml" in msg and "initiative" in msg and "line " in msg and "9" in msg


def test_scenario_unknown_profile_names_the_line(tmp_path):
    text = (data_dir() / "scenarios" / "flodden_1513.yaml").read_text()
    bad = tmp_path / "s.yaml"
    bad.write_text(text.replace("profile: sc_pike_border", "profile: sc_pike_bordr", 1))
    with pytest.raises(ScenarioFileError) as err:
        load_scenario(bad)
    lineno = next(i for i, ln in enumerate(bad.read_text().splitlines(), 1) if "bordr" in ln)
    assert f"line {lineno}" in str(err.value) and "sc_pike_bordr" in str(err.value)


def test_scenario_missing_file_and_bad_yaml(tmp_path):
    with pytest.raises(DataSourceError):
        load_scenario(tmp_path / "nope.yaml")
    bad = tmp_path / "broken.yaml"
    bad.write_text("id: [unclosed\n")
    with pytest.raises(ScenarioFileError, match=r"broken\.yaml"):
        load_scenario(bad)


def test_scenario_json_schema_forbids_unknown_fields():
    schema = Scenario.json_schema()
    assert schema["additionalProperties"] is False
    assert "FormationSpec" in schema["$defs"]


def test_3_1_deployment_places_ranks_and_off_map_is_named(built_flodden):
    from engine.deploy import deploy
    from engine.rulesets import get_ruleset

    bf = built_flodden.battlefield
    sc = load_scenario("flodden_1513")
    state = deploy(sc, bf, get_ruleset())
    f = state.formations["sc_king"]
    assert f.ranks == 2 and f.frontage == 8 and len(f.bases) == 15
    assert all(bf.contains(b.x, b.y) for b in f.bases)
    assert state.characters["james_iv"].general
    data = sc.model_dump()
    data["sides"][0]["formations"][0]["position"] = {"xy": [0.0, 0.0]}
    moved = Scenario.model_validate(data)
    moved._path = Path("flodden_1513.yaml")
    moved._armies = dict(sc._armies)
    with pytest.raises(OffMapError, match=r"flodden_1513\.yaml: formation sc_home"):
        deploy(moved, bf, get_ruleset())
