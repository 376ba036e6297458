"""Scenario mechanisms of the command layer, played in shipped battles on their real ground:
readiness ``until.order`` (not woken by bound 1's briefing), the alarm that spreads to friends
(``until.friend_attacked_within_m``), and messengers at each side's own age (9.2). Readings:
docs/rules-interpretations.md ("Readiness", "9.2 An 1863 field army is Ancients").
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets import get_ruleset
from engine.scenario import Scenario, load_scenario
from scenario_builder.battle import build_battlefield
from scenario_builder.routing.route import arrival_bound


@pytest.fixture(scope="module")
def grounds() -> dict[str, Any]:
    return {
        sid: build_battlefield(load_scenario(sid)).battlefield
        for sid in ("stamford_bridge_1066", "chacabuco_1817", "gettysburg_1863_day2")
    }


def _edited(sid: str, edit: Any) -> Scenario:
    sc = load_scenario(sid)
    data = sc.model_dump(mode="json", exclude_defaults=True)
    edit(data)
    new = Scenario.model_validate(data)
    new._path = sc.path
    return new


def _battle(sc: Scenario, bf: Any, seed: int = 1) -> Battle:
    rs = get_ruleset(sc.ruleset)
    commanders = dict(rs.automatic_commanders(sc, rs.ground(bf)))
    return Battle(bf, sc, Dice(seed), ruleset=rs, commanders=commanders)


def _side(data: dict[str, Any], sid: str) -> dict[str, Any]:
    return next(s for s in data["sides"] if s["id"] == sid)


def _ready(b: Battle) -> list[tuple[int, str, str]]:
    return [
        (rec.bound, e.formation, e.cause)
        for rec in b.log.bounds
        for e in rec.events
        if e.type == "ready"
    ]


# -- readiness ----------------------------------------------------------------------------------


def test_until_order_does_not_wake_at_bound_2(grounds: dict[str, Any]) -> None:
    """Stamford Bridge, the Norwegians in camp until an order reaches them (or bound 8): every
    Norwegian formation gets its briefing in bound 1, which is not "an order received after
    bound 1"; none is roused at bound 2 by it (every one was, before), and any roused by an
    order had one received in the bound before, after bound 1."""

    def edit(data: dict[str, Any]) -> None:
        _side(data, "norwegians")["readiness"] = {
            "state": "unready",
            "until": {"order": True, "attacked": False, "bound": 8},
        }

    b = _battle(_edited("stamford_bridge_1066", edit), grounds["stamford_bridge_1066"])
    for _ in range(9):
        b.step()
    briefed = {e.formation for e in b.log.bounds[1].events if e.type == "order_received"} & set(
        b.state.formations
    )
    assert briefed, "the Norwegians get their bound-1 orders"
    ready = _ready(b)
    assert ready
    assert not [r for r in ready if r[0] == 2], ready
    for bound, fid, cause in ready:
        if cause == "order":
            before = b.log.bounds[bound - 1]
            assert before.bound > 1
            assert any(e.type == "order_received" and e.formation == fid for e in before.events)
        else:
            assert cause in ("bound", "morale"), (bound, fid, cause)


def test_the_alarm_spreads_to_friends_within_its_distance(grounds: dict[str, Any]) -> None:
    """Stamford Bridge, the Norwegians in camp: Harald's men until attacked, Tostig's only by
    the alarm (``attacked: false``, ``friend_attacked_within_m: 1500``). Tostig's men wake
    "alarm: no_harald attacked" in the bound Harald's are first attacked; without the alarm
    field they are still in camp then (roused only when they break, 11.1)."""

    def camp(alarm: float | None) -> Any:
        def edit(data: dict[str, Any]) -> None:
            until: dict[str, Any] = {"attacked": False}
            if alarm is not None:
                until["friend_attacked_within_m"] = alarm
            for f in _side(data, "norwegians")["formations"]:
                if f["id"] == "no_harald":
                    f["readiness"] = {"state": "unready", "until": {"attacked": True}}
                if f["id"] == "no_tostig":
                    f["readiness"] = {"state": "unready", "until": until}

        return edit

    bf = grounds["stamford_bridge_1066"]
    woken = _battle(_edited("stamford_bridge_1066", camp(1500.0)), bf)
    woken.run(25)
    ready = {fid: (bound, cause) for bound, fid, cause in _ready(woken)}
    assert ready["no_harald"][1] == "attacked", ready
    assert ready["no_tostig"] == (ready["no_harald"][0], "alarm: no_harald attacked"), ready
    at = ready["no_tostig"][0]
    assert _gap_centres(woken.log.bounds[at - 1].snapshot, "no_tostig", "no_harald") <= 1500.0
    still = _battle(_edited("stamford_bridge_1066", camp(None)), bf)
    still.run(25)
    late = [(bound, cause) for bound, fid, cause in _ready(still) if fid == "no_tostig"]
    assert all(bound > at and cause == "morale" for bound, cause in late), late


def _gap_centres(snap: dict[str, Any], a: str, b: str) -> float:
    def c(fid: str) -> tuple[float, float]:
        xy = [(v["x"], v["y"]) for v in snap["bases"].values() if v["formation"] == fid]
        return (sum(x for x, _ in xy) / len(xy), sum(y for _, y in xy) / len(xy))

    return math.dist(c(a), c(b))


# -- 9.2 messengers by age -----------------------------------------------------------------------


def test_9_2_chacabuco_orders_travel_by_horse(grounds: dict[str, Any]) -> None:
    """Chacabuco, 1817: orders by mounted aides are 9.2's "messenger on horse", 500 m a bound
    (no wire on the field)."""
    sc = load_scenario("chacabuco_1817")
    assert sc.age == "ancients"
    rs = get_ruleset(sc.ruleset)
    d = rs.delivery(rs.ground(grounds["chacabuco_1817"]), sc)
    assert d.rate_for("patriots") == d.rate_for("royalists") == 500.0  # type: ignore[attr-defined]


def test_9_2_a_side_with_its_own_age_sends_at_its_own_rate(grounds: dict[str, Any]) -> None:
    """Gettysburg with the Union given ``age: prehistoric`` (runners, 200 m a bound) against
    the Confederates' mounted aides (the scenario's ``ancients``, 500 m): every Union messenger
    sent arrives when 200 m a bound says, later than at 500 m for a string longer than 200 m."""

    def edit(data: dict[str, Any]) -> None:
        _side(data, "union")["age"] = "prehistoric"

    b = _battle(_edited("gettysburg_1863_day2", edit), grounds["gettysburg_1863_day2"])
    assert b.delivery.rate_for("union") == 200.0  # type: ignore[attr-defined]
    assert b.delivery.rate_for("confederates") == 500.0  # type: ignore[attr-defined]
    log = b.run(20)
    sent = [e for rec in log.bounds for e in rec.events if e.type == "messenger_sent"]
    union = [e for e in sent if e.side == "union"]
    assert union, sent
    for e in union:
        assert e.arrival_bound == arrival_bound(e.cost_m, 200.0, e.sent_bound), e
    assert any(
        arrival_bound(e.cost_m, 200.0, e.sent_bound) > arrival_bound(e.cost_m, 500.0, e.sent_bound)
        for e in union
    )
    for e in sent:
        if e.side == "confederates":
            assert e.arrival_bound == arrival_bound(e.cost_m, 500.0, e.sent_bound), e


# -- a mechanism a ruleset cannot play ------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ["2mm-earth-v0.9+wc-morale", "dark-age"])
def test_pursuit_bounds_under_a_book_with_no_pursuit_is_refused(
    ruleset: str, tmp_path: Any, run_cli: Any
) -> None:
    """Barnet's ``pursuit_bounds: 10`` under War & Conquest's morale (whose battle ends at the
    break, it has no 11.1 pursuit): ``run --ruleset`` stops with one line naming the file, the
    line and the field, exit 1, nothing written; under 2mm Earth the pursuit runs."""
    out = tmp_path / "out"
    code, _o, err = run_cli("run", "barnet_1471", "--ruleset", ruleset, "--out", str(out))
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 1 and len(lines) == 1, err
    assert "barnet_1471.yaml: line " in lines[0] and "victory.pursuit_bounds: " + ruleset in err
    assert not out.exists()


def test_arrivals_and_readiness_under_dark_age(grounds: dict[str, Any]) -> None:
    """Stamford Bridge under ``dark-age`` (its own moves, formations and W&C morale on 2mm
    Earth's seam): the Norwegians caught unready wake when the English come within 400 m or
    attack, and Orri's men, due at bound 8 here, enter at the south edge that bound and move
    in it - the core's readiness and arrivals, played by this ruleset as by 2mm Earth. (Its
    ``pursuit_bounds`` is dropped: dark-age refuses it, its battle ends at the break.)"""
    base = load_scenario("stamford_bridge_1066")
    plan = base.plan_of("norwegians")
    assert plan is not None

    def edit(data: dict[str, Any]) -> None:
        data["ruleset"] = "dark-age"
        data["victory"].pop("pursuit_bounds", None)
        inline = plan.model_dump(mode="json", exclude_defaults=True)
        for fp in inline["formations"]:
            if fp["formation"] == "no_orri":
                fp["arrives"]["bound"] = 8
        _side(data, "norwegians")["plan"] = inline

    b = _battle(_edited("stamford_bridge_1066", edit), grounds["stamford_bridge_1066"], seed=3)
    assert b.ruleset.name == "dark-age"
    assert b.ctx.readiness is not None and b.ctx.readiness.holds("no_harald")
    assert "no_orri" not in b.state.formations
    while not b.finished and b.state.bound < 12:
        b.step()
    arrived = [
        (r.bound, e.formation) for r in b.log.bounds for e in r.events if e.type == "arrived"
    ]
    assert arrived == [(8, "no_orri")], arrived
    moved = [
        r.bound
        for r in b.log.bounds
        for e in r.events
        if e.type == "moved" and e.formation == "no_orri" and e.distance_m > 1.0
    ]
    assert moved and moved[0] == 8, moved
    ready = [e.formation for r in b.log.bounds for e in r.events if e.type == "ready"]
    assert "no_harald" in ready, ready
