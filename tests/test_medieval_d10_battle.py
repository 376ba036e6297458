"""medieval-d10 on the ruleset seam: Flodden 1513 (the shipped scenario and ground) fought under
the medieval d10 game; the engine's shipped checks; the GAME TURN SEQUENCE as the ruleset's own
phase list; per-phase invariants (figures only decrease, no unit moves beyond its chart rate for
its terrain and formation, routing units never charge) over many seeds with hypothesis.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets import get_ruleset
from engine.rulesets.medieval_d10.charts import GAME_TURN_SEQUENCE
from engine.rulesets.medieval_d10.game import PHASES, check_invariants, phase_name
from engine.rulesets.medieval_d10.moves import move_toward
from engine.rulesets.medieval_d10.ruleset import MedievalContext
from engine.scenario import load_scenario
from engine.testing import check_ruleset
from scenario_builder.build import build_site

NAME = "medieval-d10"


@pytest.fixture(scope="module")
def flodden(built_flodden) -> Any:
    return built_flodden.battlefield


@pytest.fixture(scope="module")
def scenario() -> Any:
    return load_scenario("flodden_1513")


def test_registered_with_its_own_phases_die_scales_and_terrain() -> None:
    rs = get_ruleset(NAME)
    assert get_ruleset("medieval") is rs
    d = rs.describe()
    assert d["die"] == "d10"
    # the book's phases 1-13, 15, 16 by their numbers and names, in the chart's order
    assert d["phases"] == [f"{int(r.phase)} {r.name}" for r in GAME_TURN_SEQUENCE]
    assert d["phases"][0] == "1 Initiative" and d["phases"][-1] == "16 Control Tests"
    assert d["terrain_classes"]["move"][:3] == ["open", "built_up", "broken_ground"]
    assert d["terrain_classes"]["cover"] == ["none", "soft", "hard"]
    # one figure is 2 cm at 25 mm: 9.144 m of ground; 150 yd = 137.16 m
    assert d["scales"]["base_m"] == [pytest.approx(9.144), pytest.approx(9.144)]
    assert d["scales"]["rules_m"]["150yds"] == pytest.approx(137.16)
    assert d["scales"]["ground_m_per_mm"]["25mm"] == pytest.approx(0.4572)


def test_each_book_phase_is_a_function_of_the_game_citing_its_phase() -> None:
    # GAME TURN SEQUENCE CHART: PHASES is the book's table, in its order, each phase a function
    # of the game (no method looked up by name), its docstring or its module's citing the phase
    import sys

    assert list(PHASES) == [row.phase for row in GAME_TURN_SEQUENCE]
    for phase, play in PHASES.items():
        assert callable(play) and play.__code__.co_varnames[:1] == ("game",), phase
        cited = f"GAME TURN SEQUENCE phase {int(phase)}"
        module_doc = sys.modules[play.__module__].__doc__ or ""
        docs = " ".join(f"{play.__doc__ or ''} {module_doc}".split())
        assert cited in docs, (phase, play.__qualname__)


def test_check_ruleset_passes_on_flodden(flodden: Any, scenario: Any) -> None:
    report = check_ruleset(NAME, scenario, seed=1, battlefield=flodden)
    assert report.bounds >= 2 and report.result is not None
    assert report.result["winner"] in ("english", "scots")
    assert sum(n for t, n in report.events.items() if t.startswith("d10_")) > 50
    assert "medieval" not in report.events  # every event is of its own declared class


def test_flodden_under_medieval_d10_logs_every_phase_by_name(flodden: Any, scenario: Any) -> None:
    battle = Battle(flodden, scenario, Dice(4), ruleset=NAME)
    log = battle.run(max_bounds=12)
    assert log.header["ruleset"] == NAME
    names = {phase_name(p) for p in PHASES}
    kinds: dict[str, set[str]] = {}
    for rec in log.bounds[1:]:
        for e in rec.events:
            if e.type in ("idle", "replanned", "ready", "arrived"):  # the core's own events
                assert e.phase in ("end", "start", "orders"), e
                continue
            assert e.phase in names
            kinds.setdefault(e.type.removeprefix("d10_"), set()).add(e.phase)
    # each kind of event happens in the phases the chart gives it
    assert kinds["initiative"] == {"1 Initiative"}
    assert kinds["fire"] <= {
        "8 Charge & Reaction-to-Charge Movement",
        "9 Charge & Reaction-to-Charge Movement",
        "11 Normal Movement and Firing",
        "12 Normal Movement and Firing",
    }
    assert kinds["morale"] <= {
        "4 Charges to Declare",
        "5 Charges and Counter-charges to Declare",
        "6 Declare Reaction-to-Charges",
        "7 Declare Reaction to Charges",
        "8 Charge & Reaction-to-Charge Movement",
        "9 Charge & Reaction-to-Charge Movement",
        "10 Morale Tests",
        "15 Morale Tests",
    }
    # every die the game rolled is a d10
    rolls = [r for r in battle.dice.history]
    assert rolls and all(r.sides == 10 for r in rolls)
    # figures are the bases: losses in the core's state are the game's figures lost
    game = battle.ctx.game
    assert isinstance(battle.ctx, MedievalContext) and game is not None
    for u in game.units.values():
        f = battle.state.formations[u.id]
        assert len(f.bases) - f.n_alive == u.unit.figures_lost


def test_same_seed_same_battle(flodden: Any, scenario: Any) -> None:
    a = Battle(flodden, scenario, Dice(9), ruleset=NAME).run(max_bounds=8)
    b = Battle(flodden, scenario, Dice(9), ruleset=NAME).run(max_bounds=8)
    assert a.to_json() == b.to_json()


@pytest.mark.slow  # six whole battles; the quick lane keeps the fixed-seed battle tests
@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(min_value=0, max_value=2**31))
def test_invariants_every_phase(flodden: Any, scenario: Any, seed: int) -> None:
    battle = Battle(flodden, scenario, Dice(seed), ruleset=NAME)
    figures: dict[str, int] = {}
    while not battle.finished and battle.state.bound < 15:
        for _ in battle.phases():  # one game turn, phase by phase
            game = battle.ctx.game
            assert game is not None
            figures = check_invariants(game, figures)
            for u in game.units.values():
                assert not (u.routing and u.charging)
    assert battle.state.bound >= 2
    # a routing unit never declared a charge in the log either
    game = battle.ctx.game
    routing_turns = {(e["unit"], e["turn"]) for e in game.events if e["type"] == "rout_move"}
    for e in game.events:
        if e["type"] == "charge_declared":
            assert (e["unit"], e["turn"]) not in routing_turns


def test_move_allowance_is_the_chart_rate_times_the_terrain_fraction(flodden: Any) -> None:
    # a unit of C-class medium foot marching 100 m north over Flodden's ground: the ground it
    # covers is at most its 16 cm (73.2 m) march rate, and less where the TERRAIN CHART slows it
    sc = load_scenario("flodden_1513")
    battle = Battle(flodden, sc, Dice(1), ruleset=NAME)
    next(battle.phases())  # phase 1 builds the game
    game = battle.ctx.game
    u = game.units["sc_home"]
    start = (u.x, u.y)
    moved = move_toward(game, u, u.x, u.y + 1000.0, game.allowance(u))
    assert moved == pytest.approx(math.dist(start, (u.x, u.y)))
    assert 0 < moved <= game.m(16) + 1e-9


# -- the table at this ruleset's figure scale ---------------------------------------------------


def test_print_lays_the_table_out_at_15mm_and_25mm(
    run_cli: Any, flodden: Any, flodden_dir: Path, tmp_path: Path
) -> None:
    from maps.layout import LayoutOptions, plan_layout
    from maps.table import Paper, TableScale

    bf_dir = flodden_dir
    bbox = "-2.19,55.618,-2.17,55.63"  # the ground between the armies, ~1.3 x 1.3 km
    sizes = {}
    for scale in ("15mm", "25mm"):
        out = tmp_path / f"{scale}.pdf"
        args = ["--ruleset", NAME, "--scale", scale, "--paper", "A2", "--bbox", bbox]
        code, stdout, err = run_cli("print", bf_dir, *args, "--out", out)
        assert code == 0, err
        assert f"at {scale} (medieval-d10)" in stdout and out.stat().st_size > 0
        rs = get_ruleset(NAME)
        lay = plan_layout(
            flodden,
            LayoutOptions(
                TableScale.for_ruleset(scale, dict(rs.scales.ground_m_per_mm), NAME),
                Paper.from_text("A2"),
                bbox=tuple(float(v) for v in bbox.split(",")),
            ),
        )
        sizes[scale] = lay.table_mm
        # true scale: 150 yd (137.16 m) of ground is 30 cm at 25 mm and 20 cm at 15 mm
        ground_w = lay.window[2] - lay.window[0]
        per_150yd = {"15mm": 200.0, "25mm": 300.0}[scale]
        assert lay.table_mm[0] == pytest.approx(ground_w / 137.16 * per_150yd, rel=1e-6)
    assert sizes["25mm"][0] == pytest.approx(1.5 * sizes["15mm"][0])
    code, _, err = run_cli(
        "print", bf_dir, "--ruleset", "medieval-d10", "--scale", "2mm", "--out", tmp_path / "x.pdf"
    )
    assert code != 0 and "expected 15mm, 25mm (medieval-d10) or 1:N" in err


def _close_quarters(bf: Any) -> Any:
    """Four units a side 300 m apart on open ground at Minden, all ordered to attack."""
    from engine.testing import make_scenario
    from scenario_builder.paths import data_dir

    troops = data_dir() / "troops" / "medieval"
    minx, miny, maxx, maxy = bf.bounds
    origin = ((minx + maxx) / 2.0, (miny + maxy) / 2.0)
    red = [
        {
            "id": f"r{i}",
            "profile": p,
            "bases": 15,
            "frontage": 5,
            "at": (-300.0 + 150 * i, -150.0),
            "order": "attack",
        }
        for i, p in enumerate(("en_bills", "en_bills_retinue", "en_border_horse", "en_bills"))
    ]
    # the troop list stands St Cuthbert's banner with en_admiral, not in this scenario: it is
    # placed here with the retinue (an unplaced one is a load error, MedievalArmy.check_side)
    red[1]["character"] = "st_cuthbert_banner"
    blue = [
        {
            "id": f"b{i}",
            "profile": p,
            "bases": 15,
            "frontage": 5,
            "at": (-300.0 + 150 * i, 150.0),
            "facing": 180.0,
            "order": "attack",
        }
        for i, p in enumerate(
            ("sc_pike_border", "sc_pike_nobles", "sc_highlanders", "sc_pike_reserve")
        )
    ]
    return make_scenario(
        red,
        blue,
        armies=(str(troops / "english_1513.yaml"), str(troops / "scots_1513.yaml")),
        origin=origin,
        ruleset=NAME,
        max_bounds=40,
    )


@pytest.fixture(scope="module")
def minden(built_minden) -> Any:
    return built_minden.battlefield


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_melee_morale_and_control_at_close_quarters(minden: Any, seed: int) -> None:
    sc = _close_quarters(minden)
    report = check_ruleset(NAME, sc, seed=seed, battlefield=minden)
    assert report.result is not None
    battle = Battle(minden, sc, Dice(seed), ruleset=NAME)
    figures: dict[str, int] = {}
    while not battle.finished:
        for _ in battle.phases():
            figures = check_invariants(battle.ctx.game, figures)
    events = battle.ctx.game.events
    kinds = {e["type"] for e in events}
    # the lines close: charges are declared and tested, melees fought, morale tested after
    assert {"charge_declared", "morale"} <= kinds
    melees = [e for e in events if e["type"] == "melee"]
    assert melees and all(e["phase"] == "13 Melee Calculations" for e in melees)


def test_montecarlo_replay_under_the_ruleset_is_the_run(flodden_dir: Path) -> None:
    # one Monte Carlo replay under --ruleset medieval-d10 is the known-answer run of that seed
    from scenario_builder.montecarlo import replay
    from scenario_builder.paths import data_dir

    known = json.loads(
        (
            Path(__file__).parent / "known_answers" / "flodden_1513_medieval_d10_seed1.json"
        ).read_text(encoding="utf-8")
    )
    got = replay(str(data_dir() / "scenarios" / "flodden_1513.yaml"), str(flodden_dir), 1, NAME)
    assert (got["winner"], got["bounds"], got["losses"]) == (
        known["winner"],
        known["bounds"],
        known["losses"],
    )
    # figures at the book's scale where given, the guns' bases as gun models
    sc = load_scenario("flodden_1513")
    assert got["strength"] == {
        s.id: sum(f.figures or f.bases for f in s.formations) for s in sc.sides
    }


def test_towton_1461_is_fought_under_medieval_d10_on_os_terrain_50() -> None:
    # the second battle: its own troop lists, real ground (OS Terrain 50), cited deployment
    sc = load_scenario("towton_1461")
    assert sc.ruleset == NAME and sc.historical_outcome.winner == "yorkists"
    towton = build_site("towton").battlefield
    report = check_ruleset(NAME, sc, seed=1, battlefield=towton)
    assert report.result is not None and report.result["winner"] == "yorkists"
    # the lines stand on the plateau between Towton and Saxton (44-52 m in the DEM)
    for side in sc.sides:
        for fs in side.formations:
            if fs.id in ("yk_norfolk", "ln_ambush"):
                continue  # arriving on the London road / hidden in the Cock Beck valley
            x, y = towton.to_xy(*fs.position.lonlat)
            assert 38.0 <= float(towton.elevation_at(x, y)) <= 52.0, fs.id


def test_skirmishers_evade_a_charge_at_their_evade_rate(minden: Any) -> None:
    # MOVEMENT CHART "Charge, Evade ... (Bonus for each)"; MORALE TEST RESULT "Evading a Charge"
    from engine.dice import ScriptedDice
    from engine.rulesets.medieval_d10.charts import CommanderKind, Phase
    from engine.rulesets.medieval_d10.game import MedievalBattle
    from engine.rulesets.medieval_d10.scale import ground_scale
    from engine.rulesets.medieval_d10.state import deploy_unit
    from engine.rulesets.medieval_d10.units import Unit, UnitSpec

    minx, miny, maxx, maxy = minden.bounds
    cx, cy = (minx + maxx) / 2.0, (miny + maxy) / 2.0
    horse = UnitSpec.model_validate(
        {
            "id": "horse",
            "arm": "cavalry",
            "weight": "light",
            "class": "C",
            "figures": 6,
            "melee": "light_lance",
        }
    )
    skirm = UnitSpec.model_validate(
        {
            "id": "skirm",
            "arm": "infantry",
            "weight": "light",
            "class": "C",
            "order": "skirmish",
            "figures": 6,
            "melee": "sword",
            "missile": "javelin",
        }
    )
    charger = deploy_unit(Unit.from_spec(horse), "red", (cx, cy), 0.0, order="attack")
    target = deploy_unit(Unit.from_spec(skirm), "blue", (cx, cy + 150.0), 180.0)
    # declare: face 10 (+5) acts as ordered; evade: face 10 (+5) falls back in good order
    game = MedievalBattle(
        minden,
        [charger, target],
        {"red": CommanderKind.BOLD, "blue": CommanderKind.BOLD},
        ScriptedDice([10, 10]),
        ground_scale("25mm"),
    )
    game.begin_turn()
    game.side_a, game.side_b = "red", "blue"
    start_gap = game.gap(charger, target)
    assert start_gap <= game.allowance(charger, bonus=True)  # within charge reach
    game.play(Phase.A_DECLARE_CHARGES)
    game.play(Phase.B_DECLARE_REACTIONS)
    game.play(Phase.A_CHARGE_MOVEMENT)
    kinds = [e["type"] for e in game.events]
    assert kinds[:2] == ["morale", "charge_declared"] and "evade" in kinds
    evaded = next(e for e in game.events if e["type"] == "evade")
    # skirmish infantry A-C: 20 cm march + 6 cm evade bonus = 26 cm = 118.9 m of open ground
    assert evaded["metres"] == pytest.approx(game.m(26), abs=0.5)
    assert not game.in_contact(charger, target) and not target.unit.disordered
    check_invariants(game, {})
