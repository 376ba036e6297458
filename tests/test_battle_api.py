"""The library API (:mod:`scenario_builder.battle`) and what it asks of the ruleset.

The battles themselves are pinned by the known answers (tests/test_known_answers.py, fought
through :func:`scenario_builder.battle.fight`); here: the scripted orders, the troop list
schema and the preload list come from the Ruleset object, whichever ruleset it is.
"""

from __future__ import annotations

import json
import sys

import pytest

from engine.rulesets import get_ruleset
from engine.scenario import load_scenario
from scenario_builder import battle
from scenario_builder.errors import ScenarioFileError
from scenario_builder.paths import data_dir

ORDERS = data_dir() / "orders" / "flodden_scots.yaml"


def test_the_run_command_keeps_the_readme_names_it_once_exported() -> None:
    from scenario_builder.cli import run

    assert run.fight is battle.fight and run.build_battlefield is battle.build_battlefield
    assert not hasattr(run, "_commanders") and not hasattr(run, "summarise")


def test_load_orders_reads_through_the_ruleset_and_passes_a_script_through() -> None:
    sc = load_scenario("flodden_1513")
    script = battle.load_orders(sc, ORDERS, None)
    assert script is not None and script.source == str(ORDERS)
    assert battle.load_orders(sc, script, "scots") is script  # checked again, not re-read
    assert battle.load_orders(sc, None, None) is None
    with pytest.raises(ScenarioFileError, match="--orders-side needs --orders"):
        battle.load_orders(sc, None, "scots")
    with pytest.raises(ScenarioFileError, match="expected --orders-side one of"):
        battle.load_orders(sc, ORDERS, "nobody")


def test_a_ruleset_without_scripted_orders_refuses_them_in_one_line() -> None:
    sc = load_scenario("flodden_1513")
    with pytest.raises(ScenarioFileError) as exc:
        battle.load_orders(sc, ORDERS, None, "medieval-d10")
    assert str(exc.value) == f"{ORDERS}: medieval-d10 has no scripted orders (--orders)"


def test_schema_of_troop_lists_is_the_rulesets(run_cli) -> None:
    code, out, _ = run_cli("schema", "--kind", "troops")
    assert code == 0
    assert json.loads(out) == get_ruleset().troop_list_schema()
    code, out, _ = run_cli("schema", "--kind", "troops", "--ruleset", "medieval-d10")
    assert code == 0
    medieval = json.loads(out)
    assert medieval == get_ruleset("medieval-d10").troop_list_schema()
    assert medieval != get_ruleset().troop_list_schema()


def test_preload_imports_each_rulesets_lazy_modules() -> None:
    from engine.rulesets import preload

    wanted = {
        m for name in ("2mm-earth-v0.9", "dark-age") for m in type(get_ruleset(name)).lazy_modules
    }
    assert "engine.rulesets.two_mm_earth.scripted" in wanted
    assert wanted <= set(preload.PRELOADED) and all(m in sys.modules for m in wanted)


def test_commanders_script_some_sides_on_the_ground() -> None:
    sc = load_scenario("flodden_1513")
    bf = battle.build_battlefield(sc).battlefield
    rs = get_ruleset()
    auto = battle.commanders(sc, bf, rs)
    assert set(auto) == {s.id for s in sc.sides}
    scripted = battle.commanders(sc, bf, rs, orders=ORDERS, orders_side="scots")
    assert type(scripted["scots"]).__name__ == "ScriptedCommander"
    assert type(scripted["english"]) is type(auto["english"])
