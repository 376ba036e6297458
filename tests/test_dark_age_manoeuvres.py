"""Dark Age manoeuvres as orders on Maldon's shipped ground (data/scenarios/maldon_991): the
scenario's ``manoeuvres`` (5.18 formation changes, 5.22 doubling and halving ranks, 5.23
side-step and step-back) and the automatic commander's own (a column in bow range forms
shieldwall, 5.18), each at the chapter's cost and logged with its section."""

from __future__ import annotations

import math
import typing
from pathlib import Path
from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets import get_ruleset
from engine.rulesets.dark_age.battle import chapter_view
from engine.rulesets.dark_age.formations import Formation
from engine.rulesets.dark_age.manoeuvres import ManoeuvreOrder
from engine.scenario import ManoeuvreSpec, load_scenario
from scenario_builder.errors import ScenarioFileError
from scenario_builder.paths import data_dir

ORDERS = {
    "english": [
        ("en_godric", "double_ranks"),
        ("en_hearth", "step_back"),
        ("en_fyrd_right", "side_step_right"),
        ("en_bowmen", "double_ranks"),
    ],
    "vikings": [
        ("vk_lith_1", "form_column"),
        ("vk_hird", "form_cuneus"),
        ("vk_lith_3", "about_face"),
        ("vk_archers", "about_face"),
    ],
}


@pytest.fixture(scope="module")
def fought() -> tuple[Battle, dict[str, Any]]:
    return _fought(1, 10)


def _fought(seed: int, bounds: int) -> tuple[Battle, dict[str, Any]]:
    """Maldon seed 1 with bound-1 manoeuvres on both sides, fought 10 bounds; the state as
    bound 1's moves began is kept for the frontage and position checks."""
    from scenario_builder.battle import build_battlefield, commanders

    sc = load_scenario("maldon_991")
    rs = get_ruleset("dark-age")
    ground = rs.ground(build_battlefield(sc).battlefield)
    sc = sc.model_copy(deep=True)
    for side in sc.sides:
        side.manoeuvres = [
            ManoeuvreSpec(bound=1, formations=[f], manoeuvre=m) for f, m in ORDERS[side.id]
        ]
    b = Battle(ground, sc, Dice(seed), ruleset=rs, commanders=commanders(sc, ground, rs))
    start = {f.id: (f.cx, f.cy) for f in b.state.formations.values()}
    b.step()
    after_1 = {f.id: (f.cx, f.cy) for f in b.state.formations.values()}
    for _ in range(bounds - 1):
        b.step()
    return b, {"start": start, "after_1": after_1}


def _events(b: Battle, *types: str) -> list[tuple[int, Any]]:
    return [(r.bound, e) for r in b.log.bounds for e in r.events if e.type in types]


def test_the_scenario_names_every_manoeuvre_the_ruleset_makes() -> None:
    from engine.scenario import ManoeuvreSpec as Spec

    names = set(typing.get_args(Spec.model_fields["manoeuvre"].annotation))
    assert names == {m.value for m in ManoeuvreOrder}


def test_formation_changes_and_ranks_at_their_cost(fought: tuple[Battle, dict]) -> None:
    """5.18: the ship crew forms column (4 wide -> 1), the retinue cuneus (3 -> 2), each ½ move
    and no DP outside bow range; 5.22: Godric's single rank doubles (4 -> 2), ½ move, no DP
    (B Grade). The bowmen are no shieldwall: refused, saying so."""
    b, _pos = fought
    made = {
        e.formation: e
        for bd, e in _events(b, "manoeuvre")
        if bd == 1 and getattr(e, "by", "") == "scenario"
    }
    assert (made["vk_lith_1"].section, made["vk_lith_1"].frontage) == ("5.18", (4, 1))
    assert (made["vk_hird"].section, made["vk_hird"].frontage) == ("5.18", (3, 2))
    assert (made["en_godric"].section, made["en_godric"].frontage) == ("5.22", (4, 2))
    for fid in ("vk_lith_1", "vk_hird", "en_godric"):
        assert made[fid].time == "½ move" and made[fid].dps == 0
    (ref,) = [e for bd, e in _events(b, "manoeuvre_refused") if e.formation == "en_bowmen"]
    assert ref.section == "5.22" and "shieldwall" in ref.reason


def test_side_step_and_step_back_take_the_whole_move(fought: tuple[Battle, dict]) -> None:
    """5.23: A and B Grade infantry in shieldwall step one javelin throw (25 m) back or aside,
    no dice, the whole move phase: no move roll after it that bound."""
    b, pos = fought
    made = {e.formation: e for bd, e in _events(b, "manoeuvre") if bd == 1}
    for fid in ("en_hearth", "en_fyrd_right"):
        assert made[fid].section == "5.23" and made[fid].time == "1 move phase"
        moved = [e for bd, e in _events(b, "moved") if bd == 1 and e.formation == fid]
        assert not moved
        (x0, y0), (x1, y1) = pos["start"][fid], pos["after_1"][fid]
        assert math.hypot(x1 - x0, y1 - y0) == pytest.approx(25.0, abs=1e-6)


def test_the_commander_forms_a_column_in_bow_range_into_shieldwall() -> None:
    """5.18, the automatic commander: the ship crew in column comes within bow range and forms
    shieldwall (1 -> 3 wide, the room beside its friends), at ½ move and 1 DP (within bow
    range), as soon as there is room (seed 6, bound 10; it was seed 21 until the bowmen fell
    back before formed enemy (5.12), seed 6 with 1 -> 4 before a unit that broke in W&C's
    Resolution made its flee move there, bound 7 until formed units kept their aim within
    5.15's deviation instead of wheeling each bound)."""
    b, _pos = _fought(6, 10)
    (bd, e) = next(
        (bd, e) for bd, e in _events(b, "manoeuvre") if getattr(e, "by", "") == "commander"
    )
    assert e.formation == "vk_lith_1" and e.manoeuvre == "form_shieldwall"
    assert e.frontage == (1, 3) and e.dps == 1 and e.section == "5.18"
    dis = [x for d, x in _events(b, "disorder") if d == bd and x.formation == "vk_lith_1"]
    assert any(x.reason == "form_shieldwall (5.18)" for x in dis)
    assert chapter_view(b.state.formations["vk_lith_1"])[2] in (
        Formation.SHIELDWALL,
        Formation.COLUMN,
    )


def test_an_unknown_formation_in_a_manoeuvre_is_a_file_error(tmp_path: Path) -> None:
    text = (data_dir() / "scenarios" / "maldon_991.yaml").read_text(encoding="utf-8")
    text = text.replace(
        "    plan:\n      stance: defensive",
        "    manoeuvres:\n      - {bound: 2, formations: [en_hearthh], manoeuvre: step_back}\n"
        "    plan:\n      stance: defensive",
    )
    p = tmp_path / "maldon_bad.yaml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioFileError) as err:
        load_scenario(p)
    assert "maldon_bad.yaml" in str(err.value) and "en_hearth" in str(err.value)


def test_about_face_on_an_order(fought: tuple[Battle, dict]) -> None:
    """5.21: the second leader's crew (A Grade infantry) turns about on the spot, ½ move, no
    DP; the bowmen are unformed and face all round already: refused."""
    b, _pos = fought
    (e,) = [e for bd, e in _events(b, "manoeuvre") if bd == 1 and e.formation == "vk_lith_3"]
    assert (e.manoeuvre, e.section, e.time, e.dps) == ("about_face", "5.21", "½ move", 0)
    assert e.frontage == (3, 3)
    (ref,) = [e for bd, e in _events(b, "manoeuvre_refused") if e.formation == "vk_archers"]
    assert ref.section == "5.21" and "face all round" in ref.reason


def test_check_ruleset_with_the_orders_above_on_maldon() -> None:
    """The engine's invariants after every phase hold with the orders above: the stands
    re-arranged or turned on the spot (5.18, 5.21, 5.22) are priced in time, not distance, and a
    side-step's javelin throw is its move (5.23) (engine.testing.check_ruleset)."""
    from engine.testing import check_ruleset
    from scenario_builder.battle import build_battlefield, commanders

    sc = load_scenario("maldon_991").model_copy(deep=True)
    rs = get_ruleset("dark-age")
    ground = rs.ground(build_battlefield(sc).battlefield)
    for side in sc.sides:
        side.manoeuvres = [
            ManoeuvreSpec(bound=1, formations=[f], manoeuvre=m) for f, m in ORDERS[side.id]
        ]
    report = check_ruleset(
        "dark-age",
        sc,
        seed=1,
        battlefield=ground,
        max_bounds=8,
        hooks=False,  # the hooks are checked on Flodden (test_engine_battle)
        commanders=lambda s, bf: commanders(s, bf, rs),
    )
    assert report.bounds >= 4 and report.events.get("manoeuvre", 0) >= 6
