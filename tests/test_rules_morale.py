"""Army morale, orders, formations and sieges (4.1-5.1, 8.3, 9.1-9.3, 10.1-10.5, 11.1-11.3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.battle import Battle
from engine.dice import Dice, ScriptedDice
from engine.orders import InstantDelivery, Order
from engine.rulesets.two_mm_earth.orders import receive_order
from engine.rulesets.two_mm_earth.rulesets import BASE_SIZE
from engine.state import BaseStatus, Morale
from engine.testing import flat_origin, make_scenario
from scenario_builder.errors import IllegalOrderError

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


def of(rec, type_):
    return [e for e in rec.events if e.type == type_]


def test_10_5_panic_test_in_contact_uses_melee_r_and_leadership(bf, origin):
    # blue (R4 melee) is charged in the flank by red: 10.2 panic test, taken at once when the
    # contact is made (end of the moves), before any melee die; blue's captain L1. [5, 6]
    # keeps 5, -L1 = 4 = R4: retreat. Then the melee (retreating troops still fight)
    b = battle(
        bf,
        origin,
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
        [
            {
                "id": "b",
                "profile": "inf",
                "bases": 2,
                "at": (0, 80),
                "facing": 0,
                "character": "blue_captain",
            }
        ],
        [5, 6] + [1] * 7,
    )
    rec = b.step()
    (pt,) = of(rec, "panic_test")
    assert pt.formation == "b" and "enemy_contact_flank" in pt.triggers
    assert pt.phase == "execute_moves" and pt.dice.faces == (5, 6)
    assert pt.resilience == 4 and pt.score == 4 and pt.outcome == "retreat"
    types = [e.type for e in rec.events]
    assert types.index("panic_test") < types.index("melee")  # 10.2: not after the melee
    assert b.state.formations["b"].morale is Morale.RETREATING


def test_10_2_rear_contact_is_minus_one_r(bf, origin):
    # contact on the rear: panic test at once at R4-1; [4, 4] keeps 4 > R3: blue routs before
    # the melee, and routing troops do not strike (only red's dice are rolled)
    b = battle(
        bf,
        origin,
        [
            {
                "id": "r",
                "profile": "inf",
                "bases": 2,
                "at": (0, 40),
                "facing": 0,
                "order": "attack",
                "target_formation": "b",
            }
        ],
        [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 80), "facing": 0}],
        [4, 4] + [1] * 6,
    )
    rec = b.step()
    (pt,) = of(rec, "panic_test")
    assert "enemy_contact_rear" in pt.triggers and pt.resilience == 3
    assert pt.outcome == "rout" and pt.phase == "execute_moves"  # 4 > R4-1
    assert [m.formation for m in of(rec, "melee")] == ["r"]


def test_10_2_more_than_75pct_killed_in_a_bound_routs(bf, origin):
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 1, "at": (0, 0)}],
        [{"id": "b", "profile": "inf", "bases": 4, "at": (0, 600), "facing": 180}],
        [],
    )
    f = b.state.formations["b"]
    f.alive_at_start = 4
    for base in f.bases[:4]:
        base.status = BaseStatus.DEAD
    f.bases[3].status = BaseStatus.OK
    f.killed_in_bound = 3  # 75 % is not MORE than 75 %: retreat (more than 50 %)
    from engine.rulesets.two_mm_earth.morale import _own_triggers

    assert "killed_over_50pct_bound" in _own_triggers(b.ctx, f)
    f.alive_at_start = 3.9  # 3 of 3.9 -> more than 75 %
    assert "killed_over_75pct_bound" in _own_triggers(b.ctx, f)
    assert b.ruleset.morale_effect("killed_over_75pct_bound") == "rout"


def test_10_2_friend_routing_within_100m_routs_normal_but_rash_retreat(bf, origin):
    from engine.rulesets.two_mm_earth.morale import morale_phase

    b = battle(
        bf,
        origin,
        [
            {"id": "broken", "profile": "inf", "bases": 8, "at": (0, 0)},
            {"id": "steady", "profile": "inf", "bases": 2, "at": (230, 0)},
            {"id": "rash", "profile": "rash_inf", "bases": 2, "at": (-230, 0)},
            # a steady friend in sight, so "all seen friendlies retreating" does not apply
            {"id": "anchor", "profile": "inf", "bases": 2, "at": (-230, -300)},
        ],
        [{"id": "x", "profile": "inf", "bases": 1, "at": (0, 900), "facing": 180}],
    )
    b.step()  # settle a bound with nothing happening
    st = b.state
    st.bound += 1
    st.formations["broken"].morale = Morale.ROUTING
    st.formations["broken"].changed_bound = st.bound
    morale_phase(b.ctx)
    assert st.formations["steady"].morale is Morale.ROUTING  # 10.2 must rout
    assert st.formations["rash"].morale is Morale.RETREATING  # rash/reluctant only retreat


def test_10_2_all_seen_friendlies_retreating(bf, origin):
    # "All seen friendlies": two friendly formations at least (docs/rules-interpretations.md);
    # one broken friend in sight, or one friend and its own wing, does not set it off
    from engine.rulesets.two_mm_earth.morale import _friend_triggers

    b = battle(
        bf,
        origin,
        [
            {"id": "a", "profile": "inf", "bases": 2, "at": (0, 0)},
            {"id": "c", "profile": "inf", "bases": 2, "at": (300, 0)},
            {"id": "d", "profile": "inf", "bases": 2, "at": (-300, 0)},
        ],
        [{"id": "x", "profile": "inf", "bases": 1, "at": (0, 900), "facing": 180}],
        [],
    )
    a, c, d = (b.state.formations[k] for k in "acd")
    c.morale = d.morale = Morale.RETREATING
    assert "all_seen_friendlies_retreating" in _friend_triggers(b.ctx, a)
    d.wing_of = "c"  # c's own wing: one friend, not two
    assert not any(t.startswith("all_seen") for t in _friend_triggers(b.ctx, a))
    d.wing_of = None
    c.morale = Morale.ROUTING  # one of two routing: "50% or more"
    assert "all_seen_friendlies_retreating_half_routing" in _friend_triggers(b.ctx, a)
    d.morale = Morale.STEADY  # one broken friend seen, and a steady one
    assert not any(t.startswith("all_seen") for t in _friend_triggers(b.ctx, a))


def test_10_1_every_bound_keeps_morale_states_valid(bf, origin):
    from engine.testing import check_battle

    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "cav", "bases": 3, "at": (0, 0), "order": "attack"}],
        [
            {
                "id": "b",
                "profile": "inf",
                "bases": 2,
                "at": (0, 500),
                "facing": 180,
                "order": "attack",
            }
        ],
        max_bounds=8,
    )
    rep = check_battle(b, 8)
    assert rep.bounds >= 1


def test_10_3_retreating_troops_lose_1r_routing_2r(bf, origin):
    from engine.rulesets.two_mm_earth.shooting import target_resilience

    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 2, "at": (0, 0)}],
        [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 600), "facing": 180}],
        [],
    )
    f = b.state.formations["b"]
    rs = b.ruleset
    assert target_resilience(f, (b.state.formations["r"].centre()), "melee", 0, rs) == 4
    f.morale = Morale.RETREATING
    assert target_resilience(f, b.state.formations["r"].centre(), "melee", 0, rs) == 3
    f.morale = Morale.ROUTING
    assert target_resilience(f, b.state.formations["r"].centre(), "melee", 0, rs) == 2


def test_10_4_routing_troops_ignore_orders_and_flee(bf, origin):

    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 2, "at": (0, 0)}],
        [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 300), "facing": 180}],
        [],
    )
    f = b.state.formations["r"]
    f.morale = Morale.ROUTING
    f.routed_bound = 0
    assert receive_order(b.state, Order("attack", "r"), b.dice, b.ruleset) == []
    y0 = f.centre()[1]
    b.step()
    assert f.centre()[1] < y0  # fled south, away from the enemy and toward home


def test_11_1_pursuit_and_routers_touching_the_enemy_are_destroyed(bf, origin):
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "cav", "bases": 2, "at": (0, 0), "order": "attack"}],
        [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 200), "facing": 180}],
        None,
    )
    st = b.state
    rec = b.step()
    assert st.contacts.get("r") == ("b",)
    g = st.formations["b"]
    # make blue break this bound: pursuit is set up by the pursuit phase
    st.bound += 0
    g.morale = Morale.ROUTING
    g.changed_bound = st.bound
    g.routed_bound = st.bound
    from engine.rulesets.two_mm_earth.morale import pursuit_phase

    ev = pursuit_phase(b.ctx)
    assert [e.type for e in ev] == ["pursuit"] and st.formations["r"].pursuing == "b"
    # in the next bound the routers are still touching the cavalry (faster): destroyed (11.1)
    rec = b.step()
    assert (
        any(e.type == "destroyed" and e.formation == "b" for e in rec.events)
        or g.morale is Morale.DESTROYED
        or g.n_alive < 2
    )
    del rec


def test_11_2_retreating_troops_rally_after_a_whole_bound_inactive(bf, origin):
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 2, "at": (0, 0)}],
        [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
        [],
    )
    f = b.state.formations["r"]
    f.morale = Morale.RETREATING
    f.changed_bound = -1  # broke long ago, no enemy near: it stands and rallies
    rec = b.step()
    assert f.morale is Morale.STEADY and of(rec, "rally")


def test_11_3_random_troops_turn_reluctant_after_two_melee_hits(bf, origin):
    from engine.rulesets.two_mm_earth.charts import Temperament
    from engine.rulesets.two_mm_earth.morale import random_troops

    b = battle(
        bf,
        origin,
        [{"id": "w", "profile": "wild", "bases": 2, "at": (0, 0)}],
        [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
        [],
    )
    f = b.state.formations["w"]
    assert f.temperament is Temperament.RASH and f.random_troops
    f.hits_melee = 2
    ev = random_troops(b.ctx, f)
    assert f.temperament is Temperament.RELUCTANT and ev[0].type == "temperament_change"


def test_9_1_orders_round_trip_and_illegal_orders_are_refused(bf, origin):
    from engine.orders import check_order

    o = Order.from_text("advance r to 10.0,20.0")
    assert Order.from_text(str(o)) == o
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 2, "at": (0, 0)}],
        [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
        [],
    )
    with pytest.raises(IllegalOrderError):
        check_order(b.state, "red", Order("attack", "b"))  # not red's formation


def test_9_2_delivery_is_a_replaceable_hook(bf, origin):
    class OneBoundLate(InstantDelivery):
        def arrivals(self, state, bound):
            if bound == 1:
                return [], []
            return super().arrivals(state, bound)

    sc = make_scenario(
        [{"id": "r", "profile": "inf", "bases": 2, "at": (0, 0), "order": "advance"}],
        [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
        armies=ARMIES,
        origin=origin,
    )
    b = Battle(bf, sc, Dice(1), delivery=OneBoundLate())
    assert not of(b.step(), "moved")  # the order is still on its way
    assert of(b.step(), "moved")


def test_9_3_reluctant_troops_ordered_to_retreat_may_rout(bf, origin):
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "reluctant_inf", "bases": 2, "at": (0, 0), "order": "retreat"}],
        [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
        [1],
    )
    rec = b.step()
    (roll,) = of(rec, "order_roll")
    assert roll.outcome == "rout" and b.state.formations["r"].morale is Morale.ROUTING


def test_4_1_loose_formation_is_one_rank_and_aggressor_allocates(bf, origin):
    from engine.rulesets.two_mm_earth.damage import allocate_hits

    b = battle(
        bf,
        origin,
        [
            {
                "id": "s",
                "profile": "skirm",
                "bases": 4,
                "at": (0, 0),
                "loose": True,
                "character": "red_hero",
            }
        ],
        [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
        [],
    )
    f = b.state.formations["s"]
    assert f.ranks == 1 and f.obb().hw > 80  # bases apart
    ev = allocate_hits(f, 1, (0.0, 0.0), ScriptedDice([]), by="x", phase="melee")
    assert ev[0].dice is None  # no random allocation, even with a character (4.1)


def test_4_2_wings_need_a_character_and_two_bases_each(bf, origin):
    from engine.rulesets.two_mm_earth.formations import merge_formations, split_into_wings

    b = battle(
        bf,
        origin,
        [
            {
                "id": "led",
                "profile": "inf",
                "bases": 6,
                "frontage": 3,
                "at": (0, 0),
                "character": "red_captain",
            },
            {"id": "plain", "profile": "inf", "bases": 6, "frontage": 3, "at": (300, 0)},
        ],
        [{"id": "x", "profile": "inf", "bases": 1, "at": (0, 900), "facing": 180}],
        [],
    )
    st = b.state
    with pytest.raises(IllegalOrderError):
        split_into_wings(st, "plain", [2, 1])
    ev = split_into_wings(st, "led", [2, 1])
    assert ev[0].wings == ("led", "led.w2") and st.formations["led.w2"].wing_of == "led"
    merge_formations(st, "led", "led.w2")  # wings always re-join (4.2)
    assert st.formations["led"].n_alive == 6


def test_5_1_brigade_troop_types_limited_by_leadership(bf, origin):
    from engine.rulesets.two_mm_earth.formations import merge_formations

    b = battle(
        bf,
        origin,
        [
            {"id": "cap", "profile": "inf", "bases": 2, "at": (0, 0), "character": "red_captain"},
            {"id": "bows", "profile": "archers", "bases": 2, "at": (200, 0)},
            {"id": "gen", "profile": "inf", "bases": 2, "at": (400, 0), "character": "red_general"},
            {"id": "more", "profile": "archers", "bases": 2, "at": (-300, 0)},
        ],
        [{"id": "x", "profile": "inf", "bases": 1, "at": (0, 900), "facing": 180}],
        [],
    )
    st = b.state
    with pytest.raises(IllegalOrderError):  # L1: identical troop types only
        merge_formations(st, "cap", "bows")
    merge_formations(st, "gen", "more")  # L3: up to three types
    assert st.formations["gen"].brigade == ("more",)
    from engine.rulesets.two_mm_earth.morale import leadership

    assert leadership(st.formations["gen"], st.characters) == 3


@pytest.fixture(scope="module")
def walled(tmp_path_factory, bf, origin):
    """Minden with a hand-drawn wall overlay (a 20 m wide rampart, 400 m long, east-west)."""
    from scenario_builder.build import build_from_paths

    x, y = origin
    lon0, lat0 = bf.to_lonlat(x - 200, y + 100)
    lon1, lat1 = bf.to_lonlat(x + 200, y + 120)
    gj = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {"feature": "wall"},
                "geometry": {
                    "type": "Polygon",
                    "coordinates": [
                        [[lon0, lat0], [lon1, lat0], [lon1, lat1], [lon0, lat1], [lon0, lat0]]
                    ],
                },
            }
        ],
    }
    p = tmp_path_factory.mktemp("wall") / "wall.geojson"
    p.write_text(json.dumps(gj))
    from scenario_builder.paths import data_dir

    return build_from_paths(
        data_dir() / "battlefields" / "minden" / "dem.tif", overlays=[p]
    ).battlefield


def test_8_3_no_cavalry_on_walls_and_ladders_go_up_next_bound(walled, origin):
    from engine.rulesets.two_mm_earth import sieges

    assert sieges.has_fortifications(walled)
    sc = make_scenario(
        [
            {"id": "horse", "profile": "cav", "bases": 2, "at": (-120, 40), "order": "advance"},
            {
                "id": "assault",
                "profile": "ladder_inf",
                "bases": 2,
                "at": (100, 70),
                "order": "advance",
            },
        ],
        [{"id": "x", "profile": "inf", "bases": 1, "at": (0, 600), "facing": 180}],
        armies=ARMIES,
        origin=origin,
    )
    b = Battle(walled, sc, Dice(2))
    b.step()
    horse = b.state.formations["horse"]
    assert sieges.fortification_at(walled, horse) is None  # stopped short of the wall
    rec = b.step()
    assault = b.state.formations["assault"]
    stages = [e.stage for e in b.log.events("ladder")]
    assert "at_wall" in stages
    if "on_wall" not in stages:
        rec = b.step()
        stages = [e.stage for e in b.log.events("ladder")]
    assert "on_wall" in stages and assault.loose and all(x.on_wall for x in assault.alive_bases)
    del rec


def test_8_3_a_ladder_base_hit_before_going_up_is_destroyed():
    from engine.rulesets.two_mm_earth.damage import allocate_hits
    from engine.rulesets.two_mm_earth.profiles import load_army
    from engine.state import Formation

    f = Formation.build(
        "f",
        "red",
        "F",
        load_army(ARMIES[0]).profile("ladder_inf"),
        n_bases=2,
        frontage=2,
        cx=0.0,
        cy=0.0,
        facing=0.0,
        **BASE_SIZE,
    )
    for base in f.bases:
        base.ladder_ready = True
    ev = allocate_hits(f, 1, (0.0, 100.0), ScriptedDice([]), by="x", phase="shooting_damage")
    assert ev[0].type == "killed"


def test_8_3_walls_give_debris_cover(walled, origin):
    from engine.rulesets.two_mm_earth.charts import CoverClass

    sc = make_scenario(
        [{"id": "def", "profile": "inf", "bases": 4, "at": (0, 110), "loose": False}],
        [{"id": "x", "profile": "inf", "bases": 1, "at": (0, 600), "facing": 180}],
        armies=ARMIES,
        origin=origin,
    )
    b = Battle(walled, sc, Dice(1))
    assert CoverClass.DEBRIS in b.ctx.cover_classes(b.state.formations["def"])


# -- 10.4 / 11.2 / 5.1 joining formations in play ---------------------------------------------


def _rout(b, fid):
    f = b.state.formations[fid]
    f.morale = Morale.ROUTING
    f.routed_bound = f.changed_bound = 0
    return f


def test_10_4_character_joins_routers_and_the_rally_test_stops_the_rout(bf, origin):
    # red foot rout from blue; the General (L3, one cavalry base) is ordered to advance on them:
    # he rides after them (joiners move after their target), touches them and joins; the
    # routers take the 10.4 test: two dice, keep the lower (2), minus the joining L3 = -1 <=
    # R4 - 2 (routing): they stop routing and retreat
    b = battle(
        bf,
        origin,
        [
            {"id": "foot", "profile": "inf", "bases": 4, "frontage": 2, "at": (0, 0)},
            {
                "id": "hq",
                "profile": "cav",
                "bases": 1,
                "at": (150, -120),
                "character": "red_general",
                "order": "advance",
                "target_formation": "foot",
            },
        ],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 700), "facing": 180}],
        [2, 3],
    )
    foot = _rout(b, "foot")
    rec = b.step()
    merge = of(rec, "brigade_merge")
    assert [(e.formation, e.merged) for e in merge] == [("foot", "hq")]
    (pt,) = of(rec, "panic_test")
    assert pt.formation == "foot" and pt.triggers == ("character_joined_routing",)
    assert (pt.resilience, pt.score, pt.outcome) == (2, -1, "retreat")
    assert foot.morale is Morale.RETREATING and foot.routed_bound is None
    assert "red_general" in foot.character_ids() and b.state.formations["hq"].removed
    # no longer routing: the player has control again (10.4), so an order is obeyed
    assert receive_order(b.state, Order("hold", "foot"), b.dice, b.ruleset)


def test_10_4_failed_rally_test_keeps_routing_with_the_character(bf, origin):
    # the captain (L1, on foot) waits beside the routers' path and joins them as they pass
    b = battle(
        bf,
        origin,
        [
            {"id": "foot", "profile": "inf", "bases": 4, "frontage": 2, "at": (0, 0)},
            {
                "id": "hq",
                "profile": "inf",
                "bases": 1,
                "at": (90, -130),
                "character": "red_captain",
                "order": "advance",
                "target_formation": "foot",
            },
        ],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 700), "facing": 180}],
        [6, 6],
    )
    foot = _rout(b, "foot")
    rec = b.step()
    (pt,) = of(rec, "panic_test")
    assert (pt.score, pt.outcome) == (5, "rout")  # 6 - L1 = 5 > R2
    assert foot.morale is Morale.ROUTING and "red_captain" in foot.character_ids()


def test_11_2_retreating_troops_rally_by_merging_with_a_character(bf, origin):
    # retreating foot are ordered to advance on the captain's formation: they march into base
    # contact, merge into it and are rallied at once (11.2), not after a bound inactive
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
                "target_formation": "cap",
            },
            {"id": "cap", "profile": "inf", "bases": 2, "at": (0, -90), "character": "red_captain"},
        ],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 700), "facing": 180}],
        [],
    )
    foot = b.state.formations["foot"]
    foot.morale, foot.changed_bound = Morale.RETREATING, 0
    rec = b.step()
    assert [(e.formation, e.merged) for e in of(rec, "brigade_merge")] == [("cap", "foot")]
    (rally,) = of(rec, "rally")
    assert rally.formation == "foot" and "11.2" in rally.reason
    cap = b.state.formations["cap"]
    assert cap.morale is Morale.STEADY and cap.n_alive == 4 and foot.removed
    # their 1R is back: the merged bases are steady troops, R4 not R3 (10.3)
    from engine.rulesets.two_mm_earth.shooting import target_resilience

    assert target_resilience(cap, (0.0, 0.0), "melee", 0, b.ruleset) == 4


def test_11_2_character_joining_retreating_troops_rallies_them(bf, origin):
    b = battle(
        bf,
        origin,
        [
            {"id": "foot", "profile": "inf", "bases": 2, "at": (0, 0)},
            {
                "id": "hq",
                "profile": "cav",
                "bases": 1,
                "at": (200, 0),
                "character": "red_general",
                "order": "advance",
                "target_formation": "foot",
            },
        ],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
        [],
    )
    foot = b.state.formations["foot"]
    foot.morale, foot.changed_bound = Morale.RETREATING, 0
    rec = b.step()
    (rally,) = of(rec, "rally")
    assert rally.formation == "foot" and rally.reason == "11.2 merged with a character"
    assert foot.morale is Morale.STEADY and "red_general" in foot.character_ids()


def test_5_1_brigade_by_order_in_play_and_the_type_limit_refuses(bf, origin):
    # archers ordered onto the General's foot (L3): they merge into a brigade; archers ordered
    # onto the captain's foot (L1: identical types only) are refused and hold
    b = battle(
        bf,
        origin,
        [
            {"id": "gen", "profile": "inf", "bases": 2, "at": (0, 0), "character": "red_general"},
            {
                "id": "bows",
                "profile": "archers",
                "bases": 2,
                "at": (0, -100),
                "order": "advance",
                "target_formation": "gen",
            },
            {"id": "cap", "profile": "inf", "bases": 2, "at": (400, 0), "character": "red_captain"},
            {
                "id": "more",
                "profile": "archers",
                "bases": 2,
                "at": (400, -100),
                "order": "advance",
                "target_formation": "cap",
            },
        ],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
        [],
    )
    rec = b.step()
    assert [(e.formation, e.merged) for e in of(rec, "brigade_merge")] == [("gen", "bows")]
    assert b.state.formations["gen"].brigade == ("bows",) and b.state.formations["gen"].n_alive == 4
    (ref,) = of(rec, "order_refused")
    assert ref.formation == "more" and "L1" in ref.reason
    assert b.state.formations["more"].order == "hold" and not b.state.formations["more"].removed


# -- 10.2 / 10.5 / 11.1: tests taken when the event happens -----------------------------------


def test_10_2_shooting_losses_tested_at_once_and_the_broken_formation_replans(bf, origin):
    # blue foot (one file of two) are ordered to charge red archers 80 m away. The archers
    # shoot first: [6, 6, 1] -> two hits, the front base injured then killed: "entire front rank
    # killed" (-1R). The panic test is taken in the shooting-damage phase, at ranged R4 - 1:
    # [3, 5] keeps 3 = R3 -> retreat. So blue retreats in this bound's moves instead of charging
    b = battle(
        bf,
        origin,
        [
            {
                "id": "bows",
                "profile": "archers",
                "bases": 2,
                "at": (0, 0),
                "order": "attack",
                "target_formation": "foot",
            }
        ],
        [
            {
                "id": "foot",
                "profile": "inf",
                "bases": 2,
                "frontage": 1,
                "at": (0, 110),
                "facing": 180,
                "order": "attack",
                "target_formation": "bows",
            }
        ],
        [6, 6, 1, 3, 5],
    )
    foot = b.state.formations["foot"]
    y0 = foot.centre()[1]
    rec = b.step()
    (pt,) = of(rec, "panic_test")
    assert pt.phase == "shooting_damage" and pt.triggers == ("front_rank_killed_in_bound",)
    assert (pt.resilience, pt.score, pt.outcome) == (3, 3, "retreat")
    replanned = [e for e in of(rec, "planned_move") if e.formation == "foot"]
    assert [e.kind for e in replanned] == ["charge", "retreat"]
    assert foot.morale is Morale.RETREATING and foot.centre()[1] > y0  # away, north (home)
    assert not of(rec, "melee")


def test_10_2_front_rank_killed_in_melee_tested_before_the_next_strike(bf, origin):
    # knights (initiative 4) charge foot (initiative 2, one file of two): the knights strike
    # first, [6, 6, 6] -> the front base injured and killed: the foot test at once (melee R4 -1),
    # [6, 6] -> rout, so their own strike (later in the order) never comes (10.4)
    b = battle(
        bf,
        origin,
        [
            {
                "id": "kn",
                "profile": "cav",
                "bases": 1,
                "at": (0, 0),
                "order": "attack",
                "target_formation": "foot",
            }
        ],
        [{"id": "foot", "profile": "inf", "bases": 2, "frontage": 1, "at": (0, 80), "facing": 180}],
        [6, 6, 6, 6, 6],
    )
    rec = b.step()
    types = [e.type for e in rec.events]
    (pt,) = of(rec, "panic_test")
    assert pt.phase == "melee" and pt.triggers == ("front_rank_killed_in_bound",)
    assert pt.resilience == 3 and pt.outcome == "rout"
    assert [m.formation for m in of(rec, "melee")] == ["kn"]
    assert types.index("killed") < types.index("panic_test") < types.index("rout")
    assert b.state.formations["foot"].morale is Morale.ROUTING


def test_11_1_retreating_troops_touched_test_at_once(bf, origin):
    # blue foot already retreating are caught by red knights (who move first, initiative 4):
    # 11.1 panic test the moment the knights' move ends in contact, before the foot move on,
    # melee R4 -1 retreating; [1, 6] keeps 1: the best result is to continue the retreat
    b = battle(
        bf,
        origin,
        [
            {
                "id": "kn",
                "profile": "cav",
                "bases": 2,
                "at": (0, 0),
                "order": "attack",
                "target_formation": "foot",
            }
        ],
        [{"id": "foot", "profile": "inf", "bases": 2, "at": (0, 150), "facing": 180}],
        [1, 6],
    )
    foot = b.state.formations["foot"]
    foot.morale, foot.changed_bound = Morale.RETREATING, -5  # broke long ago, facing the enemy
    rec = b.step()
    (pt,) = of(rec, "panic_test")
    assert pt.formation == "foot" and pt.triggers == ("retreating_touched",)
    assert (pt.phase, pt.resilience, pt.outcome) == ("execute_moves", 3, "retreat")
    moves = [e.formation for e in of(rec, "moved")]
    types = [e.type for e in rec.events]
    assert moves == ["kn", "foot"] and types.index("panic_test") < len(types) - 1
    kn_move, foot_move = of(rec, "moved")
    assert kn_move.halted == "contact_enemy"
    assert rec.events.index(kn_move) < rec.events.index(pt) < rec.events.index(foot_move)
    assert foot.morale is Morale.RETREATING


# -- 9.1 Hold ---------------------------------------------------------------------------------


def test_9_1_hold_keeps_melee_only_troops_doing_what_they_were_doing(bf, origin):
    # bound 1: foot (melee only) and archers both advance; bound 2: both are told to Hold. The
    # archers hold (fire, and stand); the foot keep advancing (9.1 "Keep Doing What You're
    # Already Doing"), and the order they keep is still "advance"
    from engine.rulesets.two_mm_earth.scripted import OrdersScript, ScriptedCommander

    sc = make_scenario(
        [
            {"id": "foot", "profile": "inf", "bases": 2, "at": (0, 0), "order": "advance"},
            {"id": "bows", "profile": "archers", "bases": 2, "at": (200, 0), "order": "advance"},
        ],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 1500), "facing": 180}],
        armies=ARMIES,
        origin=origin,
    )
    script = OrdersScript.from_text('2: ["hold foot", "hold bows"]\n')
    cmd = ScriptedCommander.from_scenario(sc, "red", script, bf.to_xy)
    b = Battle(bf, sc, Dice(1), commanders={"red": cmd}, delivery=InstantDelivery())
    moved = []
    for _ in range(3):
        rec = b.step()
        moved.append({e.formation for e in of(rec, "moved")})
    assert moved[0] == {"foot", "bows"}
    assert moved[1] == moved[2] == {"foot"}  # the archers stopped, the foot carry on
    foot = b.state.formations["foot"]
    assert foot.order == "advance" and foot.held
    assert b.state.formations["bows"].order == "hold"


def test_9_1_hold_stops_pursuit_of_melee_only_troops(bf, origin):
    from engine.rulesets.two_mm_earth.morale import pursuit_phase

    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "cav", "bases": 2, "at": (0, 0), "order": "attack"}],
        [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 200), "facing": 180}],
        None,
    )
    st = b.state
    b.step()
    assert st.contacts.get("r") == ("b",)
    receive_order(st, Order("hold", "r"), b.dice, b.ruleset)
    assert st.formations["r"].order == "attack"  # carries on fighting (9.1)
    g = st.formations["b"]
    g.morale, g.changed_bound = Morale.ROUTING, st.bound
    assert pursuit_phase(b.ctx) == []  # 11.1: no pursuit when commanded to hold


def test_9_3_10_2_rash_ordered_to_retreat_holds_on_2_retreats_on_3(bf, origin):
    # in a battle: rash foot ordered to retreat roll on chart 9.3; a 2 (undefined in the book,
    # read as "2 or less") holds, a 3 retreats: 4 chances in 6, not 10.2's "50%"
    for face, outcome, morale in ((2, "hold", Morale.STEADY), (3, "retreat", Morale.RETREATING)):
        b = battle(
            bf,
            origin,
            [{"id": "r", "profile": "rash_inf", "bases": 2, "at": (0, 0), "order": "retreat"}],
            [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
            [face],
        )
        rec = b.step()
        (roll,) = of(rec, "order_roll")
        assert roll.dice.faces == (face,) and roll.outcome == outcome
        assert b.state.formations["r"].morale is morale


# -- 4.1 Loose Formation and 5.1 brigades at deployment ----------------------------------------


def test_4_1_deployment_refuses_loose_non_skirmishers(bf, origin):
    from scenario_builder.errors import ScenarioFileError

    with pytest.raises(ScenarioFileError, match=r"formation foot: expected a skirmisher .*4\.1"):
        battle(
            bf,
            origin,
            [{"id": "foot", "profile": "inf", "bases": 4, "at": (0, 0), "loose": True}],
            [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
            [],
        )


def test_4_1_skirmishers_go_loose_by_order_in_play_others_are_refused(bf, origin):
    from engine.rulesets.two_mm_earth.scripted import OrdersScript, ScriptedCommander

    sc = make_scenario(
        [
            {"id": "sk", "profile": "skirm", "bases": 4, "frontage": 2, "at": (0, 0)},
            {"id": "foot", "profile": "inf", "bases": 4, "frontage": 2, "at": (300, 0)},
        ],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 1500), "facing": 180}],
        armies=ARMIES,
        origin=origin,
    )
    script = OrdersScript.from_text('2: ["loose sk", "loose foot"]\n4: ["close sk"]\n')
    cmd = ScriptedCommander.from_scenario(sc, "red", script, bf.to_xy)
    b = Battle(bf, sc, Dice(1), commanders={"red": cmd}, delivery=InstantDelivery())
    sk = b.state.formations["sk"]
    b.step()
    assert not sk.loose and sk.ranks == 2
    rec = b.step()
    assert sk.loose and sk.ranks == 1 and sk.obb().hw > 80  # one rank, bases apart (4.1)
    (ref,) = of(rec, "order_refused")
    assert ref.formation == "foot" and "only skirmishers" in ref.reason
    assert not b.state.formations["foot"].loose
    assert len(sk.rank_of("front")) == 4  # 4.1: a Loose Formation is one rank for casualties
    b.step()
    b.step()
    assert not sk.loose  # closed up again in bound 4


def test_5_1_brigade_deployed_in_a_scenario(bf, origin):
    from scenario_builder.errors import ScenarioFileError

    b = battle(
        bf,
        origin,
        [
            {
                "id": "gen",
                "profile": "inf",
                "bases": 4,
                "frontage": 4,
                "at": (0, 0),
                "character": "red_general",
            },
            {
                "id": "bows",
                "profile": "archers",
                "bases": 4,
                "frontage": 4,
                "at": (0, -200),
                "brigade": "gen",
            },
        ],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
        None,
    )
    st = b.state
    assert "bows" not in st.formations and st.formations["gen"].brigade == ("bows",)
    gen = st.formations["gen"]
    assert (
        gen.n_alive == 8
        and gen.ranks == 2
        and {p.id for p in gen.profiles} == {"inf", "archers", "cav"}
    )  # the General's own base is his profile
    b.step()  # and it fights as one formation
    with pytest.raises(ScenarioFileError, match="L1 holds at most 1"):
        battle(
            bf,
            origin,
            [
                {
                    "id": "cap",
                    "profile": "inf",
                    "bases": 4,
                    "frontage": 4,
                    "at": (0, 0),
                    "character": "red_captain",
                },
                {
                    "id": "bows",
                    "profile": "archers",
                    "bases": 4,
                    "frontage": 4,
                    "at": (0, -200),
                    "brigade": "cap",
                },
            ],
            [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
            [],
        )


@pytest.fixture(scope="module")
def towered(tmp_path_factory, bf, origin):
    """Minden with a wall (400 x 20 m, east-west) and a 40 m tower at its east end."""
    from scenario_builder.build import build_from_paths
    from scenario_builder.paths import data_dir

    x, y = origin

    def box(x0, y0, x1, y1, what):
        (lo0, la0), (lo1, la1) = bf.to_lonlat(x0, y0), bf.to_lonlat(x1, y1)
        return {
            "type": "Feature",
            "properties": {"feature": what},
            "geometry": {
                "type": "Polygon",
                "coordinates": [[[lo0, la0], [lo1, la0], [lo1, la1], [lo0, la1], [lo0, la0]]],
            },
        }

    gj = {
        "type": "FeatureCollection",
        "features": [
            box(x - 200, y + 100, x + 200, y + 120, "wall"),
            box(x + 200, y + 90, x + 250, y + 130, "tower"),
        ],
    }
    p = tmp_path_factory.mktemp("tower") / "tower.geojson"
    p.write_text(json.dumps(gj))
    return build_from_paths(
        data_dir() / "battlefields" / "minden" / "dem.tif", overlays=[p]
    ).battlefield


def test_8_3_towers_entered_only_from_a_wall(towered, origin):
    # the defenders hold the walls: one base on the wall walks east into the tower (impractical:
    # 50 m for foot, 7.3); one base on the ground below the tower advances north and cannot go in
    from engine.rulesets.two_mm_earth import sieges

    ox, oy = origin
    sc = make_scenario(
        [
            {
                "id": "walk",
                "profile": "inf",
                "bases": 1,
                "at": (150, 110),
                "facing": 90,
                "order": "advance",
                "target": {"xy": [ox + 225, oy + 110]},
            },
            {
                "id": "ground",
                "profile": "inf",
                "bases": 1,
                "at": (225, 55),
                "facing": 0,
                "order": "advance",
                "target": {"xy": [ox + 225, oy + 110]},
            },
        ],
        [{"id": "x", "profile": "inf", "bases": 1, "at": (0, 700), "facing": 180}],
        armies=ARMIES,
        origin=origin,
    )
    sc.sides[0].holds_walls = True
    b = Battle(towered, sc, Dice(3))
    walk, ground = b.state.formations["walk"], b.state.formations["ground"]
    assert sieges.fortification_at(towered, walk) == "wall"
    assert sieges.fortification_at(towered, ground) is None
    for _ in range(3):
        b.step()
    assert sieges.fortification_at(towered, walk) == "tower"  # from the wall: in
    assert sieges.fortification_at(towered, ground) is None  # from the ground: never
    assert ground.obb().cy + ground.obb().hd <= oy + 90 + 1.0  # stopped at the tower's foot


def test_3_1_rear_ranks_step_forward_to_replace_casualties(bf, origin):
    # blue foot (2 files x 2 ranks) hold; their front-left base was killed last bound. In the
    # movement phase the rear base of that file steps up into the gap and counts as the first
    # rank (3.1); the file without a casualty is unchanged
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 1, "at": (0, 0)}],
        [
            {
                "id": "foot",
                "profile": "inf",
                "bases": 4,
                "frontage": 2,
                "at": (0, 600),
                "facing": 180,
            }
        ],
        None,
    )
    foot = b.state.formations["foot"]
    front_left, front_right, rear_left, rear_right = foot.bases
    front_left.status = BaseStatus.DEAD
    before = {x.id: (x.x, x.y) for x in foot.bases}
    assert rear_left not in foot.front_rank()
    b.step()
    assert (rear_left.rank, rear_left.file) == (0, front_left.file)
    assert (rear_left.x, rear_left.y) == pytest.approx(before[front_left.id])  # into the gap
    assert {x.id for x in foot.front_rank()} == {rear_left.id, front_right.id}
    assert (rear_right.x, rear_right.y) == pytest.approx(before[rear_right.id])


def test_11_1_injured_retreating_bases_are_slowed_the_rest_are_not(bf, origin):
    # blue foot (2 x 2) retreat from red; their front rank is injured. In the move the unhurt
    # rear rank retreats 100 m (infantry, plain: no halving for them), the injured front rank
    # falls out as a group of its own and manages 50 m (11.1 "injured troops DO" suffer)
    b = battle(
        bf,
        origin,
        [{"id": "r", "profile": "inf", "bases": 2, "at": (0, 0)}],
        [
            {
                "id": "foot",
                "profile": "inf",
                "bases": 4,
                "frontage": 2,
                "at": (0, 140),
                "facing": 180,
            }
        ],
        None,
    )
    foot = b.state.formations["foot"]
    foot.morale, foot.changed_bound = Morale.RETREATING, 0
    for x in foot.front_rank():
        x.status = BaseStatus.INJURED
    rec = b.step()
    (split,) = of(rec, "wing_split")
    assert split.wings == ("foot", "foot_inj")
    inj = b.state.formations["foot_inj"]
    assert inj.wing_of == "foot" and inj.morale is Morale.RETREATING
    assert all(x.status is BaseStatus.INJURED for x in inj.bases)
    assert all(x.status is BaseStatus.OK for x in foot.alive_bases)
    moved = {e.formation: e.distance_m for e in of(rec, "moved")}
    assert moved["foot"] == pytest.approx(100.0) and moved["foot_inj"] == pytest.approx(50.0)


def test_10_4_v07_5_5_rally_when_a_character_joins_under_v07(bf, origin):
    # the same ride under v0.7: its 5.5 rally is one die (the rout test) at the routing R
    sc = make_scenario(
        [
            {"id": "foot", "profile": "inf", "bases": 4, "frontage": 2, "at": (0, 0)},
            {
                "id": "hq",
                "profile": "cav",
                "bases": 1,
                "at": (150, -120),
                "character": "red_general",
                "order": "advance",
                "target_formation": "foot",
            },
        ],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 700), "facing": 180}],
        armies=ARMIES,
        origin=origin,
    )
    # v0.7 9.1: first the General (steady) sees the friend routing and takes the army-morale
    # test before moving: 1 + 2 (one friend routing) - 2 - L3 = -2 < R4, nothing
    b = Battle(bf, sc, ScriptedDice([1, 4]), ruleset="2mm-earth-v0.7")
    foot = _rout(b, "foot")
    rec = b.step()
    am, pt = of(rec, "panic_test")
    assert am.formation == "hq" and am.phase == "army_morale" and am.outcome == "none"
    assert pt.triggers == ("character_joined_routing",) and len(pt.dice.faces) == 1
    assert pt.score == 4 - 3 and pt.outcome == "retreat"  # L3 counts: 1 <= R4-2
    assert foot.morale is Morale.RETREATING


def test_3_2_bases_not_in_contact_assist_by_shooting_at_bases_not_in_contact(bf, origin):
    # red archers (a line of 4) are in melee with blue foot (2 files x 2 ranks) touching only
    # their left half. Ordered to attack, the two archers not in contact shoot (3.2: only at
    # bases not in contact with any friendly base) - so the hits fall on blue's rear rank
    b = battle(
        bf,
        origin,
        [
            {
                "id": "bows",
                "profile": "archers",
                "bases": 4,
                "frontage": 4,
                "at": (0, 0),
                "order": "attack",
                "target_formation": "foot",
            }
        ],
        [
            {
                "id": "foot",
                "profile": "inf",
                "bases": 4,
                "frontage": 2,
                "at": (-40, 30),
                "facing": 180,
            }
        ],
        [6, 6, 6] + [1] * 20,
    )
    st = b.state
    assert st.contacts.get("bows") == ("foot",)
    rec = b.step()
    (shot,) = of(rec, "shot")
    assert (shot.formation, shot.target, shot.mode, shot.hits) == ("bows", "foot", "normal", 3)
    hit_bases = [
        e.base
        for e in rec.events
        if e.type in ("injured", "killed") and e.phase == "shooting_damage"
    ]
    foot = st.formations["foot"]
    rear = {x.id for x in foot.bases if x.rank == 1}
    assert hit_bases and set(hit_bases) <= rear  # never the front rank in contact


def test_11_3_pike_and_shot_split_into_wings_in_combat_and_test_as_one(bf, origin):
    # a Pike & Shot block: pikes in the middle two files, musketeers on each flank file (set in
    # the scenario with flank_profile). Knights charge its right flank: on getting into combat
    # it splits into three wings by kind (11.3); the right-hand musketeers, hit in the flank,
    # test (melee R3: [3, 6] keeps 3 = R3 -> retreat), and the pike and the left musketeers
    # retreat with them: "as if they were still in a brigaded formation"
    b = battle(
        bf,
        origin,
        [
            {
                "id": "ps",
                "profile": "inf",
                "bases": 8,
                "frontage": 4,
                "at": (0, 0),
                "flank_profile": "musket",
                "flank_files": 1,
            }
        ],
        [
            {
                "id": "kn",
                "profile": "cav",
                "bases": 2,
                "at": (120, 0),
                "facing": 270,
                "order": "attack",
                "target_formation": "ps",
            }
        ],
        [3, 6] + [1] * 30,
    )
    st = b.state
    kinds = sorted((x.file, x.profile.id) for x in st.formations["ps"].bases if x.rank == 0)
    assert kinds == [(0, "musket"), (1, "inf"), (2, "inf"), (3, "musket")]
    rec = b.step()
    (split,) = of(rec, "wing_split")
    assert split.wings == ("ps", "ps.w2", "ps.w3")
    wings = [st.formations[w] for w in split.wings]
    assert [{x.profile.id for x in w.bases} for w in wings] == [{"musket"}, {"inf"}, {"musket"}]
    assert all(w.linked and w.wing_of == "ps" for w in wings)
    (pt,) = of(rec, "panic_test")
    assert pt.formation == "ps.w3" and "enemy_contact_flank" in pt.triggers
    assert pt.outcome == "retreat"
    assert all(w.morale is Morale.RETREATING for w in wings)
    reasons = [e.reason for e in of(rec, "retreat")]
    assert sum("11.3" in r for r in reasons) == 2
