"""Messengers in the battle (9.1-9.2) on shipped battlefields: reach, routes, arrival, re-plans."""

from __future__ import annotations

import math

import numpy as np
import pytest
from shapely.geometry import LineString, Polygon

from engine.battle import Battle
from engine.dice import Dice
from engine.geometry import corners
from engine.log import MessengerArrived, MessengerRerouted, MessengerSent
from engine.orders import Order
from engine.rulesets.two_mm_earth.commanders import plan_commanders
from engine.rulesets.two_mm_earth.messengers import MessengerDelivery, enemy_footprints
from engine.scenario import Scenario, load_scenario
from engine.state import BattleState, Morale
from scenario_builder.routing import RouteGraph, arrival_bound

RATE = 500.0  # ancients, 9.2


def _scenario(a: tuple[float, float], b: tuple[float, float], far: tuple[float, float]) -> Scenario:
    """English General's retinue at ``a``, archers at ``b``, the Scots at ``far``."""
    return Scenario.model_validate(
        {
            "id": "msg_test",
            "name": "messenger test",
            "battlefield": {"slug": "north_bayreuth_pair"},
            "age": "ancients",
            "sides": [
                {
                    "id": "english",
                    "name": "E",
                    "army": "english_1513",
                    "home_edge": "south",
                    "general": "surrey",
                    "characters": [{"id": "surrey", "formation": "en_hq"}],
                    "formations": [
                        {
                            "id": "en_hq",
                            "profile": "en_bills_retinue",
                            "bases": 2,
                            "frontage": 2,
                            "position": {"xy": list(a)},
                        },
                        {
                            "id": "en_bows",
                            "profile": "en_archers",
                            "bases": 2,
                            "frontage": 2,
                            "position": {"xy": list(b)},
                        },
                        {
                            "id": "en_ally",
                            "profile": "en_bills",
                            "bases": 2,
                            "frontage": 2,
                            "position": {"xy": [far[0] - 600, far[1]]},
                        },
                    ],
                },
                {
                    "id": "scots",
                    "name": "S",
                    "army": "scots_1513",
                    "home_edge": "north",
                    "general": "james_iv",
                    "characters": [{"id": "james_iv", "formation": "sc_king"}],
                    "formations": [
                        {
                            "id": "sc_king",
                            "profile": "sc_pike_nobles",
                            "bases": 4,
                            "frontage": 4,
                            "position": {"xy": list(far)},
                        }
                    ],
                },
            ],
        }
    )


@pytest.fixture(scope="module")
def bayreuth(built_bayreuth):
    bf = built_bayreuth.battlefield
    return bf, RouteGraph.from_battlefield(bf)


def _straight(g: RouteGraph, a, b) -> tuple[float, float]:
    """(cost, triple length) of the straight string a -> b, metres."""
    ua, va = g.grid.to_grid(*a)
    ub, vb = g.grid.to_grid(*b)
    cost, triple, _ = g.grid.stretch(ua, va, ub, vb)
    return cost * g.grid.res, triple * g.grid.res


def _find_pairs(bf, g: RouteGraph) -> dict[str, tuple]:
    """Open-ground pairs whose straight string crosses woods: one where the cheapest string goes
    through the wood, one where it goes round (searched on the real Bayreuth mask, fixed seed)."""
    x0, y0, x1, y1 = bf.bounds
    rng = np.random.default_rng(0)
    found: dict[str, tuple] = {}
    for _ in range(3000):
        a = (float(rng.uniform(x0 + 800, x1 - 800)), float(rng.uniform(y0 + 800, y1 - 800)))
        ang, length = rng.uniform(0, 2 * np.pi), rng.uniform(900, 1500)
        b = (a[0] + length * math.cos(ang), a[1] + length * math.sin(ang))
        if not (x0 + 500 < b[0] < x1 - 500 and y0 + 500 < b[1] < y1 - 500):
            continue
        if _straight(g, a, b)[1] < 150:
            continue
        # the formations must stand on open ground round the end points
        if any(
            _straight(g, (p[0] - 60, p[1] - 40), (p[0] + 60, p[1] + 40))[1] > 0
            or _straight(g, (p[0] - 60, p[1] + 40), (p[0] + 60, p[1] - 40))[1] > 0
            for p in (a, b)
        ):
            continue
        r = g.route(a, b)
        if "cross" not in found and r.triple_share > 0.1:
            found["cross"] = (a, b)
        if "detour" not in found and r.triple_share == 0 and r.length_m > length * 1.05:
            found["detour"] = (a, b)
        if len(found) == 2:
            return found
    raise AssertionError(f"no pairs on the Bayreuth mask: {sorted(found)}")


def _battle(bf, a, b, far) -> tuple[Battle, MessengerDelivery]:
    sc = _scenario(a, b, far)
    delivery = MessengerDelivery(bf, RATE)
    battle = Battle(bf, sc, Dice(1), commanders={}, delivery=delivery)
    battle.state.bound = 2  # past the pre-battle briefing
    return battle, delivery


def _far_corner(bf) -> tuple[float, float]:
    _, _, x1, y1 = bf.bounds
    return (x1 - 300.0, y1 - 300.0)


@pytest.mark.parametrize("case", ["cross", "detour"])
def test_9_1_messenger_crosses_woods_when_cheaper_detours_when_triple_is_longer(bayreuth, case):
    bf, g = bayreuth
    a, b = _find_pairs(bf, g)[case]
    battle, delivery = _battle(bf, a, b, _far_corner(bf))
    st = battle.state
    ev = delivery.send(st, "english", Order.from_text("attack en_bows"), 2)
    assert len(ev) == 1 and isinstance(ev[0], MessengerSent)
    sent = ev[0]
    path = [tuple(p) for p in sent.route]
    cost, triple, length = g.grid.path_cost([g.grid.to_grid(*p) for p in path])
    cost, triple, length = cost * g.grid.res, triple * g.grid.res, length * g.grid.res
    assert cost == pytest.approx(sent.cost_m, rel=1e-6)
    straight_cost, straight_triple = _straight(g, path[0], path[-1])
    assert straight_triple > 0  # the straight string runs through the wood
    if case == "cross":
        assert triple > 50.0  # 9.1: through the wood at triple length: still the cheapest
        assert cost < straight_cost
    else:
        assert triple < 1e-6  # round the wood: 3x through would be longer
        assert length > math.dist(path[0], path[-1]) * 1.02
        assert cost < straight_cost
    # 9.2: arrival bound = sent + ceil(cost / rate) - 1 (continuous in distance)
    assert sent.arrival_bound == 2 + math.ceil(sent.cost_m / RATE) - 1
    assert sent.arrival_bound == arrival_bound(sent.cost_m, RATE, 2)


def test_9_2_messenger_in_flight_in_snapshot_and_arrives_on_its_bound(bayreuth):
    bf, g = bayreuth
    a, b = _find_pairs(bf, g)["cross"]
    battle, delivery = _battle(bf, a, b, _far_corner(bf))
    st = battle.state
    (sent,) = delivery.send(st, "english", Order.from_text("hold en_bows"), 2)
    snap = delivery.snapshot()
    assert len(snap) == 1
    m = snap[0]
    assert set(m) == {
        "id",
        "side",
        "to",
        "order",
        "route",
        "travelled_m",
        "cost_m",
        "sent_bound",
        "arrival_bound",
    }  # the fields docs/architecture.md lists
    assert (m["id"], m["side"], m["to"], m["order"]) == (
        sent.id,
        "english",
        "en_bows",
        "hold en_bows",
    )
    assert m["travelled_m"] == RATE and m["sent_bound"] == 2
    assert m["arrival_bound"] == sent.arrival_bound
    for bound in range(3, sent.arrival_bound + 1):
        st.bound = bound
        orders, events = delivery.arrivals(st, bound)
        if bound < sent.arrival_bound:
            assert orders == [] and not any(isinstance(e, MessengerArrived) for e in events)
            assert delivery.snapshot()[0]["travelled_m"] == min(m["cost_m"], RATE * (bound - 1))
        else:
            assert [str(o) for o in orders] == ["hold en_bows"]
            arrived = [e for e in events if isinstance(e, MessengerArrived)]
            assert arrived[0].arrival_bound == bound and len(arrived[0].route) >= 2
            assert delivery.snapshot() == []


def test_9_2_arrival_is_continuous_in_distance_in_a_battle(built_minden):
    """9.2 in play: archers 380 m of string from the General act on an order in the bound it is
    given (reach); archers 603 m away act one bound later, not two: one bound per 500 m."""
    from engine.rulesets.two_mm_earth.scripted import OrdersScript, ScriptedCommander
    from engine.testing import flat_origin

    bf = built_minden.battlefield
    ox, oy = flat_origin(bf)  # open, level ground: the string is the straight line
    # the General's one-base retinue faces north; the string runs from his base to the nearest
    # point of a formation: 380 m to the near archers, 603 m to the far ones (2 bases: 80 m wide)
    sc = Scenario.model_validate(
        {
            "id": "msg_reach",
            "name": "9.2 continuity",
            "battlefield": {"slug": "minden"},
            "age": "ancients",
            "sides": [
                {
                    "id": "english",
                    "name": "E",
                    "army": "english_1513",
                    "home_edge": "south",
                    "general": "surrey",
                    "characters": [{"id": "surrey", "formation": "en_hq"}],
                    "formations": [
                        {
                            "id": "en_hq",
                            "profile": "en_bills_retinue",
                            "bases": 1,
                            "frontage": 1,
                            "position": {"xy": [ox - 340, oy]},
                        },
                        {
                            "id": "en_near",
                            "profile": "en_archers",
                            "bases": 2,
                            "frontage": 2,
                            "position": {"xy": [ox - 340 + 380 + 40, oy]},
                        },
                        {
                            "id": "en_far",
                            "profile": "en_archers",
                            "bases": 2,
                            "frontage": 2,
                            "position": {"xy": [ox - 340 + 603 + 40, oy]},
                        },
                    ],
                },
                {
                    "id": "scots",
                    "name": "S",
                    "army": "scots_1513",
                    "home_edge": "north",
                    "general": "james_iv",
                    "characters": [{"id": "james_iv", "formation": "sc_king"}],
                    "formations": [
                        {
                            "id": "sc_king",
                            "profile": "sc_pike_nobles",
                            "bases": 2,
                            "frontage": 2,
                            "position": {"xy": [ox, oy + 1500]},
                        }
                    ],
                },
            ],
        }
    )
    script = OrdersScript.from_text('2: ["advance en_near", "advance en_far"]\n')
    cmd = ScriptedCommander.from_scenario(sc, "english", script, bf.to_xy)
    b = Battle(bf, sc, Dice(1), commanders={"english": cmd})
    near = b.delivery.reach_route(b.state, "english", "en_near").cost_m
    far = b.delivery.reach_route(b.state, "english", "en_far").cost_m
    assert near == pytest.approx(380.0, abs=1.0) and far == pytest.approx(603.0, abs=1.0)
    b.step()  # bound 1: the briefing (no orders to the two)
    moved: dict[int, set[str]] = {}
    sent = []
    for bound in (2, 3, 4):
        rec = b.step()
        moved[bound] = {e.formation for e in rec.events if e.type == "moved"}
        sent += [e for e in rec.events if isinstance(e, MessengerSent)]
    assert [(e.to, e.sent_bound, e.arrival_bound) for e in sent] == [("en_far", 2, 3)]
    assert "en_near" in moved[2] and "en_far" not in moved[2]  # 380 m: in reach, at once
    assert "en_far" in moved[3]  # 603 m: one bound later (it was two before the fix)


def test_9_1_order_within_reach_of_a_character_arrives_at_once(bayreuth):
    bf, _ = bayreuth
    x0, y0, x1, y1 = bf.bounds
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    battle, delivery = _battle(bf, (cx, cy), (cx + 300.0, cy), _far_corner(bf))
    assert delivery.send(battle.state, "english", Order.from_text("attack en_bows"), 2) == []
    orders, _ = delivery.arrivals(battle.state, 2)
    assert [str(o) for o in orders] == ["attack en_bows"]


def _move(state: BattleState, fid: str, x: float, y: float, facing: float = 0.0) -> None:
    state.formations[fid].set_pose(x, y, facing)
    state.version += 1


def test_9_1_enemy_bases_force_a_detour_allies_do_not(bayreuth):
    bf, g = bayreuth
    x0, y0, _, _ = bf.bounds
    # a clear stretch of open ground for the string: the detour pair's route is woods-free
    a, b = _find_pairs(bf, g)["detour"]
    battle, delivery = _battle(bf, a, b, _far_corner(bf))
    st = battle.state
    clear = delivery.reach_route(st, "english", "en_bows")
    mid = clear.position_at(clear.cost_m / 2)
    seg = clear.path
    # ally across the string: no change (9.1 "straight through allies")
    _move(st, "en_ally", *mid, facing=0.0)
    with_ally = delivery.reach_route(st, "english", "en_bows")
    assert with_ally.cost_m == pytest.approx(clear.cost_m, rel=1e-9)
    # enemy across the string: twist round it
    _move(st, "en_ally", x0 + 300, y0 + 300)
    _move(st, "sc_king", *mid, facing=0.0)
    enemy = Polygon(corners(st.formations["sc_king"].obb()))
    assert LineString(seg).intersects(enemy)
    around = delivery.reach_route(st, "english", "en_bows")
    assert not around.line.intersects(enemy)
    assert around.cost_m > clear.cost_m


def test_9_1_messenger_replans_when_an_enemy_moves_across_its_string(bayreuth):
    bf, g = bayreuth
    a, b = _find_pairs(bf, g)["detour"]
    battle, delivery = _battle(bf, a, b, _far_corner(bf))
    st = battle.state
    (sent,) = delivery.send(st, "english", Order.from_text("attack en_bows"), 2)
    m = delivery.in_flight[0]
    ahead = m.route.position_at(min(m.cost_m - 120.0, m.travelled_m + 300.0))
    _move(st, "sc_king", *ahead)
    st.bound = 3
    _, events = delivery.arrivals(st, 3)
    rer = [e for e in events if isinstance(e, MessengerRerouted)]
    assert len(rer) == 1 and rer[0].reason == "enemy across the route"
    enemy = enemy_footprints(st, "english")[0]
    rest = delivery.in_flight[0].route
    assert not rest.line.intersects(enemy)
    snap = delivery.snapshot()[0]
    assert snap["cost_m"] > sent.cost_m and snap["arrival_bound"] >= sent.arrival_bound
    assert snap["arrival_bound"] == arrival_bound(snap["cost_m"], RATE, 2)


def test_9_1_messengers_in_a_real_battle_log_and_determinism(built_teutoburg):
    """Teutoburg with the plans: orders go out by messenger, the log holds them, same seed ->
    same bytes."""
    bf = built_teutoburg.battlefield
    sc = load_scenario("teutoburg_ad9")

    def fight() -> str:
        b = Battle(bf, sc, Dice(11), commanders=plan_commanders(sc, bf.to_xy))
        assert isinstance(b.delivery, MessengerDelivery)  # the default delivery
        return b.run(12).to_json()

    first, second = fight(), fight()
    assert first == second
    import json

    from engine.log import expanded

    log = expanded(json.loads(first))  # every bound's whole snapshot
    sent = [e for r in log["bounds"] for e in r["events"] if e["type"] == "messenger_sent"]
    assert sent, "the plans' later orders to distant formations travel by messenger"
    for e in sent:
        assert e["arrival_bound"] == arrival_bound(e["cost_m"], RATE, e["sent_bound"])
        assert e["arrival_bound"] > e["sent_bound"] and len(e["route"]) >= 2
    in_flight = [m for r in log["bounds"] for m in r["snapshot"]["messengers"]]
    assert in_flight and all(m["travelled_m"] <= m["cost_m"] for m in in_flight)


def test_9_1_routing_formation_gets_no_messenger_order_effect(built_flodden):
    bf = built_flodden.battlefield
    sc = load_scenario("flodden_1513")
    b = Battle(bf, sc, Dice(2), commanders={})
    f = b.state.formations["sc_home"]
    f.morale = Morale.ROUTING
    b.delivery.send(b.state, "scots", Order.from_text("attack sc_home"), 1)
    orders, _ = b.delivery.arrivals(b.state, 1)
    from engine.rulesets.two_mm_earth.orders import receive_order

    assert receive_order(b.state, orders[0], b.dice, b.ruleset) == []  # 10.4 no control
