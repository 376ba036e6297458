"""Richer plans, still automatic, fought on real ground.

Each field of a formation's plan (``engine.scenario.FormationPlan``) is shown by its effect in
the battle log: a reinforcement arrives on its bound at its edge or point (off the table until
then); a hold-fire formation does not shoot until released (9.1 "Hold means to Hold Fire");
a feint advances, then falls back under a Retreat order (9.1, 10.2) and rallies (11.2), on
reaching its point or when an enemy comes within its distance; waypoints are visited in order,
then the steps, each until its default end or the ``reached`` or ``taken`` its ``until`` gives.
Plus the surprise morale modifier (a reading of 10.5 / 10.2, engine.readiness) and plan files
through the CLI.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.battle import Battle
from engine.command.enemies import gap as _gap
from engine.command.plan import REACHED_M, TAKEN_M
from engine.dice import Dice
from engine.log import BattleLog
from engine.rulesets import get_ruleset
from engine.scenario import Scenario, load_scenario
from engine.state import Morale
from scenario_builder.battle import build_battlefield
from scenario_builder.paths import data_dir

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def grounds() -> dict[str, Any]:
    """The shipped battlefields of the battles used here (built once)."""
    out = {}
    for sid in ("halidon_hill_1333", "chacabuco_1817", "stamford_bridge_1066"):
        out[sid] = build_battlefield(load_scenario(sid)).battlefield
    return out


def with_plan(sid: str, side: str, extra: dict[str, Any]) -> Scenario:
    """Shipped scenario ``sid`` with ``extra`` merged into ``side``'s plan (inline)."""
    sc = load_scenario(sid)
    data = sc.model_dump(mode="json", exclude_defaults=True)
    for s in data["sides"]:
        if s["id"] == side:
            plan = sc.plan_of(side)
            merged = plan.model_dump(mode="json", exclude_defaults=True) if plan else {}
            merged.update(extra)
            s["plan"] = merged
    new = Scenario.model_validate(data)
    new._path = sc.path
    return new


def battle(sc: Scenario, bf: Any, seed: int = 1) -> Battle:
    rs = get_ruleset(sc.ruleset)
    commanders = dict(rs.automatic_commanders(sc, rs.ground(bf)))
    return Battle(bf, sc, Dice(seed), ruleset=rs, commanders=commanders)


def events(log: BattleLog, kind: str, fid: str) -> list[tuple[int, Any]]:
    return [
        (b.bound, e)
        for b in log.bounds
        for e in b.events
        if e.type == kind and getattr(e, "formation", None) == fid
    ]


# -- timed reinforcements ------------------------------------------------------------------------


def test_chacabuco_soler_arrives_at_bound_30_where_the_track_comes_down(grounds: Any) -> None:
    """The shipped plan file: Soler's division is off the table until bound 30, then placed at
    its point (plans/chacabuco_patriots.yaml) with its scenario order (attack rs_left)."""
    sc = load_scenario("chacabuco_1817")
    b = battle(sc, grounds["chacabuco_1817"])
    point = sc.plan_of("patriots").place("soler_track", b.bf.to_xy)  # type: ignore[union-attr]
    log = b.run()
    arrived = events(log, "arrived", "pt_soler")
    assert [bound for bound, _ in arrived] == [30]
    e = arrived[0][1]
    assert e.edge == "point" and e.delayed == 0
    assert math.dist(e.at, point) < 1.0
    for rec in log.bounds:
        on_table = "pt_soler.1" in rec.snapshot["bases"]
        assert on_table == (rec.bound >= 30), rec.bound
    # it fights from its arrival: moves from bound 30 on and not before
    moved = {bound for bound, _ in events(log, "moved", "pt_soler")}
    assert moved and min(moved) >= 30
    assert all(bound >= 30 for bound, _ in events(log, "order_issued", "pt_soler"))
    first_plan = next(pm for bd, pm in events(log, "planned_move", "pt_soler"))
    assert first_plan.target == "rs_left"  # the order it set out with (9.1 briefing)


def test_a_reinforcement_enters_at_its_map_edge_on_its_bound(grounds: Any) -> None:
    """Stamford Bridge with Orri's men due at bound 8 (the shipped file says 40, after the
    battle is decided): they enter at the south edge, facing north, on the line of their
    deployed position, and are nowhere before."""
    sc = load_scenario("stamford_bridge_1066")
    plan = sc.plan_of("norwegians")
    assert plan is not None and plan.for_formation("no_orri") is not None
    fp = plan.for_formation("no_orri").model_dump(mode="json")  # type: ignore[union-attr]
    assert fp["arrives"] == {"bound": 40, "edge": "south", "point": None}
    fp["arrives"]["bound"] = 8
    sc = with_plan("stamford_bridge_1066", "norwegians", {"formations": [fp]})
    b = battle(sc, grounds["stamford_bridge_1066"])
    deployed_x = sc.formation("no_orri").position.resolve(b.bf.to_xy)[0]
    assert "no_orri" not in b.state.formations
    for _ in range(7):
        b.step()
        assert "no_orri" not in b.state.formations
        assert all(g.id != "no_orri" for g in b.state.active())
    rec = b.step()
    [e] = [e for e in rec.events if e.type == "arrived"]
    assert (rec.bound, e.formation, e.edge, e.facing) == (8, "no_orri", "south", 0.0)
    f = b.state.formations["no_orri"]
    miny = b.state.bounds_xy[1]
    # entered just inside the south edge (then, ready, it marches on in the same bound)
    assert abs(e.at[1] - f.obb().hd - miny) <= 1.5
    assert abs(e.at[0] - deployed_x) <= 2 * f.obb().hw * 6 + 1  # on its line (or slid along)
    assert f.order == "attack"  # the order it set out with (9.1 briefing)


# -- hold fire -----------------------------------------------------------------------------------


def test_hold_fire_archers_do_not_shoot_until_an_enemy_is_within_200m(grounds: Any) -> None:
    """Halidon Hill: the centre archers (range 250 m) shoot from bound 8 under the automatic
    commander; told to hold fire until an enemy is within 200 m they are kept on Hold (9.1) and
    shoot only from the bound that releases them."""
    bf = grounds["halidon_hill_1333"]
    control = battle(load_scenario("halidon_hill_1333"), bf).run()
    first = min(bound for bound, _ in events(control, "shot", "en_bows_centre"))
    hold = {"formation": "en_bows_centre", "hold_fire": {"until": {"enemy_within_m": 200}}}
    sc = with_plan("halidon_hill_1333", "english", {"formations": [hold]})
    b = battle(sc, bf)
    released = None
    while not b.finished:
        f = b.state.formations["en_bows_centre"]
        near = min(_gap(f, g) for g in b.state.enemies_of("english"))
        commanding = b.ctx.aftermath is None  # after an army breaks no orders are given
        rec = b.step()
        shot = any(e.type == "shot" and e.formation == f.id for e in rec.events)
        issued = [e.order for e in rec.events if e.type == "order_issued" and e.formation == f.id]
        if released is None:
            if near <= 200 and commanding:
                released = rec.bound
                assert issued and issued[0].startswith("attack en_bows_centre"), issued
            else:
                assert not shot, f"shot in bound {rec.bound} with the nearest enemy {near:.0f} m"
                assert f.order == "hold"
    assert released is not None and released > first
    shots = [bound for bound, _ in events(b.log, "shot", "en_bows_centre")]
    assert shots and min(shots) == released


def test_hold_fire_until_a_bound(grounds: Any) -> None:
    sc = with_plan(
        "halidon_hill_1333",
        "english",
        {"formations": [{"formation": "en_bows_centre", "hold_fire": {"until": {"bound": 11}}}]},
    )
    log = battle(sc, grounds["halidon_hill_1333"]).run()
    orders = [(bd, e.order) for bd, e in events(log, "order_issued", "en_bows_centre")]
    assert orders[0] == (1, "hold en_bows_centre")
    assert all(bd >= 11 for bd, _ in orders[1:])
    shots = [bd for bd, _ in events(log, "shot", "en_bows_centre")]
    assert shots and min(shots) >= 11


# -- feint ---------------------------------------------------------------------------------------


def test_a_feint_advances_to_its_point_then_falls_back_and_rallies(grounds: Any) -> None:
    """Halidon Hill: Ross's schiltron feints 900 m toward the English, then Retreats (9.1;
    10.2 "must retreat if ordered to") for two bounds toward its home edge (west), then Holds
    and rallies after a whole bound inactive (11.2)."""
    point = {"lonlat": [-2.0760, 55.7825]}
    sc = with_plan(
        "halidon_hill_1333",
        "scots",
        {
            "formations": [
                {"formation": "sc_ross", "feint": {"point": point, "fall_back_bounds": 2}}
            ]
        },
    )
    b = battle(sc, grounds["halidon_hill_1333"])
    target = sc.plan_of("scots").place(point_of(point), b.bf.to_xy)  # type: ignore[union-attr]
    log = b.run()
    orders = [(bd, e.order.split()[0]) for bd, e in events(log, "order_issued", "sc_ross")]
    kinds = [k for _, k in orders]
    assert kinds[:3] == ["advance", "retreat", "hold"], orders
    back = orders[1][0]
    assert orders[2][0] == back + 2  # fall_back_bounds
    centres = {rec.bound: centre(rec.snapshot, "sc_ross") for rec in log.bounds}
    assert math.dist(centres[back - 1], target) <= REACHED_M  # reached the point first
    assert centres[back + 1][0] < centres[back - 1][0] - 20  # fell back west, toward home
    retreats = [bd for bd, e in events(log, "retreat", "sc_ross")]
    assert back in retreats and events(log, "retreat", "sc_ross")[0][1].reason.startswith("10.2")
    assert any(bd >= back + 2 for bd, _ in events(log, "rally", "sc_ross"))


def test_a_feint_turns_back_when_an_enemy_comes_within_its_distance(grounds: Any) -> None:
    """Halidon Hill: Ross's schiltron feints toward the English archers of the left (its point
    is their own position, so it cannot reach it) with ``enemy_within_m: 300``: it advances
    while the nearest enemy is farther than 300 m and Retreats (9.1, 10.2) in the first bound
    whose General sees one within 300 m, short of its point; then Holds after two bounds."""
    point = {"lonlat": [-2.0610, 55.7825]}  # en_bows_far_left's deployed position
    feint = {"point": point, "enemy_within_m": 300, "fall_back_bounds": 2}
    sc = with_plan(
        "halidon_hill_1333", "scots", {"formations": [{"formation": "sc_ross", "feint": feint}]}
    )
    b = battle(sc, grounds["halidon_hill_1333"])
    target = sc.plan_of("scots").place(point_of(point), b.bf.to_xy)  # type: ignore[union-attr]
    seen: dict[int, tuple[float, float]] = {}  # bound -> (nearest enemy gap, distance to point)
    while not b.finished:
        f = b.state.formations["sc_ross"]
        gap = min(_gap(f, g) for g in b.state.enemies_of("scots"))
        seen[b.state.bound + 1] = (gap, math.dist(f.centre(), target))
        b.step()
    orders = [(bd, e.order.split()[0]) for bd, e in events(b.log, "order_issued", "sc_ross")]
    assert [k for _, k in orders[:3]] == ["advance", "retreat", "hold"], orders
    back = orders[1][0]
    gap, dist = seen[back]
    assert gap <= 300 and dist > REACHED_M, (back, gap, dist)  # turned by the enemy, not the point
    assert all(seen[bd][0] > 300 for bd in range(1, back)), seen  # and not a bound earlier
    assert orders[2][0] == back + 2  # fall_back_bounds
    assert any(bd == back for bd, _ in events(b.log, "retreat", "sc_ross"))


def point_of(p: dict[str, Any]) -> Any:
    from engine.scenario import Position

    return Position.model_validate(p)


def centre(snapshot: dict[str, Any], fid: str) -> tuple[float, float]:
    xy = [(b["x"], b["y"]) for b in snapshot["bases"].values() if b["formation"] == fid]
    return (sum(x for x, _ in xy) / len(xy), sum(y for _, y in xy) / len(xy))


# -- waypoints and steps -------------------------------------------------------------------------


def test_waypoints_are_visited_in_order_then_the_steps(grounds: Any) -> None:
    """Halidon Hill: Moray's schiltron goes north (wp1), then east (wp2), then takes the
    objective on the hill; Douglas's marches to a point until bound 4, then to another."""
    pts = {
        "wp1": {"lonlat": [-2.0860, 55.7960]},
        "wp2": {"lonlat": [-2.0820, 55.7960]},
        "a": {"lonlat": [-2.0820, 55.7860]},
        "b": {"lonlat": [-2.0800, 55.7800]},
    }
    sc = with_plan(
        "halidon_hill_1333",
        "scots",
        {
            "points": pts,
            "formations": [
                {
                    "formation": "sc_moray",
                    "waypoints": ["wp1", "wp2"],
                    "steps": [{"objective": "halidon"}],
                },
                {
                    "formation": "sc_douglas",
                    "steps": [{"point": "a", "until": {"bound": 4}}, {"point": "b"}],
                },
            ],
        },
    )
    b = battle(sc, grounds["halidon_hill_1333"])
    plan = sc.plan_of("scots")
    assert plan is not None
    xy = {k: plan.place(k, b.bf.to_xy) for k in pts}
    halidon = next(o for o in plan.objectives if o.id == "halidon").point.resolve(b.bf.to_xy)
    log = b.run()
    moray = [(bd, e.order) for bd, e in events(log, "order_issued", "sc_moray")]
    goals = [_to(o) for _, o in moray if o.startswith("advance")]
    want = [xy["wp1"], xy["wp2"], halidon]
    assert [min(want, key=lambda w, g=g: math.dist(w, g)) for g in goals[:3]] == want, moray
    centres = {rec.bound: centre(rec.snapshot, "sc_moray") for rec in log.bounds}
    # the next waypoint is ordered only once the last was reached (the bound before)
    for (bd, order), wp in zip(moray[1:3], ("wp1", "wp2"), strict=True):
        assert math.dist(centres[bd - 1], xy[wp]) <= REACHED_M, (order, wp)
    douglas = [(bd, _to(e.order)) for bd, e in events(log, "order_issued", "sc_douglas")]
    assert douglas[0][0] == 1 and math.dist(douglas[0][1], xy["a"]) < 1
    assert douglas[1][0] == 4 and math.dist(douglas[1][1], xy["b"]) < 1


_A = {"lonlat": [-2.0800, 55.7860]}  # 375 m east of Douglas's deployment, short of the English
_B = {"lonlat": [-2.0800, 55.7800]}


def _douglas_steps(grounds: Any, steps: list[dict[str, Any]], objectives: list[Any]) -> Any:
    """Halidon Hill with the Guardian's division on ``steps``: its orders (bound, order) and,
    per bound, its distance to point A and whether A is taken by PlanCommander's rule (a Scots
    formation not broken within TAKEN_M, no enemy as close) as that bound's orders are made."""
    extra: dict[str, Any] = {
        "points": {"a": _A, "b": _B},
        "formations": [{"formation": "sc_douglas", "steps": steps}],
    }
    if objectives:
        plan = load_scenario("halidon_hill_1333").plan_of("scots")
        assert plan is not None
        extra["objectives"] = [o.model_dump(mode="json") for o in plan.objectives] + objectives
    sc = with_plan("halidon_hill_1333", "scots", extra)
    b = battle(sc, grounds["halidon_hill_1333"])
    a = sc.plan_of("scots").place("a", b.bf.to_xy)  # type: ignore[union-attr]
    seen: dict[int, tuple[float, bool]] = {}
    while not b.finished:
        mine = [f for f in b.state.active("scots") if f.morale is Morale.STEADY]
        d_mine = min((math.dist(f.centre(), a) for f in mine), default=math.inf)
        d_enemy = min(math.dist(g.centre(), a) for g in b.state.enemies_of("scots"))
        d = math.dist(b.state.formations["sc_douglas"].centre(), a)
        seen[b.state.bound + 1] = (d, d_mine <= TAKEN_M and d_enemy > d_mine)
        b.step()
    orders = [(bd, e.order) for bd, e in events(b.log, "order_issued", "sc_douglas")]
    xy = {k: sc.plan_of("scots").place(k, b.bf.to_xy) for k in "ab"}  # type: ignore[union-attr]
    return orders, seen, xy


def _first_to(orders: list[tuple[int, str]], xy: tuple[float, float]) -> int | None:
    return next((bd for bd, o in orders if " to " in o and math.dist(_to(o), xy) < 1), None)


def test_a_hold_step_ended_by_reached_goes_on_to_the_next(grounds: Any) -> None:
    """A step ``{point: a, order: hold, until: {reached: true}}`` ends in the first bound the
    division is within REACHED_M of A (then B); without ``until`` the hold goes on (the
    default end of a hold step: never), so B is never ordered."""
    steps = [{"point": "a", "order": "hold", "until": {"reached": True}}, {"point": "b"}]
    orders, seen, xy = _douglas_steps(grounds, steps, [])
    assert orders[0][0] == 1 and math.dist(_to(orders[0][1]), xy["a"]) < 1, orders
    to_b = _first_to(orders, xy["b"])
    assert to_b is not None, orders
    assert seen[to_b][0] <= REACHED_M, (to_b, seen[to_b])
    assert all(seen[bd][0] > REACHED_M for bd in range(1, to_b)), seen
    held, _, _ = _douglas_steps(grounds, [{"point": "a", "order": "hold"}, {"point": "b"}], [])
    assert _first_to(held, xy["b"]) is None, held
    assert any(o == "hold sc_douglas" for _, o in held), held


def test_a_step_on_a_hold_objective_ended_by_taken(grounds: Any) -> None:
    """A step ``{objective: fold, order: hold, until: {taken: true}}`` on an objective of kind
    ``hold`` at A ends in the first bound the objective is taken (a Scots formation within
    TAKEN_M, no enemy as close: PlanCommander's rule), then B; without ``until`` (a hold
    objective has no default end) it goes on and B is never ordered."""
    fold = [{"id": "fold", "point": _A, "formations": [], "kind": "hold"}]
    steps = [{"objective": "fold", "order": "hold", "until": {"taken": True}}, {"point": "b"}]
    orders, seen, xy = _douglas_steps(grounds, steps, fold)
    to_b = _first_to(orders, xy["b"])
    assert to_b is not None, orders
    assert seen[to_b][1], (to_b, seen[to_b])
    # on this ground it is taken (within 100 m) a bound before it would be reached (60 m)
    assert seen[to_b][0] > REACHED_M, (to_b, seen[to_b])
    assert not any(seen[bd][1] for bd in range(1, to_b)), seen
    plain = [{"objective": "fold", "order": "hold"}, {"point": "b"}]
    held, _, _ = _douglas_steps(grounds, plain, fold)
    assert _first_to(held, xy["b"]) is None, held


def _to(order: str) -> tuple[float, float]:
    x, y = order.split(" to ")[1].split(",")
    return (float(x), float(y))


# -- surprise: the morale modifier ---------------------------------------------------------------


def test_caught_unready_tests_panic_at_one_less_resilience(
    grounds: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stamford Bridge with the Norwegians asleep until bound 30 (not woken by the enemy):
    their first panic test carries ``caught_unready`` and is taken at R-1 (the reading of 10.5
    / 10.2); the same battle with the row taken out of the table tests the same formation, on
    the same dice, at R."""
    from engine.rulesets.two_mm_earth.rulesets import TwoMmEarthV09

    sc = load_scenario("stamford_bridge_1066")
    data = sc.model_dump(mode="json", exclude_defaults=True)
    data["sides"][0]["readiness"] = {"state": "asleep", "until": {"bound": 30, "attacked": False}}
    asleep = Scenario.model_validate(data)
    asleep._path = sc.path
    bf = grounds["stamford_bridge_1066"]
    log = battle(asleep, bf).run()
    tests = [
        (bd, e)
        for b in log.bounds
        for e in b.events
        if e.type == "panic_test"
        for bd in [b.bound]
        if e.formation.startswith("no_")
    ]
    assert tests, "expected the sleeping Norwegians to take a panic test"
    bound, first = tests[0]
    assert "caught_unready" in first.triggers and bound < 30
    rows = tuple(r for r in TwoMmEarthV09.morale_triggers if r.trigger != "caught_unready")
    monkeypatch.setattr(TwoMmEarthV09, "morale_triggers", rows)
    log2 = battle(asleep, bf).run()
    again = [
        e
        for b in log2.bounds
        for e in b.events
        if e.type == "panic_test" and e.formation == first.formation and b.bound == bound
    ]
    assert again and "caught_unready" not in again[0].triggers
    assert again[0].resilience == first.resilience + 1


# -- plan files through the CLI ------------------------------------------------------------------


def _copy_chacabuco(tmp: Path) -> tuple[Path, Path]:
    src = data_dir() / "scenarios"
    (tmp / "plans").mkdir()
    scen = tmp / "chacabuco_1817.yaml"
    shutil.copy(src / "chacabuco_1817.yaml", scen)
    plan = tmp / "plans" / "chacabuco_patriots.yaml"
    shutil.copy(src / "plans" / "chacabuco_patriots.yaml", plan)
    return scen, plan


def test_cli_a_wrong_name_in_a_plan_file_is_one_line_with_file_line_and_nearest(
    tmp_path: Path,
) -> None:
    scen, plan = _copy_chacabuco(tmp_path)
    text = plan.read_text().replace("formation: pt_soler_horse", "formation: pt_solr_horse")
    plan.write_text(text)
    line = text.splitlines().index("  - formation: pt_solr_horse") + 1
    out = subprocess.run(
        [sys.executable, "-m", "scenario_builder", "run", str(scen), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert out.returncode != 0
    lines = [ln for ln in out.stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert lines[0] == (
        f"Error: {plan}: line {line}: formations.1.formation: expected a formation of side "
        "patriots, got 'pt_solr_horse' (did you mean 'pt_soler_horse'?)"
    )
    assert not (tmp_path / "o").exists()


def test_a_missing_plan_file_names_the_scenario_line(tmp_path: Path) -> None:
    scen, plan = _copy_chacabuco(tmp_path)
    plan.unlink()
    from scenario_builder.errors import ScenarioFileError

    with pytest.raises(ScenarioFileError) as err:
        load_scenario(scen)
    msg = str(err.value)
    line = scen.read_text().splitlines().index("    plan: plans/chacabuco_patriots.yaml") + 1
    assert msg.startswith(f"{scen}: line {line}: sides.1.plan: expected a plan file"), msg


def test_plan_schema_is_printed() -> None:
    import json

    out = subprocess.run(
        [sys.executable, "-m", "scenario_builder", "schema", "--kind", "plan"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    schema = json.loads(out.stdout)
    assert {"formations", "objectives", "triggers", "points", "stance"} <= set(schema["properties"])
    assert {"Arrival", "Feint", "HoldFire", "PlanStep", "StepEnd"} <= set(schema["$defs"])


def test_the_documented_plan_file_example_loads_against_stamford_bridge(tmp_path: Path) -> None:
    """The documented plan-file example (docs/orders.md) is a real plan: every name in it checks."""
    text = (ROOT / "docs" / "orders.md").read_text()
    start = text.index("# data/scenarios/stamford_bridge_1066.yaml:")
    block = text[start : text.index("```", start)]
    src = data_dir() / "scenarios" / "stamford_bridge_1066.yaml"
    (tmp_path / "plans").mkdir()
    shutil.copy(src, tmp_path / src.name)
    (tmp_path / "plans" / "stamford_bridge_norwegians.yaml").write_text(block)
    sc = load_scenario(tmp_path / src.name)
    plan = sc.plan_of("norwegians")
    assert plan is not None
    assert [fp.formation for fp in plan.formations] == ["no_orri", "no_harald", "no_tostig"]


def test_a_battle_with_arrivals_and_plans_keeps_every_engine_invariant(grounds: Any) -> None:
    """engine.testing.check_battle over Chacabuco (Soler arrives at bound 30) and Halidon Hill
    with a feint, a route and held archers: phases, legal orders, morale transitions, no
    overlapping bases (the newcomers included), moves within their allowance, no stall."""
    from engine.testing import check_battle

    report = check_battle(battle(load_scenario("chacabuco_1817"), grounds["chacabuco_1817"]))
    assert report.events.get("arrived") == 2
    sc = with_plan(
        "halidon_hill_1333",
        "scots",
        {
            "points": {"wp1": {"lonlat": [-2.0860, 55.7960]}},
            "formations": [
                {
                    "formation": "sc_moray",
                    "waypoints": ["wp1"],
                    "steps": [{"objective": "halidon"}],
                },
                {"formation": "sc_ross", "feint": {"point": {"lonlat": [-2.0760, 55.7825]}}},
            ],
        },
    )
    report = check_battle(battle(sc, grounds["halidon_hill_1333"]))
    assert report.result is not None and report.result["winner"] is not None


def test_trigger_fired_chains_conditions(grounds: Any) -> None:
    """A trigger with an ``id`` is named by a later condition's ``trigger_fired``: the second
    trigger (no other condition, so it would fire in bound 1) waits for the first (bound 6)."""
    sc = with_plan(
        "halidon_hill_1333",
        "scots",
        {
            "triggers": [
                {"id": "halt", "when": {"bound": 6}, "order": "hold", "formations": ["sc_ross"]},
                {"when": {"trigger_fired": "halt"}, "order": "hold", "formations": ["sc_douglas"]},
            ]
        },
    )
    log = battle(sc, grounds["halidon_hill_1333"]).run()
    ross = [bd for bd, e in events(log, "order_issued", "sc_ross") if e.order == "hold sc_ross"]
    douglas = [
        bd for bd, e in events(log, "order_issued", "sc_douglas") if e.order == "hold sc_douglas"
    ]
    assert ross[0] == 6 and douglas[0] == 6, (ross, douglas)


def test_a_broken_armys_reinforcement_never_comes_on(grounds: Any) -> None:
    """Stamford Bridge with Orri due at bound 20: the Norwegians break at bound 12 or 13 and the
    English pursuit runs on past bound 20, but Orri's men do not come on (engine.reinforcements:
    the battle is decided)."""
    fp = {"formation": "no_orri", "arrives": {"bound": 20, "edge": "south"}}
    sc = with_plan("stamford_bridge_1066", "norwegians", {"formations": [fp]})
    log = battle(sc, grounds["stamford_bridge_1066"]).run()
    assert log.result is not None and log.result["winner"] == "english"
    assert log.result["decided_bound"] < 20 < log.result["bounds"]
    assert not [e for b in log.bounds for e in b.events if e.type == "arrived"]


EVERY = ROOT / "tests" / "data" / "plans" / "chacabuco_every_field.yaml"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scenario_builder", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )


@pytest.mark.slow  # a CLI subprocess end to end: the full run keeps it, the quick lane not
def test_run_plan_option_fights_a_human_plan_for_one_side(tmp_path: Path) -> None:
    """``run --plan patriots=FILE``: the file replaces the patriots' plan (the automatic
    commander runs the formations it does not name): the guns hold their fire from bound 1, the
    grenadiers come on at the west edge at bound 30."""
    import json

    out = _cli("run", "chacabuco_1817", "--plan", f"patriots={EVERY}", "--out", str(tmp_path / "r"))
    assert out.returncode == 0, out.stderr
    log = json.loads((tmp_path / "r" / "battle_log.json").read_text())
    events = [(b["bound"], e) for b in log["bounds"] for e in b["events"]]
    assert (1, "hold pt_guns") in [
        (bd, e.get("order")) for bd, e in events if e["type"] == "order_issued"
    ]
    arrived = {e["formation"]: (bd, e["edge"]) for bd, e in events if e["type"] == "arrived"}
    assert arrived["pt_soler_horse"] == (30, "west")


@pytest.mark.slow  # a CLI subprocess end to end: the full run keeps it, the quick lane not
def test_plan_option_errors_are_one_line(tmp_path: Path) -> None:
    for args, want in (
        (
            ("--plan", f"patriot={EVERY}"),
            "expected a side of chacabuco_1817, got 'patriot' (did you mean 'patriots'?)",
        ),
        (("--plan", "patriots"), "--plan patriots: expected SIDE=FILE"),
        (("--plan", "patriots=nowhere.yaml"), "nowhere.yaml: no such plan file"),
    ):
        out = _cli("run", "chacabuco_1817", *args, "--out", str(tmp_path / "x"))
        lines = [ln for ln in out.stderr.strip().splitlines() if ln.strip()]
        assert out.returncode != 0 and len(lines) == 1, out.stderr
        assert want in lines[0] and "Traceback" not in out.stderr, lines[0]
        assert not (tmp_path / "x").exists()


@pytest.mark.slow  # a CLI subprocess end to end: the full run keeps it, the quick lane not
def test_montecarlo_plan_option_reaches_the_workers(tmp_path: Path) -> None:
    """``montecarlo --plan``: the replays on the Dask workers fight with the plan file (the
    feinting grenadiers of the file, 2 replays on 1 worker)."""
    import json

    out = _cli(
        "montecarlo",
        "chacabuco_1817",
        "--runs",
        "2",
        "--workers",
        "1",
        "--json",
        "--plan",
        f"patriots={EVERY}",
        "--out",
        str(tmp_path / "mc"),
    )
    assert out.returncode == 0, out.stderr
    summary = json.loads((tmp_path / "mc" / "summary.json").read_text())
    assert summary["runs"] == 2 and summary["seeds"] == [1, 2]
    from scenario_builder.montecarlo import replay

    path, bf_dir = str(load_scenario("chacabuco_1817").path), str(tmp_path / "mc" / "battlefield")
    plans = (("patriots", str(EVERY)),)
    with_file = [replay(path, bf_dir, seed, None, plans)["bounds"] for seed in (1, 2)]
    without = [replay(path, bf_dir, seed)["bounds"] for seed in (1, 2)]
    assert with_file != without  # the plan file changes these battles
    assert (summary["bounds"]["min"], summary["bounds"]["max"]) == (min(with_file), max(with_file))


def test_an_arrival_for_a_formation_merged_into_a_brigade_is_a_load_error(tmp_path: Path) -> None:
    """5.1: a formation deployed merged into a brigade is placed with it; holding it back alone
    would split the brigade, so ``arrives`` on it is refused, naming the plan file's line."""
    scen, plan = _copy_chacabuco(tmp_path)
    text = scen.read_text()
    head = '      - {id: pt_soler_horse, name: "Grenadier squadrons with Soler",'
    assert head in text
    scen.write_text(text.replace(head, head + " brigade: pt_soler,"))
    from scenario_builder.errors import ScenarioFileError

    with pytest.raises(ScenarioFileError) as err:
        load_scenario(scen)
    line = plan.read_text().splitlines().index("    arrives: {bound: 30, point: soler_track_horse}")
    msg = str(err.value)
    assert msg.startswith(f"{plan}: line {line + 1}: formations.1.arrives:"), msg
    assert "merged into 'pt_soler''s brigade (5.1)" in msg and "\n" not in msg
