"""No freezes. Friendly jams re-planned, stalls detected (engine.jams).

Before this change, formations stopped by friends tried the same move every bound. In the
shipped Teutoburg battle (seed 1, the automatic commanders of ``scenario-builder run``) the
Germans behind the wall (gm_wall) and Arminius' retinue 30 m behind it (gm_retinue) were both
sent at rm_leg_xvii: the wall's wheel hit the retinue, the retinue's charge hit the wall, and
both stood still from bound 7 or 8 on (the ground's levels move it a bound). The stall
detector names that jam; with re-planning it is gone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import engine.rulesets.two_mm_earth.phases as phases
from engine.battle import Battle
from engine.dice import Dice
from engine.jams import STALL_BOUNDS, JamWatch, Stall, stuck_cycles
from engine.rulesets import get_ruleset
from engine.scenario import load_scenario
from engine.testing import check_battle, flat_origin, make_scenario
from scenario_builder.battle import build_battlefield
from scenario_builder.montecarlo import summarize

ARMIES = (
    str(Path(__file__).parent / "data" / "troops" / "rules_red.yaml"),
    str(Path(__file__).parent / "data" / "troops" / "rules_blue.yaml"),
)


def _no_replanning(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine as it was: every formation keeps the plan plan_for gave it."""
    monkeypatch.setattr(phases, "unjam", lambda watch, state, f, plan, plans: plan)


# -- the detector ------------------------------------------------------------------------------


def test_watch_fires_on_the_same_cycle_three_bounds_running() -> None:
    w = JamWatch()
    w.record(4, {"a": "b", "b": "a", "c": "a"}, set())
    w.record(5, {"a": "b", "b": "a"}, {"c"})
    assert w.stalled is None
    w.record(6, {"b": "a", "a": "b"}, set())
    assert w.stalled == Stall(("a", "b"), 4, STALL_BOUNDS)
    assert str(w.stalled) == "a and b blocked by each other from bound 4 for 3 bounds"


def test_watch_does_not_fire_on_a_queue_or_a_broken_run() -> None:
    w = JamWatch()
    for bound in range(1, 10):  # c waits behind a, a behind b: a queue, not a stall
        w.record(bound, {"c": "a", "a": "b"}, set())
    for bound in range(10, 16):  # a and b jam every other bound: never 3 running
        w.record(bound, {"a": "b", "b": "a"} if bound % 2 else {}, set())
    assert w.stalled is None
    assert stuck_cycles({"a": "b", "b": "c", "c": "a", "d": "a"}) == [("a", "b", "c")]


# -- a shipped battle: before and after --------------------------------------------------------


@pytest.fixture(scope="module")
def teutoburg():
    sc = load_scenario("teutoburg_ad9")
    return sc, build_battlefield(sc).battlefield


def _battle(sc, bf, seed: int) -> Battle:
    """As ``scenario-builder run`` fights it: the ruleset's automatic commanders."""
    rs = get_ruleset(sc.ruleset)
    commanders = dict(rs.automatic_commanders(sc, rs.ground(bf)))
    return Battle(bf, sc, Dice(seed), ruleset=rs, commanders=commanders)


def test_teutoburg_froze_without_replanning(teutoburg, monkeypatch) -> None:
    _no_replanning(monkeypatch)
    sc, bf = teutoburg
    with pytest.raises(
        AssertionError,
        match=r"stall: gm_retinue and gm_wall blocked by each "
        r"other from bound \d+ for 3 bounds",
    ):
        check_battle(_battle(sc, bf, 1))


def test_teutoburg_does_not_freeze_with_replanning(teutoburg) -> None:
    sc, bf = teutoburg
    battle = _battle(sc, bf, 1)
    report = check_battle(battle)  # fails on any stall
    assert battle.ctx.jams.stalled is None and "stall" not in report.result


@pytest.mark.parametrize(
    "scenario_id",
    # Gettysburg's two whole battles on its 7.5 m ground: the full run (its known answers pin
    # the same two battles in the quick lane)
    ["flodden_1513", pytest.param("gettysburg_1863_day2", marks=pytest.mark.slow)],
)
def test_shipped_battles_have_no_stall(scenario_id: str) -> None:
    sc = load_scenario(scenario_id)
    bf = build_battlefield(sc).battlefield
    for seed in (1, 7):  # the known-answer seeds
        check_battle(_battle(sc, bf, seed))


# -- a constructed jam on real ground ----------------------------------------------------------


@pytest.fixture(scope="module")
def minden(built_minden):
    bf = built_minden.battlefield
    return bf, flat_origin(bf)


def _head_on(bf, origin) -> Battle:
    """Two friendly columns on one road, sent past each other: 300 m apart, facing."""
    x0, y0 = origin
    sc = make_scenario(
        [
            {
                "id": "north_col",
                "profile": "inf",
                "bases": 4,
                "frontage": 2,
                "at": (0, -150),
                "facing": 0,
                "order": "advance",
                "target": {"xy": [x0, y0 + 300]},
            },
            {
                "id": "south_col",
                "profile": "inf",
                "bases": 4,
                "frontage": 2,
                "at": (0, 150),
                "facing": 180,
                "order": "advance",
                "target": {"xy": [x0, y0 - 300]},
            },
        ],
        [{"id": "far", "profile": "inf", "bases": 2, "at": (0, 2500), "facing": 180}],
        armies=ARMIES,
        origin=origin,
        max_bounds=12,
    )
    from engine.orders import InstantDelivery

    return Battle(bf, sc, Dice(2), delivery=InstantDelivery())


def test_constructed_head_on_jam_is_a_stall_without_replanning(minden, monkeypatch) -> None:
    _no_replanning(monkeypatch)
    with pytest.raises(AssertionError, match="stall: north_col and south_col blocked by each"):
        check_battle(_head_on(*minden))


def test_constructed_head_on_jam_opens_a_lane(minden) -> None:
    bf, (x0, y0) = minden
    battle = _head_on(bf, (x0, y0))
    check_battle(battle)
    n, s = battle.state.formations["north_col"], battle.state.formations["south_col"]
    assert n.cy > y0 + 250 and s.cy < y0 - 250  # both got past and reached their points
    assert battle.ctx.jams.lanes  # one of them took a lane


# -- montecarlo --------------------------------------------------------------------------------


def test_montecarlo_counts_stalled_replays_apart_from_draws() -> None:
    runs = [
        {"seed": 1, "winner": "a", "bounds": 9, "losses": {"a": 1, "b": 5}},
        {"seed": 2, "winner": None, "bounds": 40, "losses": {"a": 2, "b": 2}},
        {
            "seed": 3,
            "winner": None,
            "bounds": 40,
            "losses": {"a": 0, "b": 0},
            "stall": "x and y blocked by each other from bound 3 for 3 bounds",
        },
    ]
    odds = summarize(runs, ["a", "b"], None)["win_odds"]
    assert (odds["a"]["wins"], odds["draw"]["wins"], odds["stalled"]["wins"]) == (1, 1, 1)
