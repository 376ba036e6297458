"""Movement, terrain and sight on real ground (5.1, 6.1-6.3, 7.1-7.3, 10.3, 11.3 manoeuvring)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from engine.battle import Battle
from engine.dice import Dice, ScriptedDice
from engine.movement import MovePlan, execute_move, footprint_classes, retreat_bearing
from engine.rulesets.two_mm_earth.charts import MoveClass
from engine.rulesets.two_mm_earth.rulesets import BASE_SIZE
from engine.testing import flat_origin, make_scenario, overlapping_pairs

DATA = Path(__file__).parent / "data" / "troops"
ARMIES = (str(DATA / "rules_red.yaml"), str(DATA / "rules_blue.yaml"))


@pytest.fixture(scope="module")
def bf(built_minden):
    return built_minden.battlefield


@pytest.fixture(scope="module")
def origin(bf):
    return flat_origin(bf)


def battle(bf, origin, red, blue, faces=None, **kw):
    sc = make_scenario(red, blue, armies=ARMIES, origin=origin, **kw)
    return Battle(bf, sc, ScriptedDice(faces) if faces is not None else Dice(1))


def moved(rec, fid):
    return [e for e in rec.events if e.type == "moved" and e.formation == fid]


def test_7_3_speed_from_the_chart_by_unit_type(bf, origin):
    b = battle(
        bf,
        origin,
        [
            {"id": "foot", "profile": "inf", "bases": 2, "at": (-200, -300), "order": "advance"},
            {"id": "horse", "profile": "cav", "bases": 2, "at": (200, -300), "order": "advance"},
        ],
        [{"id": "x", "profile": "inf", "bases": 1, "at": (0, 2000), "facing": 180}],
        [],
    )
    rec = b.step()
    assert moved(rec, "foot")[0].distance_m == pytest.approx(100.0)
    assert moved(rec, "horse")[0].distance_m == pytest.approx(300.0)


def test_6_1_no_base_moves_beyond_its_allowance_measured_from_any_point(bf, origin):
    from engine.testing import check_battle

    b = battle(
        bf,
        origin,
        [
            {
                "id": "foot",
                "profile": "inf",
                "bases": 6,
                "frontage": 3,
                "at": (0, 0),
                "order": "attack",
            }
        ],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (250, 150), "facing": 180}],
        max_bounds=3,
    )
    check_battle(b, 3)  # asserts every base's corners stay within the allowance


def test_6_1_minimum_move_is_25m(bf, origin):
    b = battle(
        bf,
        origin,
        [
            {
                "id": "foot",
                "profile": "inf",
                "bases": 2,
                "at": (0, 0),
                "order": "advance",
                "target": {"xy": [origin[0], origin[1] + 20]},
            }
        ],
        [{"id": "x", "profile": "inf", "bases": 1, "at": (0, 2000), "facing": 180}],
        [],
    )
    assert not moved(b.step(), "foot")  # 20 m to go: less than the 25 m minimum, it stays


def test_6_1_formations_halt_on_contact_and_bases_never_overlap(bf, origin):
    b = battle(
        bf,
        origin,
        [{"id": "horse", "profile": "cav", "bases": 4, "at": (0, 0), "order": "attack"}],
        [{"id": "foot", "profile": "inf", "bases": 4, "at": (0, 150), "facing": 180}],
    )
    rec = b.step()
    (m,) = moved(rec, "horse")
    assert m.halted == "contact_enemy" and m.distance_m < 300
    assert b.state.contacts["horse"] == ("foot",)
    assert overlapping_pairs(b.state) == []


def test_1_1_halved_speed_when_half_the_front_rank_is_injured(bf, origin):
    from engine.state import BaseStatus

    b = battle(
        bf,
        origin,
        [
            {
                "id": "foot",
                "profile": "inf",
                "bases": 4,
                "frontage": 2,
                "at": (0, 0),
                "order": "advance",
            }
        ],
        [{"id": "x", "profile": "inf", "bases": 1, "at": (0, 2000), "facing": 180}],
        [],
    )
    b.state.formations["foot"].bases[0].status = BaseStatus.INJURED
    assert moved(b.step(), "foot")[0].distance_m == pytest.approx(50.0)


def test_5_1_formation_moves_at_its_slowest_base(bf, origin):
    # the general's cavalry base rides with infantry: the formation moves 100 m, not 300
    b = battle(
        bf,
        origin,
        [
            {
                "id": "foot",
                "profile": "inf",
                "bases": 3,
                "at": (0, 0),
                "order": "advance",
                "character": "red_general",
            }
        ],
        [{"id": "x", "profile": "inf", "bases": 1, "at": (0, 2000), "facing": 180}],
        [],
    )
    f = b.state.formations["foot"]
    assert {p.id for p in f.profiles} == {"inf", "cav"}
    assert moved(b.step(), "foot")[0].distance_m == pytest.approx(100.0)


def test_11_3_turning_counts_against_the_allowance(bf, origin):
    # a 6-wide line asked to face east: the corners' travel is limited to 100 m, so it turns
    # only part of the way in one bound (no wheel is worked out, no base exceeds its allowance)
    b = battle(
        bf,
        origin,
        [{"id": "foot", "profile": "inf", "bases": 6, "at": (0, 0)}],
        [{"id": "x", "profile": "inf", "bases": 1, "at": (0, 2000), "facing": 180}],
        [],
    )
    f = b.state.formations["foot"]
    res = execute_move(
        bf,
        b.state,
        f,
        MovePlan("foot", "advance", 90.0, goal=(f.cx, f.cy), facing=90.0),
        rules=b.ruleset.move_rules,
    )
    assert 0 < f.facing < 90
    assert res.distance_m <= 100.0 + 1e-6


def test_10_3_retreat_up_to_45_degrees_off_if_45_from_every_enemy_base():
    # enemy due north; home due east: retreat veers from south (180) toward east by 45
    assert retreat_bearing((0, 0), (0, 100), [], home=90.0) == pytest.approx(135.0)
    # an enemy base to the south-east (bearing 135) forbids 135..: the nearest allowed is 180
    assert retreat_bearing((0, 0), (0, 100), [(100, -100)], home=90.0) == pytest.approx(180.0)
    # no enemy: straight home
    assert retreat_bearing((0, 0), None, [], home=270.0) == pytest.approx(270.0)


@pytest.fixture(scope="module")
def bayreuth(built_bayreuth):
    return built_bayreuth.battlefield


def _woods_edge(bf):
    """A point on a north-south wood edge: woods to the east, plain to the west (real OSM)."""
    mv = bf.layer("move")
    w = int(60 / bf.res)
    rows, cols = mv.shape
    m = int(400 / bf.res)  # keep the test troops on the map
    for i in range(m, rows - m, 3):
        for j in range(m, cols - m, 3):
            if (mv[i - w : i + w, j : j + w] == MoveClass.WOODS).all() and (
                mv[i - w : i + w, j - 5 * w : j] == MoveClass.PLAIN
            ).all():
                x, y = bf.transform @ (j, i)
                return float(x), float(y)
    pytest.skip("no straight wood edge found")


def test_7_1_terrain_applies_when_half_the_formation_is_in_it(bayreuth):
    from engine.rulesets.two_mm_earth.profiles import load_army
    from engine.state import Formation

    x, y = _woods_edge(bayreuth)
    inf = load_army(ARMIES[0]).profile("inf")
    # 2 bases facing north astride the edge: one in the wood -> 50 % -> woods apply
    f = Formation.build(
        "f", "red", "F", inf, n_bases=2, frontage=2, cx=x, cy=y, facing=0.0, **BASE_SIZE
    )
    assert MoveClass.WOODS in footprint_classes(bayreuth, f)[0]
    # 4 bases, one in the wood: 25 %, and the middle column is in the open -> plain
    g = Formation.build(
        "g", "red", "G", inf, n_bases=4, frontage=4, cx=x - 60, cy=y, facing=0.0, **BASE_SIZE
    )
    assert footprint_classes(bayreuth, g)[0] == []


def test_7_2_woods_cover_raises_ranged_resilience(bayreuth):
    from engine.battle import Battle
    from engine.rulesets.two_mm_earth.shooting import target_resilience

    x, y = _woods_edge(bayreuth)
    sc = make_scenario(
        [{"id": "bows", "profile": "archers", "bases": 2, "at": (-150, 0), "facing": 90}],
        [
            {"id": "hid", "profile": "inf", "bases": 2, "at": (60, 0), "facing": 270},
            {"id": "open", "profile": "inf", "bases": 2, "at": (-250, 0), "facing": 90},
        ],
        armies=ARMIES,
        origin=(x, y),
        slug="north_bayreuth_pair",
    )
    b = Battle(bayreuth, sc, Dice(1))
    hid, open_ = b.state.formations["hid"], b.state.formations["open"]
    rs = b.ruleset
    r_hid = target_resilience(hid, (x - 150, y), "ranged", b.ctx.cover_class(hid, "ranged"), rs)
    r_open = target_resilience(
        open_, (x - 150, y), "ranged", b.ctx.cover_class(open_, "ranged"), rs
    )
    assert (r_open, r_hid) == (4, 5)  # chart 7.2 infantry overhead: +1 ranged


def test_6_2_a_hill_blocks_sight_on_real_ground(built_flodden):
    from engine.sight import Sight

    bf = built_flodden.battlefield
    lv = bf.layer("level").astype(int)
    # scan for two points 600 m apart east-west on one level with higher ground between them
    rows, cols = lv.shape
    step = int(600 / bf.res)
    found = None
    for i in range(5, rows - 5, 7):
        for j in range(5, cols - step - 5, 7):
            a, c = lv[i, j], lv[i, j + step]
            if a == c and lv[i, j : j + step].max() > a + 1:
                found = (i, j)
                break
        if found:
            break
    assert found is not None
    i, j = found
    (x0, y0) = bf.transform @ (j + 0.5, i + 0.5)
    (x1, y1) = bf.transform @ (j + step + 0.5, i + 0.5)
    assert not bf.line_of_sight((x0, y0), (x1, y1))
    sc = make_scenario(
        [{"id": "r", "profile": "inf", "bases": 1, "at": (0, 0), "facing": 90}],
        [{"id": "b", "profile": "inf", "bases": 1, "at": (x1 - x0, y1 - y0), "facing": 270}],
        armies=ARMIES,
        origin=(x0, y0),
        slug="flodden",
    )
    b = Battle(bf, sc, Dice(1))
    sight = Sight(bf, b.state, rules=b.ruleset.sight_rules)
    assert not sight.sees("r", "b") and not sight.sees("b", "r")


def _sight_battle(bf, origin, red, blue, **kw):
    from engine.sight import Sight

    b = battle(bf, origin, red, blue, **kw)
    return b, Sight(
        bf,
        b.state,
        rules=b.ruleset.sight_rules,
        weather=kw.get("weather", "clear"),
        time=kw.get("time", "day"),
        locality=kw.get("locality"),
    )


def test_6_2_troops_in_between_block_but_near_friends_are_seen_through(bf, origin):
    red = [
        {"id": "obs", "profile": "inf", "bases": 1, "at": (0, 0)},
        {"id": "friend", "profile": "inf", "bases": 4, "at": (0, 80)},
        {"id": "obs2", "profile": "inf", "bases": 1, "at": (0, -200)},
    ]
    blue = [{"id": "tgt", "profile": "inf", "bases": 1, "at": (0, 400), "facing": 180}]
    b, sight = _sight_battle(bf, origin, red, blue)
    assert bf.line_of_sight(b.state.formations["obs2"].centre(), b.state.formations["tgt"].centre())
    assert sight.sees("obs", "tgt")  # friend within 100 m: seen through
    assert not sight.sees("obs2", "tgt")  # the same friends 270 m away block


def test_6_2_cavalry_see_over_foot_chariots_over_cavalry_monsters_over_all(bf, origin):
    red = [
        {"id": "horse", "profile": "cav", "bases": 1, "at": (-300, 0)},
        {"id": "chariot", "profile": "chariot", "bases": 1, "at": (0, 0)},
        {"id": "beast", "profile": "monster", "bases": 1, "at": (300, 0)},
    ]
    blue = [
        {"id": "screen_foot", "profile": "inf", "bases": 2, "at": (-300, 200), "facing": 180},
        {"id": "t1", "profile": "inf", "bases": 1, "at": (-300, 400), "facing": 180},
        {"id": "screen_cav", "profile": "cav", "bases": 2, "at": (0, 200), "facing": 180},
        {"id": "t2", "profile": "inf", "bases": 1, "at": (0, 400), "facing": 180},
        {"id": "screen_beast", "profile": "monster", "bases": 2, "at": (300, 200), "facing": 180},
        {"id": "t3", "profile": "inf", "bases": 1, "at": (300, 400), "facing": 180},
    ]
    _b, sight = _sight_battle(bf, origin, red, blue)
    assert sight.sees("horse", "t1")
    assert sight.sees("chariot", "t2")
    assert sight.sees("beast", "t3")
    from engine.rulesets.two_mm_earth.charts import sees_over

    assert not sees_over("cavalry", "cavalry") and not sees_over("wheel_cavalry", "monster")


def test_6_2_skirmisher_screens_only_close_up(bf, origin):
    red = [
        {"id": "near", "profile": "inf", "bases": 1, "at": (0, 120)},
        {"id": "far", "profile": "inf", "bases": 1, "at": (200, -100)},
    ]
    blue = [
        {"id": "screen", "profile": "skirm", "bases": 2, "at": (0, 200), "facing": 180},
        {"id": "main", "profile": "inf", "bases": 2, "at": (0, 280), "facing": 180},
    ]
    b, sight = _sight_battle(bf, origin, red, blue)
    far = b.state.formations["far"]
    far.set_pose(origin[0], origin[1] - 100, 0.0)
    b.state.version += 1
    assert sight.sees("near", "main")  # within 100 m of the screen, screen within 100 m of main
    assert not sight.sees("far", "main")  # 300 m away: the skirmishers hide the main body


def test_6_2_troops_hear_the_closest_moving_unit_within_75m(bf, origin):
    red = [{"id": "r", "profile": "inf", "bases": 1, "at": (0, 0)}]
    blue = [{"id": "b", "profile": "inf", "bases": 1, "at": (0, 80), "facing": 180}]
    b, sight = _sight_battle(bf, origin, red, blue)
    b.state.formations["b"].moved_m = 30.0
    b.state.version += 1
    assert sight.heard("r") == "b"
    b.state.formations["b"].moved_m = 0.0
    b.state.version += 1
    assert sight.heard("r") is None  # stationary units are not heard


def test_6_3_fog_limits_non_local_troops_to_1500m(bf, origin):
    red = [{"id": "r", "profile": "inf", "bases": 1, "at": (0, -300)}]
    blue = [{"id": "b", "profile": "inf", "bases": 1, "at": (-1400, 900), "facing": 180}]
    sc = make_scenario(red, blue, armies=ARMIES, origin=origin, weather="fog", locality="blueland")
    b = Battle(bf, sc, Dice(1))
    from engine.sight import Sight

    sight = Sight(
        bf, b.state, rules=b.ruleset.sight_rules, weather="fog", time="day", locality="blueland"
    )
    d = math.dist(b.state.formations["r"].centre(), b.state.formations["b"].centre())
    assert d > 1500
    assert sight.limit_m(b.state.formations["r"]) == 1500.0
    assert sight.limit_m(b.state.formations["b"]) is None  # locals know the ground
    assert not sight.sees("r", "b")


def test_6_1_allowance_property_random_moves(bf, origin):
    """hypothesis-style sweep with fixed seeds: moves never exceed the allowance."""
    rng = np.random.default_rng(4)
    from engine.testing import check_battle

    for k in range(3):
        red = [
            {
                "id": f"r{i}",
                "profile": str(rng.choice(["inf", "cav", "archers"])),
                "bases": int(rng.integers(1, 7)),
                "frontage": 3,
                "at": (-450 + 300 * i, -200),
                "order": "attack",
            }
            for i in range(4)
        ]
        for f in red:  # a front no wider than the bases (a scenario may not say otherwise)
            f["frontage"] = min(3, f["bases"])
        blue = [
            {
                "id": f"b{i}",
                "profile": str(rng.choice(["inf", "lcav", "skirm"])),
                "bases": int(rng.integers(1, 7)),
                "frontage": 3,
                "at": (-450 + 300 * i, 200),
                "facing": 180,
                "order": "attack",
            }
            for i in range(4)
        ]
        for f in blue:
            f["frontage"] = min(3, f["bases"])
        b = battle(bf, origin, red, blue, max_bounds=6)
        b.dice = Dice(k)
        b.ctx.dice = b.dice
        check_battle(b, 6)
