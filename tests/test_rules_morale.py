"""Army morale, orders, formations and sieges (4.1-5.1, 8.3, 9.1-9.3, 10.1-10.5, 11.1-11.3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.battle import Battle
from engine.dice import Dice, ScriptedDice
from engine.orders import InstantDelivery, Order
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
    # blue (R4 melee) is charged in the flank by red: 10.2 panic test; blue's captain L1.
    # Melee dice first (red 3 dice misses, blue 1 die... blue faces its front: no strike at red's
    # flank-attacker is its opponent anyway), then the panic test: [5, 6] keeps 5, -L1 = 4 = R4
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
        [1] * 7 + [5, 6],
    )
    rec = b.step()
    (pt,) = of(rec, "panic_test")
    assert pt.formation == "b" and "enemy_contact_flank" in pt.triggers
    assert pt.resilience == 4 and pt.score == 4 and pt.outcome == "retreat"
    assert b.state.formations["b"].morale is Morale.RETREATING


def test_10_2_rear_contact_is_minus_one_r(bf, origin):
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
        [1] * 6 + [4, 4] + [1] * 4,
    )
    rec = b.step()
    (pt,) = of(rec, "panic_test")
    assert "enemy_contact_rear" in pt.triggers and pt.resilience == 3
    assert pt.outcome == "rout"  # 4 > R4-1


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
    from engine.rulesets.two_mm_earth.morale import _friend_triggers

    b = battle(
        bf,
        origin,
        [
            {"id": "a", "profile": "inf", "bases": 2, "at": (0, 0)},
            {"id": "c", "profile": "inf", "bases": 2, "at": (300, 0)},
        ],
        [{"id": "x", "profile": "inf", "bases": 1, "at": (0, 900), "facing": 180}],
        [],
    )
    b.state.formations["c"].morale = Morale.RETREATING
    assert "all_seen_friendlies_retreating" in _friend_triggers(b.ctx, b.state.formations["a"])
    b.state.formations["c"].morale = Morale.ROUTING
    assert "all_seen_friendlies_retreating_half_routing" in _friend_triggers(
        b.ctx, b.state.formations["a"]
    )


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
    from engine.rulesets.two_mm_earth.orders import receive_order

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
