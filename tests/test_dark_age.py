"""Dark Age formations and movement (``003_e8e36df29227b52b.txt`` chapter 5): the book's worked
examples, exact move-roll odds, the terrain table on a real shipped battlefield, and hypothesis
properties (a shieldwall never moves more than its roll allows, wheels pivot on one end, DPs only
grow until a removal rule takes them away)."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dice import AVERAGE_DIE, Dice, ScriptedDice
from engine.geometry import OBB, corners
from engine.rulesets.dark_age.formations import (
    Formation,
    Grade,
    LineUnit,
    Troop,
    cuneus_ranks,
    default_formation_of_four,
    deploy_rate,
    may_form,
    valid_battle_line,
    valid_march_column,
    valid_shape,
)
from engine.rulesets.dark_age.movement import (
    JAVELIN_THROW_M,
    Allowance,
    DisorderPoints,
    DPRemoval,
    Halt,
    MoveKind,
    Pivot,
    Stop,
    about_face,
    about_face_cost,
    allowance,
    double_ranks,
    forced_distance,
    formation_change_cost,
    half_move,
    incline,
    interpenetration_dps,
    major_obstacle_cost,
    may_incline,
    may_side_step,
    may_stop_at,
    pace_setter,
    roll_move,
    side_step,
    wheel,
    wheel_cost,
    within_deviation,
)
from engine.rulesets.dark_age.odds import move_distribution
from engine.rulesets.dark_age.terrain import DarkAgeTerrain, load_dark_age_table, passable
from scenario_builder.build import BuildResult
from scenario_builder.codetables import load_features
from scenario_builder.errors import ScenarioFileError

# ------------------------------------------------------------------ 5.1-5.7 formations


def test_5_2_light_troops_forming_up() -> None:
    assert may_form(Troop.FOOT_ARCHERS, Formation.SHIELDWALL, stationary=True)
    assert may_form(Troop.FOOT_ARCHERS, Formation.SHIELDWALL, in_heavy_battle_line=True)
    assert not may_form(Troop.FOOT_ARCHERS, Formation.SHIELDWALL)  # moving on their own
    assert may_form(Troop.JAVELINMEN, Formation.SHIELDWALL, stationary=True)
    assert not may_form(Troop.ARMED_RABBLE, Formation.SHIELDWALL, in_heavy_battle_line=True)
    assert not may_form(Troop.LIGHT_INFANTRY, Formation.SHIELDWALL, stationary=True)
    assert may_form(Troop.LIGHT_INFANTRY, Formation.UNFORMED)


def test_5_3_cuneus_only_for_shock_dark_age_and_roman_infantry() -> None:
    for t in Troop:
        allowed = may_form(t, Formation.CUNEUS, stands=4)
        assert allowed == (
            t in (Troop.SHOCK_INFANTRY, Troop.DARK_AGE_INFANTRY, Troop.ROMAN_INFANTRY)
        )
    assert not may_form(Troop.ELEPHANTS, Formation.SHIELDWALL)  # single models
    assert may_form(Troop.ELEPHANTS, Formation.SINGLE_MODEL)


def test_5_3_shapes() -> None:
    assert valid_shape(Formation.SHIELDWALL, [4]) and valid_shape(Formation.SHIELDWALL, [2, 1])
    assert not valid_shape(Formation.SHIELDWALL, [2, 2, 2])  # three ranks
    assert valid_shape(Formation.COLUMN, [1, 1, 1, 1]) and not valid_shape(Formation.COLUMN, [2])
    assert [cuneus_ranks(n) for n in range(2, 7)] == [(1, 1), (1, 2), (2, 2), (1, 2, 2), (2, 2, 2)]
    assert not valid_shape(Formation.CUNEUS, [3, 3])  # at most 2 a rank
    assert default_formation_of_four(Troop.DARK_AGE_INFANTRY) is Formation.CUNEUS  # 5.4
    assert default_formation_of_four(Troop.HEAVY_INFANTRY) is Formation.SHIELDWALL


def test_5_5_command_formations() -> None:
    sw = Formation.SHIELDWALL
    refused = [LineUnit(sw, 90.0, 0, 3), LineUnit(sw, 0.0, 0, 3), LineUnit(sw, 0.0, 0, 3)]
    assert valid_battle_line(refused)  # a refused flank at the end of the line
    middle_turned = [LineUnit(sw, 0.0, 0, 3), LineUnit(sw, 90.0, 0, 3), LineUnit(sw, 0.0, 0, 3)]
    assert not valid_battle_line(middle_turned)
    deep = [LineUnit(sw, 0.0, 0, 2), LineUnit(sw, 0.0, 0, 2), LineUnit(sw, 0.0, 1, 2)]
    assert valid_battle_line(deep)  # two units wide, two deep
    assert not valid_battle_line([LineUnit(sw, 0.0, 0, 4), LineUnit(sw, 0.0, 1, 4)])  # 1 x 2
    assert not valid_battle_line([LineUnit(sw, 0.0, 0, 1), LineUnit(sw, 0.0, 2, 1)])
    col = Formation.COLUMN
    assert valid_march_column([LineUnit(col, 0.0, 0, 1), LineUnit(col, 0.0, 0, 1)])
    assert not valid_march_column([LineUnit(col, 0.0, 0, 1), LineUnit(col, 180.0, 0, 1)])


def test_5_7_deploy_rate() -> None:
    assert deploy_rate([Grade.B] * 6) == 5
    assert deploy_rate([Grade.A] * 4 + [Grade.C] * 2) == 7
    assert deploy_rate([Grade.A] * 3 + [Grade.B] * 3) == 5  # exactly half A: no bonus
    assert deploy_rate([Grade.C] * 3 + [Grade.B] * 3) == 3  # at least half C


# ------------------------------------------------------------------ 5.8-5.12 moves and DPs


def test_5_12_the_books_move_examples() -> None:
    # an A Grade light infantry unit rolls 3 on an AvD: at least 2, may move 3
    r = roll_move(ScriptedDice([2]), Troop.LIGHT_INFANTRY, Grade.A, Formation.UNFORMED)
    assert (r.die, r.face, r.allowance, r.dps) == ("AvD", 3, Allowance(2, 3), 0)
    # a Battle Line of heavy infantry rolls a 5: 4 jt and a fatigue DP each
    r = roll_move(ScriptedDice([6]), Troop.HEAVY_INFANTRY, Grade.A, Formation.SHIELDWALL)
    assert (r.face, r.allowance.least, r.dps) == (5, 4, 1)
    # heavy cavalry charging roll 5: 6 jt and a DP; light cavalry unformed roll 6: 6, no DP
    r = roll_move(
        ScriptedDice([5]), Troop.HEAVY_CAVALRY, Grade.B, Formation.SHIELDWALL, MoveKind.FAST
    )
    assert (r.allowance.least, r.dps) == (6, 1)
    r = roll_move(
        ScriptedDice([6]), Troop.LIGHT_CAVALRY, Grade.B, Formation.UNFORMED, MoveKind.FAST
    )
    assert (r.allowance.least, r.dps) == (6, 0)
    # mixed Battle Line: the slowest, then the highest grade, sets the pace
    line = [
        (Troop.HEAVY_CAVALRY, Grade.A),
        (Troop.HEAVY_CAVALRY, Grade.B),
        (Troop.LIGHT_CAVALRY, Grade.B),
    ]
    assert pace_setter(line) == (Troop.HEAVY_CAVALRY, Grade.A)
    assert pace_setter([(Troop.HEAVY_CAVALRY, Grade.B), (Troop.LIGHT_CAVALRY, Grade.A)]) == (
        Troop.HEAVY_CAVALRY,
        Grade.B,
    )


def test_5_9_maximums_minimums_and_columns() -> None:
    for face in range(1, 7):
        inf = allowance(Troop.HEAVY_INFANTRY, face, MoveKind.FAST, Formation.SHIELDWALL)
        cav = allowance(Troop.HEAVY_CAVALRY, face, MoveKind.FAST, Formation.SHIELDWALL)
        assert 1 <= inf.least <= inf.most <= 5 and 1 <= cav.least <= cav.most <= 6
    assert allowance(Troop.HEAVY_INFANTRY, 1, MoveKind.NORMAL, Formation.SHIELDWALL).least == 1
    assert allowance(Troop.HEAVY_INFANTRY, None, MoveKind.NORMAL, Formation.COLUMN).most == 4
    assert allowance(Troop.HEAVY_CAVALRY, None, MoveKind.NORMAL, Formation.COLUMN).most == 6
    assert allowance(Troop.ARTILLERY, None, MoveKind.NORMAL, Formation.SINGLE_MODEL).most == 1
    # 5.13: mounted troops get no longer move on a road
    assert (
        allowance(Troop.HEAVY_CAVALRY, None, MoveKind.NORMAL, Formation.COLUMN, on_road=True).most
        == 6
    )


def test_5_11_5_13_dp_odds_by_formation_and_die() -> None:
    def dp(troop: Troop, grade: Grade, form: Formation, difficult: bool = False) -> Fraction:
        return move_distribution(troop, grade, form, difficult=difficult).dp_chance

    hi = Troop.HEAVY_INFANTRY
    assert dp(hi, Grade.B, Formation.SHIELDWALL) == Fraction(2, 6)  # 5-6
    assert dp(Troop.DARK_AGE_INFANTRY, Grade.B, Formation.CUNEUS) == Fraction(1, 6)  # 5 only
    assert dp(hi, Grade.A, Formation.SHIELDWALL) == Fraction(1, 6)  # AvD shows one 5, no 6
    assert dp(hi, Grade.B, Formation.SHIELDWALL, difficult=True) == Fraction(3, 6)  # 4, 5, 6
    assert dp(Troop.DARK_AGE_INFANTRY, Grade.A, Formation.CUNEUS, difficult=True) == Fraction(3, 6)
    assert dp(hi, Grade.B, Formation.UNFORMED, difficult=True) == 0
    assert dp(hi, Grade.B, Formation.COLUMN, difficult=True) == 0  # no die, no DP
    d = move_distribution(hi, Grade.B, Formation.SHIELDWALL)
    assert d.allowance == {
        1: Fraction(1, 3),
        2: Fraction(1, 6),
        3: Fraction(1, 6),
        4: Fraction(1, 6),
        5: Fraction(1, 6),
    }
    assert d.mean_jt == Fraction(8, 3)


def test_5_8_halts() -> None:
    full = Allowance(4, 4)
    assert forced_distance(full, [Stop(Halt.BOW_RANGE, 3.0)]) == 3.0
    assert not may_stop_at(3.5, full, [Stop(Halt.BOW_RANGE, 3.0)])  # never past the halt
    assert may_stop_at(2.0, full, [Stop(Halt.OBJECTIVE, 2.0)])
    assert not may_stop_at(2.0, full, [])  # must move the full roll
    assert may_stop_at(0.0, full, [Stop(Halt.OBSTACLE, 1.0)])  # up to 1 jt before
    assert half_move(Allowance(3, 3)) == Allowance(2, 2)  # 5.28: halved, rounded up


def test_5_15_deviation() -> None:
    assert within_deviation(350.0, 12.5) and not within_deviation(350.0, 13.0)


def test_5_17_5_27_manoeuvre_costs() -> None:
    assert wheel_cost(Formation.SHIELDWALL).dps == 1 and wheel_cost(Formation.CUNEUS).dps == 0
    assert formation_change_cost(True).dps == 1 and formation_change_cost(False).dps == 0
    assert formation_change_cost(True, from_unformed=True).dps == 0
    assert (
        major_obstacle_cost(
            Troop.HEAVY_INFANTRY, Formation.SHIELDWALL, man_made_temporary=False
        ).dps
        == 1
    )
    assert (
        major_obstacle_cost(Troop.ELEPHANTS, Formation.SINGLE_MODEL, man_made_temporary=True).dps
        == 0
    )
    assert about_face_cost(Troop.HEAVY_INFANTRY, Grade.C, Formation.SHIELDWALL, True).dps == 1
    assert about_face_cost(Troop.ELEPHANTS, Grade.C, Formation.SINGLE_MODEL, True).dps == 0
    assert about_face_cost(Troop.HEAVY_CAVALRY, Grade.A, Formation.SHIELDWALL, True).dps == 0
    assert may_side_step(Troop.HEAVY_INFANTRY, Grade.B, Formation.SHIELDWALL)
    assert not may_side_step(Troop.HEAVY_INFANTRY, Grade.C, Formation.SHIELDWALL)
    assert may_incline(Troop.HEAVY_INFANTRY, Grade.A, Formation.SHIELDWALL)
    assert not may_incline(Troop.HEAVY_INFANTRY, Grade.B, Formation.SHIELDWALL)


def test_5_27_the_books_interpenetration_examples() -> None:
    # (mover formed, stationary, depth), (other formed, stationary, depth) -> DPs
    assert interpenetration_dps(False, False, 1, True, True, 2) == (0, 0)  # red unformed
    assert interpenetration_dps(False, False, 1, True, False, 2) == (0, 1)  # nobody stationary
    assert interpenetration_dps(True, False, 2, False, False, 2) == (1, 0)  # 2-deep unformed
    assert interpenetration_dps(False, False, 1, False, False, 1) == (0, 0)  # no formed unit
    assert interpenetration_dps(True, False, 2, False, True, 1) == (0, 0)  # blue unformed, still
    assert interpenetration_dps(False, False, 1, True, False, 2, a_elephants=True) == (0, 2)


def test_5_22_5_26_5_23_geometry() -> None:
    o = OBB(0.0, 0.0, 60.0, 10.0, 0.0)  # 3 stands of 40 m in one rank
    d = double_ranks(o, 3, 1, 40.0, 20.0)
    assert (d.hw, d.hd) == (40.0, 20.0)
    assert d.cy + d.hd == pytest.approx(o.cy + o.hd)  # the front line stays
    back = double_ranks(d, 3, 2, 40.0, 20.0)
    assert (back.hw, back.hd) == (60.0, 10.0)
    with pytest.raises(ValueError, match="incline"):
        incline(o, 50.0, 25.0, 75.0)  # more to the side than forwards
    assert about_face(about_face(o)) == o
    with pytest.raises(ValueError, match="side-step"):
        side_step(o, 10.0, 10.0)


# ------------------------------------------------------------------ terrain


def test_terrain_table_covers_the_vocabulary() -> None:
    table = load_dark_age_table()
    assert set(table.terrain) == set(load_features().names())
    t = table.terrain
    assert t["forest"] is DarkAgeTerrain.DIFFICULT and t["marsh"] is DarkAgeTerrain.DIFFICULT
    assert t["cliff"] is DarkAgeTerrain.IMPASSABLE
    assert t["stream"] is DarkAgeTerrain.MINOR_OBSTACLE
    assert t["wall"] is DarkAgeTerrain.MAJOR_OBSTACLE and t["road"] is DarkAgeTerrain.ROAD
    assert t["orchard"] is DarkAgeTerrain.LIGHT_COVER
    assert not passable(DarkAgeTerrain.IMPASSABLE, Troop.HEAVY_INFANTRY, on_road=False)
    assert passable(DarkAgeTerrain.DIFFICULT, Troop.HEAVY_CAVALRY, on_road=True)


def test_terrain_table_cover_and_sight_are_2mm_earths() -> None:
    """The composition's combat and sight are 2mm Earth's: its cover and sight cells, unchanged."""
    import csv

    from scenario_builder.codetables import codes_dir

    def cells(name: str) -> dict[str, tuple[str, str]]:
        with (codes_dir() / name).open(encoding="utf-8") as fh:
            return {r["feature"]: (r["cover"], r["blocks_sight"]) for r in csv.DictReader(fh)}

    assert cells("dark-age.csv") == cells("2mm-earth.csv")


def test_terrain_table_bad_rows_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "da.csv"
    bad.write_text("feature,move,cover,blocks_sight\nforest,swampy,open,false\n", encoding="utf-8")
    with pytest.raises(ScenarioFileError, match=r"da\.csv.*swampy"):
        load_dark_age_table(bad)
    short = tmp_path / "short.csv"
    short.write_text(
        "feature,move,cover,blocks_sight\nforest,difficult,overhead,true\n", encoding="utf-8"
    )
    with pytest.raises(ScenarioFileError, match="missing"):
        load_dark_age_table(short)


def test_terrain_on_a_shipped_battlefield(built_bayreuth: BuildResult) -> None:
    """The shipped Bayreuth DEM + OSM pair, built: its feature layer through the Dark Age table."""
    feature = built_bayreuth.battlefield.layer("feature")
    table = load_dark_age_table()
    da = table.classify(feature)
    assert da.shape == feature.shape
    vocab = load_features()
    for code in np.unique(feature):
        assert np.all(da[feature == code] == int(table.terrain[vocab.name(int(code))]))
    kinds = {DarkAgeTerrain(int(k)) for k in np.unique(da)}
    # woods, roads, streams and buildings are all on this ground
    assert {DarkAgeTerrain.DIFFICULT, DarkAgeTerrain.ROAD, DarkAgeTerrain.MINOR_OBSTACLE} <= kinds


# ------------------------------------------------------------------ properties

GRADES = st.sampled_from(list(Grade))
SHIELDWALL_TROOPS = st.sampled_from(
    [Troop.HEAVY_INFANTRY, Troop.DARK_AGE_INFANTRY, Troop.HEAVY_CAVALRY, Troop.ROMAN_INFANTRY]
)


@settings(max_examples=200, deadline=None)
@given(
    troop=SHIELDWALL_TROOPS,
    grade=GRADES,
    kind=st.sampled_from(list(MoveKind)),
    side=st.integers(1, 6),
    stop_at=st.one_of(st.none(), st.floats(0.0, 8.0)),
    halt=st.sampled_from(list(Halt)),
    wanted=st.floats(0.0, 8.0),
)
def test_property_a_shieldwall_never_moves_more_than_its_roll_allows(
    troop: Troop,
    grade: Grade,
    kind: MoveKind,
    side: int,
    stop_at: float | None,
    halt: Halt,
    wanted: float,
) -> None:
    roll = roll_move(ScriptedDice([side]), troop, grade, Formation.SHIELDWALL, kind)
    face = AVERAGE_DIE.value(side) if roll.die == "AvD" else side
    assert roll.face == face
    stops = [] if stop_at is None else [Stop(halt, stop_at)]
    forced = forced_distance(roll.allowance, stops)
    assert forced <= roll.allowance.least
    if may_stop_at(wanted, roll.allowance, stops):
        assert wanted <= roll.allowance.most + 1e-9
    # a shieldwall's allowance is its roll: no optional extra for heavy troops
    assert roll.allowance.least == roll.allowance.most
    # moving it: a wheel then straight on never carries the front line (5.17 measures the
    # outside base's front) further than the allowance
    o = OBB(0.0, 0.0, 40.0, 10.0, 30.0)
    budget = roll.allowance.least * JAVELIN_THROW_M
    max_deg = math.degrees(budget / (2 * o.hw))
    w, used = wheel(o, min(45.0, max_deg), Pivot.LEFT, budget)
    assert used == pytest.approx(budget)
    moved = np.linalg.norm(corners(w)[:2] - corners(o)[:2], axis=1)
    assert moved.max() <= budget + 1e-6


@settings(max_examples=200, deadline=None)
@given(
    cx=st.floats(-1e4, 1e4),
    cy=st.floats(-1e4, 1e4),
    hw=st.floats(10.0, 200.0),
    hd=st.floats(5.0, 40.0),
    facing=st.floats(0.0, 359.9),
    degrees=st.floats(0.0, 180.0),
    pivot=st.sampled_from(list(Pivot)),
)
def test_property_wheels_pivot_on_one_end(
    cx: float, cy: float, hw: float, hd: float, facing: float, degrees: float, pivot: Pivot
) -> None:
    o = OBB(cx, cy, hw, hd, facing)
    arc = 2 * hw * math.radians(degrees)
    w, _ = wheel(o, degrees, pivot, arc)  # all the allowance spent on the wheel
    i = 0 if pivot is Pivot.LEFT else 1  # corners(): front-left, front-right, ...
    assert np.allclose(corners(w)[i], corners(o)[i], atol=1e-6)  # the pivot stays put
    outer = 1 - i
    chord = float(np.linalg.norm(corners(w)[outer] - corners(o)[outer]))
    assert chord == pytest.approx(2 * 2 * hw * math.sin(math.radians(degrees) / 2), abs=1e-6)
    turn = degrees if pivot is Pivot.RIGHT else -degrees
    assert (w.facing - (facing + turn)) % 360.0 == pytest.approx(0.0, abs=1e-6) or (
        (w.facing - (facing + turn)) % 360.0 == pytest.approx(360.0, abs=1e-6)
    )
    assert (w.hw, w.hd) == (o.hw, o.hd)


ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["roll", "wheel", "change", "obstacle", "about", "rally"]),
        st.integers(1, 6),
        st.sampled_from(["t1", "t2", "t3"]),
    ),
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(actions=ACTIONS, grade=GRADES, seed=st.integers(0, 2**31))
def test_property_dps_only_grow_until_removed(
    actions: list[tuple[str, int, str]], grade: Grade, seed: int
) -> None:
    dice = Dice(seed)
    dp = DisorderPoints()
    troop, form = Troop.HEAVY_INFANTRY, Formation.SHIELDWALL
    for what, n, _turn in actions:  # one river crossed over turns
        before = dp.total
        if what == "roll":
            dp = dp.incur(roll_move(dice, troop, grade, form, difficult=n > 3).dps)
        elif what == "wheel":
            dp = dp.incur(wheel_cost(form).dps)
        elif what == "change":
            dp = dp.incur(formation_change_cost(within_bow_range=n > 3).dps)
        elif what == "obstacle":
            # crossing one river over several turns is one action (5.27): charged once
            cost = major_obstacle_cost(troop, form, man_made_temporary=False)
            again = dp.incur(cost.dps, "river")
            assert again.total - dp.total <= (0 if "river" in dp.charged else cost.dps)
            dp = again
        elif what == "about":
            dp = dp.incur(about_face_cost(troop, grade, form, moved_first=n > 3).dps)
        else:
            dp = dp.remove(n, DPRemoval.RALLY)
            assert dp.total == max(before - n, 0)
            continue
        assert dp.total >= before
    with pytest.raises(TypeError):
        dp.remove(1, "rested")  # type: ignore[arg-type]
