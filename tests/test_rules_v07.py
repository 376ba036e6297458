"""*Battle for 2mm Earth* v0.7 played as its own book (``2mm-earth-v0.7``; section numbers are
v0.7's, ``/work/shared/rules/001_0b58abab5cfb3bbf.txt``): its command model (1.2-1.3), 5.x
fleeing and routing, 9.1 army morale, and no v0.9 10.2 table. On the real Minden ground."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.battle import Battle
from engine.dice import Dice, ScriptedDice
from engine.orders import InstantDelivery, Order
from engine.rulesets import get_ruleset
from engine.rulesets.two_mm_earth.v07 import receive_order_v07, routers_touching
from engine.state import BaseStatus, Morale
from engine.testing import flat_origin, make_scenario

DATA = Path(__file__).parent / "data" / "troops"
ARMIES = (str(DATA / "rules_red.yaml"), str(DATA / "rules_blue.yaml"))
V07 = "2mm-earth-v0.7"


@pytest.fixture(scope="module")
def bf(built_minden):
    return built_minden.battlefield


@pytest.fixture(scope="module")
def origin(bf):
    return flat_origin(bf)


def battle(bf, origin, red, blue, faces=None, ruleset=V07):
    sc = make_scenario(red, blue, armies=ARMIES, origin=origin)
    return Battle(bf, sc, ScriptedDice(faces) if faces is not None else Dice(1), ruleset=ruleset)


def of(rec, type_):
    return [e for e in rec.events if e.type == type_]


def _flee(f, bound=0):
    f.morale, f.changed_bound = Morale.RETREATING, bound
    return f


def _rout(f, bound=0):
    f.morale = Morale.ROUTING
    f.routed_bound = f.changed_bound = bound
    return f


# -- command (1.2-1.3, 3.3): no 9.2 messengers, no 9.3 chart ----------------------------------


def test_v07_1_2_orders_reach_at_once_with_no_chart_roll(bf, origin):
    # a Reluctant formation ordered to retreat: v0.9's 9.3 would roll a die (1 routs); v0.7
    # has no chart: the plan is obeyed (ScriptedDice([]) would raise if a die were rolled),
    # and the retreat is 5.1's flee by choice
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "reluctant_inf", "bases": 2, "at": (0, 0)}],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
        [],
    )
    assert isinstance(b.delivery, InstantDelivery)  # no messengers: delivered the bound given
    events = receive_order_v07(b.state, Order("retreat", "r"), b.dice, b.ruleset)
    assert [e.type for e in events] == ["order_received", "retreat"]
    assert events[1].reason.startswith("5.1 flees by choice")
    f = b.state.formations["r"]
    assert f.morale is Morale.RETREATING and f.order == "retreat"
    # routers take no orders (5.5: only a Character joining stops a rout)
    _rout(f)
    assert receive_order_v07(b.state, Order("attack", "r"), b.dice, b.ruleset) == []


def test_v07_1_2_flodden_orders_obeyed_the_bound_they_are_given():
    from engine.scenario import load_scenario
    from scenario_builder.battle import build_battlefield, fight

    sc = load_scenario("flodden_1513")
    log, _ = fight(sc, build_battlefield(sc), 1, ruleset=V07, max_bounds=4)
    data = log.to_dict()
    types = {e["type"] for bd in data["bounds"] for e in bd["events"]}
    assert "order_roll" not in types and not any(t.startswith("messenger") for t in types)
    for bd in data["bounds"]:
        issued = [e["formation"] for e in bd["events"] if e["type"] == "order_issued"]
        got = [e["formation"] for e in bd["events"] if e["type"] == "order_received"]
        assert issued == got  # every order received in the bound it was issued
    assert [p.name for p in get_ruleset(V07).phases][:3] == ["orders", "army_morale", "plan_moves"]


# -- 5.1 fleeing ------------------------------------------------------------------------------


def test_v07_5_1_more_than_half_killed_in_a_bound_must_flee(bf, origin):
    from engine.rulesets.two_mm_earth.morale import morale_passes

    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 4, "at": (0, 0)}],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
        [],
    )
    f = b.state.formations["r"]
    f.alive_at_start = 4
    for base in f.bases[:3]:
        base.status = BaseStatus.DEAD
    f.killed_in_bound = 3
    events = morale_passes(b.ctx)
    assert [e.type for e in events] == ["retreat"]  # must flee: no test (no die rolled)
    assert events[0].reason == "5.1/5.2 killed_over_50pct_bound"  # 3 of 4 is not over 75 %
    assert f.morale is Morale.RETREATING


def _boxed(bf, origin, faces, character=None, order=None):
    # red foot (one rank of 2) flee south from blue "n" touching their front; blue "s" stands
    # 10 m behind them: the flee cannot get 25 m away without touching an enemy base (5.1)
    red = {"id": "r", "profile": "inf", "bases": 2, "at": (0, 0)}
    if order:
        red["order"] = order
    if character:
        red["character"] = character
    return battle(
        bf,
        origin,
        [red],
        [
            {"id": "n", "profile": "inf", "bases": 2, "at": (0, 20), "facing": 180},
            {"id": "s", "profile": "inf", "bases": 2, "at": (0, -30), "facing": 0},
        ],
        faces,
    )


def test_v07_5_1_forced_flee_blocked_routs_automatically(bf, origin):
    b = _boxed(bf, origin, [1] * 40)
    f = _flee(b.state.formations["r"])  # forced to flee (e.g. half killed), not by choice
    rec = b.step()
    routs = of(rec, "rout")
    assert routs[0].formation == "r" and routs[0].reason == "5.1 flee_blocked"
    assert routs[0].phase == "execute_moves"
    assert not [p for p in of(rec, "panic_test") if p.formation == "r"]  # no test: automatic
    # 5.3: routed in contact (walled in): not destroyed this bound
    assert f.morale is Morale.ROUTING and f.n_alive == 2


def test_v07_5_1_voluntary_flee_blocked_takes_a_rout_test(bf, origin):
    # fleeing by choice (ordered to retreat) and blocked: a 5.2 rout test, one die. R4 (3..5)
    # -1 fleeing = 3; the flee stepped 10 m off "n" and onto "s": the rear in contact (+2);
    # the captain's L1 (-1)
    b = _boxed(bf, origin, [3] + [1] * 40, character="red_captain", order="retreat")
    f = _flee(b.state.formations["r"])
    rec = b.step()
    pt = next(p for p in of(rec, "panic_test") if p.formation == "r")
    assert pt.triggers == ("flee_blocked_by_choice",) and pt.phase == "execute_moves"
    assert len(pt.dice.faces) == 1 and pt.resilience == 3
    assert pt.score == 3 + 2 - 1 and pt.outcome == "rout"  # 4 > 3
    assert f.morale is Morale.ROUTING


def test_v07_5_1_voluntary_flee_blocked_passing_keeps_fleeing(bf, origin):
    # L2: 1 + 2 (rear) - 2 = 1 < 3
    b = _boxed(bf, origin, [1] + [1] * 40, character="red_hero", order="retreat")
    f = _flee(b.state.formations["r"])
    rec = b.step()
    pt = next(p for p in of(rec, "panic_test") if p.formation == "r")
    assert pt.score == 1 and pt.outcome == "retreat"  # at best: continue fleeing
    assert f.morale is Morale.RETREATING  # keeps fleeing (at best: continue)


# -- 5.2 rout test: contact sides counted per side --------------------------------------------


def test_v07_5_2_contact_sides_counted_per_side(bf, origin):
    from engine.rulesets.two_mm_earth.morale import enemy_contact_sides

    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 2, "at": (0, 0)}],
        [
            {"id": "front", "profile": "inf", "bases": 2, "at": (0, 20), "facing": 180},
            {"id": "left", "profile": "inf", "bases": 1, "at": (-50, 0), "facing": 90},
            {"id": "right", "profile": "inf", "bases": 1, "at": (50, 0), "facing": 270},
            {"id": "rear", "profile": "inf", "bases": 2, "at": (0, -20), "facing": 0},
        ],
        [],
    )
    assert set(b.state.contacts["r"]) == {"front", "left", "right", "rear"}
    # front, left flank, right flank: +1 each; the rear +2 (a flag)
    assert enemy_contact_sides(b.ctx, b.state.formations["r"]) == (3, True)
    from engine.rulesets.two_mm_earth.resolution import rout_test_v07

    res = rout_test_v07(ScriptedDice([1]), 4, contact_sides=3, rear_contact=True)
    assert res.score == 1 + 3 + 2 and res.outcome == "rout"


# -- 5.3 routers ------------------------------------------------------------------------------


def test_v07_5_3_routers_touching_an_enemy_are_destroyed_at_once(bf, origin):
    # red foot routed last bound flee south from blue "n" and run into blue "s" standing in
    # their way: the bases that touch are destroyed in the move phase, before any melee (v0.9
    # 11.1 waits for the end of their next bound)
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 2, "at": (0, 0)}],
        [
            {"id": "n", "profile": "inf", "bases": 2, "at": (0, 120), "facing": 180},
            {"id": "s", "profile": "inf", "bases": 6, "at": (0, -70), "facing": 0},
        ],
        [1] * 40,
    )
    f = _rout(b.state.formations["r"])
    rec = b.step()
    d = [e for e in of(rec, "destroyed") if e.formation == "r"]
    assert (
        d and d[0].phase == "execute_moves" and d[0].reason == "5.3 routers touched an enemy base"
    )
    assert f.morale is Morale.DESTROYED and f.n_alive == 0
    types = [e.type for e in rec.events]
    assert "melee" not in types[: types.index("destroyed")]


def test_v07_5_3_routed_in_contact_destroyed_next_bound_not_this(bf, origin):
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 2, "at": (0, 0)}],
        [{"id": "n", "profile": "inf", "bases": 2, "at": (0, 20), "facing": 180}],
        [],
    )
    st = b.state
    st.bound = 3
    f = _rout(st.formations["r"], bound=3)
    f.contacts_prev = ("n",)  # in contact when the bound began, routed where it stood
    assert routers_touching(b.ctx, "morale") == []
    assert f.n_alive == 2
    st.bound = 4  # next bound, still touching: destroyed
    events = routers_touching(b.ctx, "execute_moves")
    assert [e.type for e in events].count("killed") == 2 and f.morale is Morale.DESTROYED


def test_v07_5_3_routers_on_impractical_ground_are_destroyed():
    # Flodden's real ground: a router standing on impractical ground (here: a cell of the
    # river, 7.x "good-sized rivers") is destroyed; the same routers on open ground run on
    import numpy as np

    from engine.movement import footprint_classes
    from engine.rulesets.two_mm_earth.charts import MoveClass
    from engine.scenario import load_scenario
    from scenario_builder.battle import build_battlefield

    flodden = load_scenario("flodden_1513")
    raw = build_battlefield(flodden).battlefield
    origin = flat_origin(raw, 250.0)
    sc = make_scenario(
        [{"id": "r", "profile": "inf", "bases": 1, "at": (0, 0)}],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 1200), "facing": 180}],
        armies=ARMIES,
        origin=origin,
        slug=flodden.battlefield.slug,
    )
    b = Battle(raw, sc, Dice(1), ruleset=V07)
    f = _rout(b.state.formations["r"], bound=-1)
    assert MoveClass.IMPRACTICAL not in footprint_classes(b.bf, f, "move")[0]
    assert routers_touching(b.ctx, "morale") == []  # open ground, no enemy: they run on
    x0, y0, x1, y1 = b.bf.bounds
    r = b.bf.res
    xs, ys = np.meshgrid(np.arange(x0 + r / 2, x1, r), np.arange(y0 + r / 2, y1, r))
    codes, _ = b.bf.codes_on_map("move", xs.ravel(), ys.ravel())
    for k in np.flatnonzero(codes == MoveClass.IMPRACTICAL):
        f.cx, f.cy = float(xs.ravel()[k]), float(ys.ravel()[k])
        f.place()
        if MoveClass.IMPRACTICAL in footprint_classes(b.bf, f, "move")[0]:
            break
    else:
        pytest.fail("no impractical ground a base can stand on at Flodden")
    b.state.version += 1
    events = routers_touching(b.ctx, "morale")
    assert events[-1].reason == "5.3 routers touched impractical ground"
    assert f.n_alive == 0 and f.morale is Morale.DESTROYED


def test_v07_5_5_routers_keep_routing_without_a_character(bf, origin):
    # no character joins: the rout never stops on its own (no rally test, no standing rally)
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 2, "at": (0, 0)}],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 400), "facing": 180}],
        [1] * 200,
    )
    f = _rout(b.state.formations["r"])
    for _ in range(3):
        rec = b.step()
        assert not of(rec, "rally") and not of(rec, "panic_test")
        if f.removed:
            break
        assert f.morale is Morale.ROUTING


# -- 9.1 army morale --------------------------------------------------------------------------


def test_v07_9_1_seeing_a_friend_flee_is_tested_before_moves_are_planned(bf, origin):
    # "broken" flees; "guard" (R6) and "foot" (R4) see it. 9.1: actual R (no 3..5 limit), -2 on
    # the die, +1 for the one friend seen fleeing. guard: 6 + 1 - 2 = 5 < R6 (under 5.2's limit
    # R5 it would rout); foot: 6 + 1 - 2 = 5 = R4 + 1: flees (equal or one more flees)
    b = battle(
        bf,
        origin,
        [
            {"id": "broken", "profile": "inf", "bases": 2, "at": (0, 0)},
            {"id": "guard", "profile": "guard", "bases": 2, "at": (150, 0)},
            {"id": "foot", "profile": "inf", "bases": 2, "at": (-150, 0)},
        ],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 1500), "facing": 180}],
        [6, 6] + [1] * 40,
    )
    _flee(b.state.formations["broken"])
    rec = b.step()
    tests = {p.formation: p for p in of(rec, "panic_test")}
    g, f = tests["guard"], tests["foot"]
    assert g.phase == f.phase == "army_morale" and g.triggers == ("friendly_seen_broken",)
    assert (g.resilience, g.score, g.outcome) == (6, 5, "none")
    assert (f.resilience, f.score, f.outcome) == (4, 5, "retreat")
    types = [(e.type, e.phase) for e in rec.events]
    assert types.index(("panic_test", "army_morale")) < min(
        k for k, (_t, p) in enumerate(types) if p == "plan_moves"
    )
    assert b.state.formations["foot"].morale is Morale.RETREATING
    # once per friend seen: the guard does not test again for the same fleeing friend, but does
    # for the new one ("foot" fled this bound)
    rec = b.step()
    again = [p for p in of(rec, "panic_test") if p.formation == "guard"]
    assert len(again) == 1 and again[0].score == 1 + 2 - 2  # two friends seen fleeing


# -- no v0.9 10.2 table -----------------------------------------------------------------------


def test_v07_no_10_2_table_flank_contact_calls_no_test(bf, origin):
    # v0.9 10.2 tests a formation charged in the flank at once; v0.7 has no such row (contact
    # only adds to a rout test's die, 5.2)
    spec = (
        [
            {
                "id": "r",
                "profile": "inf",
                "bases": 2,
                "at": (-61, 80),
                "facing": 90,
                "order": "attack",
                "target_formation": "b",
            }
        ],
        [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 80), "facing": 0}],
    )
    v9 = battle(bf, origin, *spec, [5, 6] + [1] * 20, ruleset="2mm-earth-v0.9").step()
    assert [p.triggers for p in of(v9, "panic_test")] == [("enemy_contact_flank",)]
    v7 = battle(bf, origin, *spec, [1] * 20).step()
    assert not of(v7, "panic_test") and of(v7, "melee")
    rs = get_ruleset(V07)
    for trigger in (
        "enemy_contact_flank",
        "enemy_contact_rear",
        "front_rank_killed_in_bound",
        "friendly_rout_0_100m",
        "killed_over_50pct_game",
        "all_seen_friendlies_retreating",
    ):
        assert rs.morale_effect(trigger) is None, trigger
    # 5.3: a character killed tests fleeing troops only
    assert rs.morale_effect("character_killed", state="steady") is None
    assert rs.morale_effect("character_killed", state="retreating") == "panic_test"
