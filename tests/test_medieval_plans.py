"""medieval-d10 plays the scenario's plan through the core's reading (engine.conditions):
triggers of every kind, target places and enemies, objectives to take and to hold; and refuses,
with the field named, the mechanisms its book has no procedure for. On the shipped ground of
Towton and Flodden. Reading: docs/rules-interpretations.md ("Scenario mechanisms by ruleset").
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets import get_ruleset
from engine.scenario import Scenario, load_scenario
from engine.state import BaseStatus
from scenario_builder.battle import build_battlefield
from scenario_builder.errors import ScenarioFileError
from scenario_builder.paths import data_dir

MEDIEVAL = "medieval-d10"


@pytest.fixture(scope="module")
def grounds() -> dict[str, Any]:
    return {
        sid: build_battlefield(load_scenario(sid)).battlefield
        for sid in ("towton_1461", "flodden_1513")
    }


def _edited(sid: str, edit: Any) -> Scenario:
    sc = load_scenario(sid)
    data = sc.model_dump(mode="json", exclude_defaults=True)
    edit(data)
    new = Scenario.model_validate(data)
    new._path = sc.path
    return new


def _at_bases(data: dict[str, Any]) -> None:
    """The scenario at its bases (one figure to a base of c. 600 men), without its figures
    at the book's scale (docs/scenarios.md, "Figures"): the earlier, smaller battle."""
    data.pop("men_per_figure", None)
    for side in data["sides"]:
        for f in side["formations"]:
            f.pop("figures", None)
            f.pop("figure_frontage", None)


def _side(data: dict[str, Any], sid: str) -> dict[str, Any]:
    return next(s for s in data["sides"] if s["id"] == sid)


def _battle(sc: Scenario, bf: Any, seed: int = 1) -> Battle:
    return Battle(bf, sc, Dice(seed), ruleset=get_ruleset(MEDIEVAL))


def _acts(b: Battle, unit: str) -> list[tuple[int, str, dict[str, Any]]]:
    kinds = ("d10_advance", "d10_charge_declared", "d10_charge")
    return [
        (rec.bound, e.type.removeprefix("d10_"), e.to_dict())
        for rec in b.log.bounds
        for e in rec.events
        if e.type in kinds and getattr(e, "unit", None) == unit
    ]


def test_a_losses_trigger_sends_the_reserve_in(grounds: dict[str, Any]) -> None:
    """Towton: Norfolk's battle comes in when the Yorkist centre has lost a tenth of its men
    (a ``losses_fraction`` trigger in place of its timed arrival): it stands until the turn
    after that loss, then advances. Before, medieval-d10 read bound-timed triggers only and
    Norfolk never moved."""

    def edit(data: dict[str, Any]) -> None:
        plan = _side(data, "yorkists")["plan"]
        plan["triggers"] = [t for t in plan["triggers"] if "yk_norfolk" not in t["formations"]]
        plan["triggers"].append(
            {
                "when": {"losses_fraction": 0.1, "formation": "yk_centre"},
                "order": "attack",
                "formations": ["yk_norfolk"],
            }
        )

    b = _battle(_edited("towton_1461", edit), grounds["towton_1461"])
    lost_at = None
    while not b.finished and b.state.bound < 40:
        b.step()
        f = b.state.formations["yk_centre"]
        dead = sum(1 for x in f.bases if x.status is BaseStatus.DEAD) / len(f.bases)
        if lost_at is None and dead >= 0.1:
            lost_at = b.state.bound
    assert lost_at is not None, "the Yorkist centre lost a tenth of its men"
    acts = _acts(b, "yk_norfolk")
    assert acts, "Norfolk's battle was sent in"
    assert acts[0][0] > lost_at, (acts[0], lost_at)  # judged as the next turn began


def test_objectives_and_target_places_are_played(grounds: dict[str, Any]) -> None:
    """Flodden under medieval-d10: Stanley's battle, told to take the Scots' right flank, and
    Home's division, the English right, go for those places from the first turn; Surrey's
    battle, told to hold Piper Hill beside the Admiral's, marches to its station in their
    line (engine.command: the stations 2mm Earth's General gives) and stands there. Fought at
    its bases: at the book's figure scale Surrey's 24 files (219 m) stand 83 m from the
    station and the commander leaves them on hold where they stand (not looked into here)."""
    sc = _edited("flodden_1513", _at_bases)
    b = _battle(sc, grounds["flodden_1513"])
    b.run(6)
    for unit in ("en_stanley", "sc_home", "en_surrey"):
        first = _acts(b, unit)[0]
        assert first[0] == 1 and first[1] == "advance" and first[2]["toward"] == "place", first
    station = b.ctx.readers["english"]._stations[("hold_piper_hill", "en_surrey")]
    f = b.state.formations["en_surrey"]
    assert math.dist(f.centre(), station) <= 60.0 + 1e-6 or b.state.contacts.get("en_surrey")


@pytest.mark.parametrize(
    ("field", "edit"),
    [
        ("victory.pursuit_bounds", lambda d: d.__setitem__("victory", {"pursuit_bounds": 5})),
        (
            "sides.0.readiness.until.order",
            lambda d: d["sides"][0].__setitem__(
                "readiness", {"state": "asleep", "until": {"order": True}}
            ),
        ),
        ("sides.0.age", lambda d: d["sides"][0].__setitem__("age", "modern")),
        (
            "sides.0.plan.formations.0.hold_fire",
            lambda d: d["sides"][0]["plan"].__setitem__(
                "formations", [{"formation": "yk_left", "hold_fire": {"until": {"bound": 3}}}]
            ),
        ),
        (
            "sides.0.plan.formations.0.feint",
            lambda d: d["sides"][0]["plan"].__setitem__(
                "formations",
                [{"formation": "yk_left", "feint": {"point": {"xy": [0.0, 0.0]}}}],
            ),
        ),
        (
            "sides.0.plan.triggers.0.order",
            lambda d: d["sides"][0]["plan"]["triggers"][0].__setitem__("order", "retreat"),
        ),
        (
            "weather_changes.0",
            lambda d: d.__setitem__("weather_changes", [{"bound": 3, "weather": "rain"}]),
        ),
        # an order word 2mm Earth gives and this book does not (Ruleset.unplayable checks a
        # scenario's words against the book in play, not every registered book's)
        (
            "sides.0.formations.0.order",
            lambda d: d["sides"][0]["formations"][0].__setitem__("order", "retreat"),
        ),
        (
            "sides.0.plan.formations.0.steps.0.order",
            lambda d: d["sides"][0]["plan"].__setitem__(
                "formations",
                [
                    {
                        "formation": "yk_left",
                        "steps": [{"order": "retreat", "point": {"xy": [0, 0]}}],
                    }
                ],
            ),
        ),
    ],
)
def test_a_mechanism_medieval_cannot_play_is_refused(
    field: str, edit: Any, tmp_path: Path, run_cli: Any
) -> None:
    """Towton with one mechanism medieval-d10 has no procedure for: ``run`` stops with one
    line naming the scenario file, the line and the field, exit 1, nothing written."""
    data = yaml.safe_load((data_dir() / "scenarios" / "towton_1461.yaml").read_text())
    edit(data)
    data["battlefield"] = {"slug": "towton"}
    p = tmp_path / "towton_edit.yaml"
    p.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    out = tmp_path / "out"
    code, _stdout, err = run_cli("run", str(p), "--out", str(out))
    assert code == 1, err
    lines = [x for x in err.strip().splitlines() if x]
    assert len(lines) == 1, err
    assert "towton_edit.yaml" in lines[0] and field in lines[0] and MEDIEVAL in lines[0], err
    assert not out.exists()


def test_the_battle_refuses_before_fighting(grounds: dict[str, Any]) -> None:
    """The library refuses too (engine.rulesets.check_playable): Battle() raises the same
    one-line ScenarioFileError before a bound is fought."""

    def edit(data: dict[str, Any]) -> None:
        data["victory"] = {"pursuit_bounds": 3}

    with pytest.raises(ScenarioFileError, match=re.escape("victory.pursuit_bounds: medieval-d10")):
        _battle(_edited("towton_1461", edit), grounds["towton_1461"])


def test_a_flank_march_by_waypoints_then_an_attack(grounds: dict[str, Any]) -> None:
    """Towton: Norfolk's division, given a formation plan (engine.command, the plan reader 2mm
    Earth's General shares), marches by two waypoints - 150 m east of where it stands, then
    150 m north of that - declaring no charge on the way, and only then attacks Exeter's battle,
    the step after its route. Before, medieval-d10 refused every formation plan."""
    base = load_scenario("towton_1461")
    bf = grounds["towton_1461"]
    start = next(
        f for s in base.sides for f in s.formations if f.id == "yk_norfolk"
    ).position.resolve(bf.to_xy)
    wp1 = (start[0] + 150.0, start[1])
    wp2 = (wp1[0], wp1[1] + 150.0)

    def edit(data: dict[str, Any]) -> None:
        plan = _side(data, "yorkists")["plan"]
        plan["triggers"] = [t for t in plan["triggers"] if "yk_norfolk" not in t["formations"]]
        plan["formations"] = [
            {
                "formation": "yk_norfolk",
                "waypoints": [{"xy": list(wp1)}, {"xy": list(wp2)}],
                "steps": [{"order": "attack", "target_formation": "ln_left"}],
            }
        ]

    b = _battle(_edited("towton_1461", edit), bf)
    reached: list[int] = []
    while not b.finished and b.state.bound < 30:
        b.step()
        f = b.state.formations["yk_norfolk"]
        goal = (wp1, wp2)[min(len(reached), 1)]
        if len(reached) < 2 and math.dist(f.centre(), goal) <= 60.0 + 1e-6:
            reached.append(b.state.bound)
    assert len(reached) == 2, f"the route walked: waypoints reached at {reached}"
    acts = _acts(b, "yk_norfolk")
    before = [a for a in acts if a[0] <= reached[1]]
    assert before and all(a[1] == "advance" and a[2]["toward"] == "place" for a in before), before
    after = [a for a in acts if a[0] > reached[1]]
    assert after and after[0][2].get("toward") == "ln_left", after[:3]


def test_an_objective_taken_trigger_is_played(grounds: dict[str, Any]) -> None:
    """Towton: the Yorkist right is to take a place 300 m before it; a trigger waits for that
    objective to be taken (``objective_taken``, refused before the plan was read by the core)
    and then sends Norfolk in. Judged as each turn begins: Norfolk stands until the turn the
    place is found taken, and moves in that turn."""
    base = load_scenario("towton_1461")
    bf = grounds["towton_1461"]
    right = next(f for s in base.sides for f in s.formations if f.id == "yk_right")
    rx, ry = right.position.resolve(bf.to_xy)
    facing = math.radians(right.facing)
    place = (rx + 300.0 * math.sin(facing), ry + 300.0 * math.cos(facing))

    def edit(data: dict[str, Any]) -> None:
        plan = _side(data, "yorkists")["plan"]
        plan["triggers"] = [t for t in plan["triggers"] if "yk_norfolk" not in t["formations"]]
        plan["objectives"] = [
            {"id": "forward", "point": {"xy": list(place)}, "formations": ["yk_right"]}
        ]
        plan["triggers"].append(
            {
                "when": {"objective_taken": "forward"},
                "order": "attack",
                "formations": ["yk_norfolk"],
            }
        )

    b = _battle(_edited("towton_1461", edit), bf)
    taken_at = None
    while not b.finished and b.state.bound < 30 and taken_at is None:
        b.step()
        if "forward" in b.ctx.readers["yorkists"].taken:
            taken_at = b.state.bound  # found taken as this turn began
    assert taken_at is not None and taken_at > 2, f"the Yorkist right took the place: {taken_at}"
    acts = _acts(b, "yk_norfolk")
    assert acts and acts[0][0] == taken_at, acts[:2]


def test_idle_units_are_named_and_answered(grounds: dict[str, Any]) -> None:
    """Flodden under medieval-d10, seed 7 (seed 4 until a commander's risk became percentile
    dice against his share of the front rank, which moved the dice): the King's division,
    sent for Piper Hill, finds no way round the ground the chart forbids (turn 11) and
    stands. The idle watcher reads this book's units (MedievalD10.idle_view): after 5 turns
    it names the cause, and the commander answers in the next turn (``replanned``): the
    place is given up for the nearest enemy. Fought at its bases (the seed that plays the
    case there; at the figure scale seeds 1-10 never leave sc_king with no way round)."""
    b = _battle(_edited("flodden_1513", _at_bases), grounds["flodden_1513"], seed=7)
    while not b.finished and b.state.bound < 22:
        b.step()
    idle = [
        (r.bound, e.formation, e.cause) for r in b.log.bounds for e in r.events if e.type == "idle"
    ]
    assert (16, "sc_king", "no way round the ground the chart forbids") in idle, idle
    answers = [
        (r.bound, e.formation, e.cause)
        for r in b.log.bounds
        for e in r.events
        if e.type == "replanned"
    ]
    assert (17, "sc_king", "terrain") in answers, answers
    assert b.ctx.game.units["sc_king"].goal is None
    assert b.log.result is None or b.log.result["idle"] >= 1


def test_readiness_holds_units_until_roused(grounds: dict[str, Any]) -> None:
    """Towton with the Lancastrians caught in camp until a Yorkist comes within 300 m
    (engine.readiness, the reading 2mm Earth plays): their bound-3 attack waits - no charge
    declared, no move, no shot - until the alarm, then a turn to form up; the Yorkist archers
    shoot into the camp meanwhile. Before, medieval-d10 refused every readiness state."""

    def edit(data: dict[str, Any]) -> None:
        _side(data, "lancastrians")["readiness"] = {
            "state": "unready",
            "until": {"enemy_within_m": 300},
        }

    b = _battle(_edited("towton_1461", edit), grounds["towton_1461"])
    assert b.ctx.readiness is not None and b.ctx.readiness.holds("ln_centre")
    while not b.finished and b.state.bound < 30:
        b.step()
    ready = {
        e.formation: rec.bound for rec in b.log.bounds for e in rec.events if e.type == "ready"
    }
    assert "ln_centre" in ready, ready
    for fid, at in ready.items():
        acts = [
            rec.bound
            for rec in b.log.bounds
            for e in rec.events
            if e.type in ("d10_advance", "d10_charge_declared", "d10_fire")
            and getattr(e, "unit", None) == fid
        ]
        # the state ends as bound ``at`` begins; forming up takes that bound (FORM_UP_BOUNDS)
        assert all(bd > at for bd in acts), (fid, at, acts[:3])
    assert any(
        e.type == "d10_fire" and e.unit.startswith("yk_")
        for rec in b.log.bounds
        for e in rec.events
    )


def test_a_timed_arrival_comes_on_and_goes_in(grounds: dict[str, Any]) -> None:
    """Towton with Norfolk's division arriving by the London road at bound 6 (a plan's
    ``arrives``, engine.reinforcements, the reading 2mm Earth plays): off the table until
    then - in no phase, no event - it enters at the south edge as bound 6 begins, and the
    bound-10 trigger sends it in. Its figures count in the Yorkists' strength throughout.
    Before, medieval-d10 refused timed arrivals."""

    def edit(data: dict[str, Any]) -> None:
        plan = _side(data, "yorkists")["plan"]
        plan["formations"] = [{"formation": "yk_norfolk", "arrives": {"bound": 6, "edge": "south"}}]

    b = _battle(_edited("towton_1461", edit), grounds["towton_1461"])
    assert "yk_norfolk" not in b.state.formations
    start = None
    while not b.finished and b.state.bound < 14:
        b.step()
        if b.state.bound == 1:
            start = dict(b.ctx.game.start_figures)
            assert b.ctx.game.units["yk_norfolk"].offstage
    arrived = [
        (r.bound, e.formation, e.edge)
        for r in b.log.bounds
        for e in r.events
        if e.type == "arrived"
    ]
    assert arrived == [(6, "yk_norfolk", "south")], arrived
    acts = _acts(b, "yk_norfolk")
    assert acts and all(a[0] >= 10 for a in acts), acts[:3]  # the bound-10 trigger
    u = b.ctx.game.units["yk_norfolk"]
    assert not u.offstage and u.alive
    assert start is not None and start["yorkists"] >= 8 + sum(
        f.bases
        for s in load_scenario("towton_1461").sides
        if s.id == "yorkists"
        for f in s.formations
        if f.id != "yk_norfolk"
    )
