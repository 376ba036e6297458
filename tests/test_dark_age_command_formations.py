"""Dark Age 5.5-5.9 command formations on Maldon's shipped ground (data/scenarios/maldon_991):
the English Battle Line is formed as deployed, its moving units roll one die (5.9), it breaks
up when it is one no longer (5.5), and a scenario's bad command formation is a one-line error
naming the file and line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets import get_ruleset
from engine.scenario import load_scenario
from scenario_builder.errors import ScenarioFileError
from scenario_builder.paths import data_dir

LINE = ("en_godric", "en_fyrd_left", "en_hearth", "en_fyrd_right")


@pytest.fixture(scope="module")
def maldon() -> tuple[Any, Any]:
    from scenario_builder.battle import build_battlefield

    sc = load_scenario("maldon_991")
    return sc, get_ruleset("dark-age").ground(build_battlefield(sc).battlefield)


def _fight(sc: Any, ground: Any, seed: int, bounds: int) -> list[tuple[int, dict[str, Any]]]:
    from scenario_builder.battle import commanders

    rs = get_ruleset("dark-age")
    battle = Battle(ground, sc, Dice(seed), ruleset=rs, commanders=commanders(sc, ground, rs))
    for _ in range(bounds):
        for _phase in battle.phases():
            pass
        if battle.finished:
            break
    return [
        (b.bound, e.to_dict() if hasattr(e, "to_dict") else e)
        for b in battle.log.bounds
        for e in b.events
    ]


def _events(sc: Any, ground: Any, seed: int, bounds: int, *types: str) -> list[Any]:
    out = []
    for bound, e in _fight(sc, ground, seed, bounds):
        d = (
            e
            if isinstance(e, dict)
            else {"type": e.type, **{k: getattr(e, k) for k in e.__dataclass_fields__}}
        )
        if d["type"] in types:
            out.append((bound, d))
    return out


def test_the_english_battle_line_forms_and_breaks_up(maldon: tuple[Any, Any]) -> None:
    """5.5: the scenario's Battle Line stands at bound 1; seed 4's line is parted in the fight
    (base contact lost, bound 8) and breaks up, saying why (seed 3 until a unit that broke in
    W&C's Resolution made its flee move there, seed 1 until formed units kept their aim within
    5.15's deviation: both lines now break up as Godric's men go)."""
    sc, ground = maldon
    ev = _events(sc, ground, 4, 20, "command_formation", "command_formation_broken")
    (b0, formed), (b1, broken) = ev
    assert b0 == 1 and formed["kind"] == "battle line" and tuple(formed["units"]) == LINE
    assert broken["type"] == "command_formation_broken" and b1 > 1
    assert "base contact" in broken["reason"] and broken["section"] == "5.5"


def test_a_moving_battle_line_rolls_one_die(maldon: tuple[Any, Any]) -> None:
    """5.9 "Units, which are part of a Battle Line ... use the same die roll": the English line
    ordered forward rolls once, for the pace setter, and every unit gets that allowance."""
    sc, ground = maldon
    sc = sc.model_copy(deep=True)
    for f in sc.sides[0].formations:
        if f.id in LINE:
            f.order = "advance"
    ev = _events(sc, ground, 1, 1, "command_move_roll", "moved")
    rolls = [d for _b, d in ev if d["type"] == "command_move_roll"]
    assert len(rolls) == 1
    roll = rolls[0]
    assert roll["command_formation"] == "en_wihaga" and set(roll["units"]) == set(LINE)
    assert roll["section"] == "5.9" and roll["die"] in ("d6", "AvD")
    moved = {d["formation"]: d["distance_m"] for _b, d in ev if d["type"] == "moved"}
    # all four went forward, none further than the one roll allows (25 m javelin throws)
    assert set(LINE) <= set(moved)
    assert max(moved[u] for u in LINE) <= roll["allowance"] * 25.0 + 1e-6
    # 5.5 "all movement ... taken collectively": straight ahead, the same distance, unless a
    # unit is stopped (the hearth-troop by its own bowmen standing before it)
    free = [
        d for _b, d in ev if d["type"] == "moved" and d["formation"] in LINE and d["halted"] is None
    ]
    assert len(free) >= 3
    assert {round(d["distance_m"], 6) for d in free} == {roll["allowance"] * 25.0}
    assert {d["facing"] for d in free} == {45.0}


def _bad(tmp_path: Path, units: str) -> Path:
    text = (data_dir() / "scenarios" / "maldon_991.yaml").read_text(encoding="utf-8")
    text = text.replace(
        "units: [en_godric, en_fyrd_left, en_hearth, en_fyrd_right]", f"units: [{units}]"
    )
    p = tmp_path / "maldon_bad.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def test_a_command_formation_not_in_contact_is_a_file_error(
    maldon: tuple[Any, Any], tmp_path: Path
) -> None:
    """5.5 "in base to base contact": the line without its second unit has a gap; Battle()
    refuses it naming the file and the line."""
    _sc, ground = maldon
    p = _bad(tmp_path, "en_godric, en_hearth, en_fyrd_right")
    sc = load_scenario(p)
    with pytest.raises(ScenarioFileError) as err:
        Battle(ground, sc, Dice(1))
    msg = str(err.value)
    lines = p.read_text(encoding="utf-8").splitlines()
    n = next(i for i, t in enumerate(lines, 1) if "{id: en_wihaga" in t)
    assert "maldon_bad.yaml" in msg and f"line {n}:" in msg and "base contact" in msg


def test_an_unknown_unit_is_a_file_error(tmp_path: Path) -> None:
    p = _bad(tmp_path, "en_godric, en_fyrd_lft")
    with pytest.raises(ScenarioFileError) as err:
        load_scenario(p)
    assert "maldon_bad.yaml" in str(err.value) and "en_fyrd_left" in str(err.value)
