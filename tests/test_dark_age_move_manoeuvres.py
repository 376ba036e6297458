"""Dark Age manoeuvres made as (part of) a move, ordered from a scenario's ``manoeuvres`` on
Maldon's shipped ground (data/scenarios/maldon_991): 5.17 wheel, 5.24 slow walk, 5.26 incline
and 5.28 passing a gap, each at the chapter's cost in move and DPs and logged as a
``manoeuvre`` event with its section, or refused with a logged reason."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets import get_ruleset
from engine.scenario import ManoeuvreSpec, load_scenario
from scenario_builder.errors import ScenarioFileError
from scenario_builder.paths import data_dir

#: (bound, formation, manoeuvre, degrees) for each side; Maldon seed 1
ORDERS: dict[str, list[tuple[int, str, str, float | None]]] = {
    "english": [
        (1, "en_godric", "wheel_right", 30.0),  # B Grade shieldwall, 1 DP
        (1, "en_fyrd_right", "slow_walk", None),  # B Grade shieldwall, the line's right end
        (1, "en_bowmen", "slow_walk", None),  # C Grade, unformed: refused
    ],
    "vikings": [
        (1, "vk_lith_2", "pass_gap", None),  # 4-wide B Grade shieldwall
        (1, "vk_lith_1", "incline_left", None),  # B Grade: refused
        (1, "vk_archers", "pass_gap", None),  # unformed: refused
        (3, "vk_hird", "incline_left", None),  # A Grade shieldwall
    ],
}


@pytest.fixture(scope="module")
def fought() -> tuple[Battle, dict[int, dict[str, Any]]]:
    """Maldon seed 1 with the orders above, fought 4 bounds; each formation's pose and
    frontage before each bound's moves are kept (bound -> formation -> (x, y, facing, width)),
    and each bound's dice (bound -> "dice" -> rolls)."""
    from scenario_builder.battle import build_battlefield, commanders

    sc = load_scenario("maldon_991")
    rs = get_ruleset("dark-age")
    ground = rs.ground(build_battlefield(sc).battlefield)
    sc = sc.model_copy(deep=True)
    for side in sc.sides:
        side.manoeuvres = [
            ManoeuvreSpec(bound=bd, formations=[f], manoeuvre=m, degrees=d)
            for bd, f, m, d in ORDERS[side.id]
        ]
    b = Battle(ground, sc, Dice(1), ruleset=rs, commanders=commanders(sc, ground, rs))
    poses: dict[int, dict[str, Any]] = {}
    for bound in range(1, 5):
        poses[bound] = {
            f.id: (f.cx, f.cy, f.facing, f.frontage) for f in b.state.formations.values()
        }
        n = len(b.dice.history)
        b.step()
        poses[bound]["dice"] = b.dice.history[n:]
    return b, poses


def _events(b: Battle, *types: str) -> list[tuple[int, Any]]:
    return [(r.bound, e) for r in b.log.bounds for e in r.events if e.type in types]


def _made(b: Battle, fid: str, bound: int) -> Any:
    (e,) = [
        e
        for bd, e in _events(b, "manoeuvre")
        if bd == bound and e.formation == fid and getattr(e, "by", "") == "scenario"
    ]
    return e


def test_5_17_an_ordered_wheel_pivots_on_its_right_end_and_costs_a_dp(fought: Any) -> None:
    """5.17: Godric's men (B Grade, shieldwall 4 wide) roll their move, wheel 30 degrees on
    the front corner of the right end, 1 DP in shieldwall, and go on with the rest."""
    from engine.geometry import forward, right

    b, poses = fought
    e = _made(b, "en_godric", 1)
    assert (e.manoeuvre, e.section, e.time, e.dps) == ("wheel_right", "5.17", "none", 1)
    assert e.detail.startswith("wheeled 30.0 degrees")
    dis = [x for bd, x in _events(b, "disorder") if bd == 1 and x.formation == "en_godric"]
    assert next(x.reason for x in dis) == "wheel_right (5.17)"
    x0, y0, th0, width = poses[1]["en_godric"]
    x1, y1, th1, _w = poses[2]["en_godric"]
    assert (th1 - th0) % 360.0 == pytest.approx(30.0)
    # the pivot (front right corner) stays put, or moves straight ahead on the new facing
    g = b.state.formations["en_godric"]
    hw, hd = width * g.base_w / 2.0, g.ranks * g.base_d / 2.0
    (fx, fy), (rx, ry) = forward(th0), right(th0)
    p0 = (x0 + hw * rx + hd * fx, y0 + hw * ry + hd * fy)
    (fx, fy), (rx, ry) = forward(th1), right(th1)
    p1 = (x1 + hw * rx + hd * fx, y1 + hw * ry + hd * fy)
    dx, dy = p1[0] - p0[0], p1[1] - p0[1]
    assert dx * rx + dy * ry == pytest.approx(0.0, abs=1e-6)  # no sideways slip
    assert dx * fx + dy * fy == pytest.approx(
        float(e.detail.split("then ")[1].split(" m")[0]), abs=0.5
    )


def test_5_24_slow_walk_one_javelin_throw_without_dice(fought: Any) -> None:
    """5.24: the right fyrd (B Grade, formed) walks 25 m straight ahead, no die rolled for it;
    the bowmen (C Grade, unformed) are refused, saying why."""
    b, poses = fought
    e = _made(b, "en_fyrd_right", 1)
    assert (e.section, e.time, e.dps, e.detail) == ("5.24", "none", 0, "25 m ahead without dice")
    (x0, y0, th0, _), (x1, y1, th1, _) = poses[1]["en_fyrd_right"], poses[2]["en_fyrd_right"]
    assert math.hypot(x1 - x0, y1 - y0) == pytest.approx(25.0, abs=1e-6) and th1 == th0
    assert not any("en_fyrd_right" in r.purpose for r in poses[1]["dice"])
    (ref,) = [e for bd, e in _events(b, "manoeuvre_refused") if e.formation == "en_bowmen"]
    assert ref.section == "5.24" and "A and B Grade formed" in ref.reason


def test_5_26_incline_half_aside_as_much_forwards_then_ahead(fought: Any) -> None:
    """5.26, the book's example: the hird (A Grade infantry, shieldwall) rolls 4 on its AvD,
    3 javelin throws, inclines 1 aside and 1 forwards and moves the last one ahead; no DP of its
    own. The B Grade ship crew may not incline: refused."""
    from engine.geometry import forward, right

    b, poses = fought
    e = _made(b, "vk_hird", 3)
    assert (e.section, e.time, e.dps) == ("5.26", "none", 0)
    assert e.detail == "inclined 1 jt aside and 1 jt forwards of 3 jt, then 25 m ahead"
    (x0, y0, th0, _), (x1, y1, th1, _) = poses[3]["vk_hird"], poses[4]["vk_hird"]
    assert th1 == pytest.approx(th0)
    (fx, fy), (rx, ry) = forward(th0), right(th0)
    ahead = (x1 - x0) * fx + (y1 - y0) * fy
    aside = (x1 - x0) * rx + (y1 - y0) * ry
    assert aside == pytest.approx(-25.0, abs=1e-6)  # to the left
    assert ahead == pytest.approx(50.0, abs=1e-6)  # 1 jt in the incline, 1 jt after
    (ref,) = [e for bd, e in _events(b, "manoeuvre_refused") if e.formation == "vk_lith_1"]
    assert ref.section == "5.26" and "only A Grade infantry in shieldwall" in ref.reason


def test_5_28_passing_a_gap_narrows_moves_at_half_and_expands(fought: Any) -> None:
    """5.28 (first): the second ship crew (infantry, shieldwall 4 wide) reduces its frontage by
    half, takes 1 DP, moves at ½ move, and expands back to 4 wide after its move; the unformed
    archers are refused."""
    b, poses = fought
    e = _made(b, "vk_lith_2", 1)
    assert (e.section, e.time, e.dps, e.frontage) == ("5.28", "½ move", 1, (4, 2))
    (back,) = [
        x
        for bd, x in _events(b, "manoeuvre")
        if bd == 1 and x.formation == "vk_lith_2" and x.manoeuvre == "expand after gap"
    ]
    assert back.frontage == (2, 4) and back.dps == 0
    assert poses[2]["vk_lith_2"][3] == 4
    (mv,) = [x for bd, x in _events(b, "moved") if bd == 1 and x.formation == "vk_lith_2"]
    rolls = [r for r in poses[1]["dice"] if r.purpose.startswith("fast move vk_lith_2 ")]
    assert rolls, "the crew rolled its move"
    face = rolls[0].faces[0]
    # charging infantry: d6 less 1 (5.9), halved and rounded up (5.28 second)
    assert mv.allowance_m == pytest.approx(math.ceil((face - 1) / 2) * 25.0)
    dis = [x for bd, x in _events(b, "disorder") if bd == 1 and x.formation == "vk_lith_2"]
    assert any(x.reason == "pass_gap (5.28)" for x in dis)
    (ref,) = [e for bd, e in _events(b, "manoeuvre_refused") if e.formation == "vk_archers"]
    assert ref.section == "5.28" and "unformed" in ref.reason


def test_degrees_are_for_wheels_only(tmp_path: Path) -> None:
    text = (data_dir() / "scenarios" / "maldon_991.yaml").read_text(encoding="utf-8")
    text = text.replace(
        "    plan:\n      stance: defensive",
        "    manoeuvres:\n      - {bound: 2, formations: [en_hearth], manoeuvre: step_back,"
        " degrees: 30}\n    plan:\n      stance: defensive",
    )
    p = tmp_path / "maldon_bad.yaml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioFileError) as err:
        load_scenario(p)
    assert "maldon_bad.yaml" in str(err.value) and "degrees" in str(err.value)


def test_5_29_no_unit_moves_off_the_table_voluntarily() -> None:
    """5.29 "Once on the table, units may not normally move off voluntarily": the right fyrd,
    placed facing east with its back 5 m from Maldon's western table edge (its battle line
    dropped so it may stand alone), is ordered to step back (5.23): refused, saying so, and it
    stays on the table where it was; its side-step along the edge is made."""
    from engine.geometry import corners
    from engine.rulesets.dark_age.manoeuvres import OFF_TABLE
    from scenario_builder.battle import build_battlefield, commanders

    sc = load_scenario("maldon_991").model_copy(deep=True)
    rs = get_ruleset("dark-age")
    ground = rs.ground(build_battlefield(sc).battlefield)
    minx, _miny, _maxx, _maxy = ground.bounds
    english = sc.side("english")
    english.command_formations = []
    spec = next(f for f in english.formations if f.id == "en_fyrd_right")
    y = spec.position.xy[1] if spec.position.xy else 5731636.0
    spec.position = spec.position.model_copy(update={"lonlat": None, "xy": (minx + 25.0, y)})
    spec.facing = 90.0
    english.manoeuvres = [
        ManoeuvreSpec(bound=1, formations=["en_fyrd_right"], manoeuvre="step_back"),
        ManoeuvreSpec(bound=2, formations=["en_fyrd_right"], manoeuvre="side_step_left"),
    ]
    b = Battle(ground, sc, Dice(1), ruleset=rs, commanders=commanders(sc, ground, rs))
    f = b.state.formations["en_fyrd_right"]
    start = (f.cx, f.cy)
    b.step()
    (ref,) = [e for bd, e in _events(b, "manoeuvre_refused") if e.formation == "en_fyrd_right"]
    assert (ref.manoeuvre, ref.section, ref.reason) == ("step_back", "5.23", OFF_TABLE)
    assert (f.cx, f.cy) == start
    b.step()
    made = _made(b, "en_fyrd_right", 2)
    assert made.manoeuvre == "side_step_left"
    assert math.hypot(f.cx - start[0], f.cy - start[1]) == pytest.approx(25.0, abs=1e-6)
    assert bool(ground.contains(corners(f.obb())[:, 0], corners(f.obb())[:, 1]).all())


def test_check_ruleset_with_every_move_manoeuvre_ordered_on_maldon() -> None:
    """The engine's invariants after every phase (no overlaps, no base beyond its allowance,
    losses only grow, ...) hold with the wheels, slow walk, incline and gap above ordered: a
    wheel's or incline's geometry is inside the roll (engine.testing.check_ruleset)."""
    from engine.testing import check_ruleset
    from scenario_builder.battle import build_battlefield, commanders

    sc = load_scenario("maldon_991").model_copy(deep=True)
    rs = get_ruleset("dark-age")
    ground = rs.ground(build_battlefield(sc).battlefield)
    for side in sc.sides:
        side.manoeuvres = [
            ManoeuvreSpec(bound=bd, formations=[f], manoeuvre=m, degrees=d)
            for bd, f, m, d in ORDERS[side.id]
        ]
    report = check_ruleset(
        "dark-age",
        sc,
        seed=1,
        battlefield=ground,
        max_bounds=6,
        hooks=False,  # the hooks are checked on Flodden (test_engine_battle)
        commanders=lambda s, bf: commanders(s, bf, rs),
    )
    assert report.bounds >= 4 and report.events.get("manoeuvre", 0) >= 5


def test_5_28_a_unit_still_in_the_gap_pays_its_dp_once() -> None:
    """5.28 with 5.27 (second) "DPs are incurred only once for each action": the left fyrd
    narrows 4 -> 2 to pass a gap (1 DP); the hearth-troop side-steps into the ground it left
    (5.23), so it cannot expand after its move and stays narrow; ordered through the gap again
    next bound it goes on at its time, with no second DP, and tries to expand after each move."""
    from scenario_builder.battle import build_battlefield, commanders

    sc = load_scenario("maldon_991").model_copy(deep=True)
    rs = get_ruleset("dark-age")
    ground = rs.ground(build_battlefield(sc).battlefield)
    sc.side("english").manoeuvres = [
        ManoeuvreSpec(bound=1, formations=["en_fyrd_left"], manoeuvre="pass_gap"),
        ManoeuvreSpec(bound=1, formations=["en_hearth"], manoeuvre="side_step_left"),
        ManoeuvreSpec(bound=2, formations=["en_fyrd_left"], manoeuvre="pass_gap"),
    ]
    b = Battle(ground, sc, Dice(1), ruleset=rs, commanders=commanders(sc, ground, rs))
    b.step()
    b.step()
    first, again = _made(b, "en_fyrd_left", 1), _made(b, "en_fyrd_left", 2)
    assert (first.dps, first.frontage) == (1, (4, 2))
    assert (again.dps, again.frontage, again.section) == (0, (2, 2), "5.28")
    assert again.detail == "still narrow (2 of 4) from bound 1: no second DP"
    stays = [
        (bd, e.reason) for bd, e in _events(b, "manoeuvre_refused") if e.formation == "en_fyrd_left"
    ]
    assert stays == [(bd, "no room to expand yet: it stays narrow") for bd in (1, 2)]
    dps = [e for _bd, e in _events(b, "disorder") if e.formation == "en_fyrd_left"]
    assert [e.reason for e in dps] == ["pass_gap (5.28)"]
    assert b.state.formations["en_fyrd_left"].frontage == 2
