"""Whole battles: determinism, the invariant suite on every ruleset, Flodden to a decision, the
``run`` and ``schema`` CLI, and hypothesis invariants (1.1, 9.1, 10.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets import available_rulesets, get_ruleset
from engine.scenario import load_scenario
from engine.testing import (
    attack_everything,
    check_battle,
    check_ruleset,
    flat_origin,
    make_scenario,
)

DATA = Path(__file__).parent / "data" / "troops"
ARMIES = (str(DATA / "rules_red.yaml"), str(DATA / "rules_blue.yaml"))


@pytest.fixture(scope="module")
def flodden_bf(built_flodden):
    return built_flodden.battlefield


@pytest.fixture(scope="module")
def flodden_attack():
    return attack_everything(load_scenario("flodden_1513"))


def test_1_1_same_seed_same_state_after_every_phase(flodden_bf, flodden_attack):
    a = Battle(flodden_bf, flodden_attack, Dice(11))
    b = Battle(flodden_bf, flodden_attack, Dice(11))
    for _ in range(6):
        for pa, pb in zip(a.phases(), b.phases(), strict=True):
            assert pa == pb
            assert a.state.fingerprint() == b.state.fingerprint(), pa
            assert a.dice.history == b.dice.history


def test_same_seed_gives_identical_log_bytes(flodden_bf, flodden_attack):
    one = Battle(flodden_bf, flodden_attack, Dice(5)).run(8).to_json()
    two = Battle(flodden_bf, flodden_attack, Dice(5)).run(8).to_json()
    assert one == two
    other = Battle(flodden_bf, flodden_attack, Dice(6)).run(8).to_json()
    assert other != one


# 2mm Earth's full hook check fights ~25 variant battles, three of them to the end with a pursuit
# (the after-break hooks): the heavy end-to-end check, run in the full suite; the quick lane keeps
# their invariants (test_invariants_of_the_heavy_rulesets below).
HEAVY_HOOK_CHECKS = ("2mm-earth-v0.7", "2mm-earth-v0.9")
# rulesets whose own module runs the full check (hooks too) on Flodden in the quick lane:
# tests/test_composed_rulesets.py (wc-morale, seed 4), tests/test_medieval_d10_battle.py (seed 1)
CHECKED_ELSEWHERE = ("2mm-earth-v0.9+wc-morale", "medieval-d10")


@pytest.mark.parametrize(
    "ruleset",
    [
        pytest.param(r, marks=pytest.mark.slow) if r in HEAVY_HOOK_CHECKS + CHECKED_ELSEWHERE else r
        for r in available_rulesets()
    ],
)
def test_check_ruleset_on_every_registered_ruleset(ruleset, flodden_bf, flodden_attack):
    # v0.7's rout tests (5.x) need a fight its table answers within the hook bounds: seed 3's
    # battle has none since missile troops close by Advance (9.1) and it ends in 14 bounds
    seed = 5 if ruleset == "2mm-earth-v0.7" else 3
    report = check_ruleset(ruleset, flodden_attack, seed=seed, battlefield=flodden_bf)
    # 2mm Earth 11; with W&C's Resolution and End 10; medieval-d10 15 (no phase 14)
    n_phases = len(get_ruleset(ruleset).phases)
    assert report.bounds >= 1 and report.phases == report.bounds * n_phases
    assert report.result is not None
    # "no silent hooks": each hook overridden in turn changes the battle (or is called)
    # (dark-age has no speed_m: its moves are the Dark Age chapter's rolled javelin throws)
    # (medieval-d10 is another game with hooks of its own; check_hooks covered them above)
    hooks = ("speed_m", "roll_attack", "shooting_modifier", "messenger_rate_m", "sees_over")
    if ruleset == "2mm-earth-v0.7":
        # v0.7 has no messengers and no 9.3 chart: the inherited hooks are spied on, never read
        for hook in ("messenger_rate_m", "order_outcome", "order_needs_roll"):
            assert report.hooks[hook] == "absent", hook
        hooks = tuple(h for h in hooks if h != "messenger_rate_m")
    for hook in hooks if get_ruleset(ruleset).family in ("2mm-earth", "dark-age") else ():
        if hook == "speed_m" and ruleset == "dark-age":
            assert hook not in report.hooks
            continue
        assert report.hooks[hook].startswith("changes bound"), hook
    assert "rally_test" not in report.hooks  # deleted: nothing asked for it


@pytest.mark.parametrize("ruleset", HEAVY_HOOK_CHECKS)
def test_invariants_of_the_heavy_rulesets(ruleset, flodden_bf, flodden_attack):
    """The invariants after every phase (engine.testing), without the hook variants."""
    report = check_ruleset(ruleset, flodden_attack, seed=3, battlefield=flodden_bf, hooks=False)
    assert report.bounds >= 1
    assert report.phases == report.bounds * len(get_ruleset(ruleset).phases)
    assert report.result is not None and report.hooks == {}


def test_10_1_flodden_on_real_ground_runs_to_a_decision(flodden_bf, flodden_attack):
    total = {s.id: sum(f.bases for f in s.formations) for s in flodden_attack.sides}
    assert all(35 <= n <= 70 for n in total.values())  # about 40 bases a side
    log = Battle(flodden_bf, flodden_attack, Dice(7)).run()
    assert log.result["winner"] in {"english", "scots"}
    assert log.result["bounds"] < flodden_attack.max_bounds
    data = json.loads(log.to_json())
    assert data["format"] == "battlelog/2" and data["crs"].startswith("EPSG:")
    b0 = data["bounds"][0]["snapshot"]
    assert set(b0) == {"bases", "formations", "messengers", "losses", "seen"}  # 6.2 fog record
    assert all(
        e.get("dice", {"faces": []})["faces"] is not None
        for bd in data["bounds"]
        for e in bd["events"]
    )


@pytest.fixture(scope="module")
def minden(built_minden):
    bf = built_minden.battlefield
    return bf, flat_origin(bf)


_PROFILES = ["inf", "cav", "archers", "skirm", "lcav", "javelin", "wild", "musket"]


@st.composite
def small_battles(draw):
    def side(y, facing):
        n = draw(st.integers(1, 3))
        return [
            {
                "id": f"{'r' if y < 0 else 'b'}{i}",
                "profile": draw(st.sampled_from(_PROFILES)),
                "bases": (bases := draw(st.integers(1, 6))),
                "frontage": min(3, bases),  # no wider than its bases (scenario rule)
                "at": (-300 + 300 * i + draw(st.integers(-40, 40)), y + draw(st.integers(-60, 60))),
                "facing": facing,
                "order": draw(st.sampled_from(["attack", "advance", "hold"])),
            }
            for i in range(n)
        ]

    return side(-200, 0), side(200, 180), draw(st.integers(0, 10_000))


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(small_battles())
# Found by this test: archers hold while their front rank is killed; in bound 8 the rear rank
# steps up (3.1) and the enemy then advanced into the same slots, swept against the formation's
# stale rectangle (its cache key did not change when the ranks did).
@example(
    (
        [
            {
                "id": "r0",
                "profile": "archers",
                "bases": 6,
                "frontage": 3,
                "at": (-300, -200),
                "facing": 0,
                "order": "hold",
            },
            {
                "id": "r1",
                "profile": "inf",
                "bases": 3,
                "frontage": 3,
                "at": (0, -200),
                "facing": 0,
                "order": "advance",
            },
        ],
        [
            {
                "id": "b0",
                "profile": "archers",
                "bases": 3,
                "frontage": 3,
                "at": (-300, 200),
                "facing": 180,
                "order": "advance",
            },
        ],
        1132,
    )
)
def test_6_1_invariants_hold_in_random_battles(minden, spec):
    """No base beyond its allowance, removed bases never act, casualties only grow, bases never
    overlap (engine.testing.check_battle asserts them after every phase)."""
    bf, origin = minden
    red, blue, seed = spec
    sc = make_scenario(red, blue, armies=ARMIES, origin=origin, max_bounds=8)
    check_battle(Battle(bf, sc, Dice(seed)), 8)


# -- CLI -----------------------------------------------------------------------------------------


def test_cli_run_writes_log_summary_and_battlefield(run_cli, tmp_path):
    out = tmp_path / "out"
    code, stdout, err = run_cli(
        "run", "flodden_1513", "--seed", "4", "--out", out, "--max-bounds", "3"
    )
    assert code == 0, err
    assert "Winner" in stdout
    log = json.loads((out / "battle_log.json").read_text())
    assert log["seed"] == 4 and len(log["bounds"]) == 4
    summary = json.loads((out / "summary.json").read_text())
    assert summary["bounds"] == 3
    assert (out / "battlefield" / "battlefield.tif").exists()


def test_cli_run_unknown_scenario_is_one_line_error(run_cli, tmp_path):
    code, _out, err = run_cli("run", "no_such_battle", "--out", tmp_path / "x")
    assert code == 1 and err.count("\n") == 1 and err.startswith("Error:")
    assert "no_such_battle" in err and not (tmp_path / "x").exists()


def test_cli_run_bad_field_names_file_line_and_field(run_cli, tmp_path):
    text = (Path(__file__).parents[1] / "data" / "scenarios" / "flodden_1513.yaml").read_text()
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("max_bounds: 40", "max_bounds: 40\nmax_bouns: 3"))
    code, _out, err = run_cli("run", bad, "--out", tmp_path / "x")
    assert code == 1 and "bad.yaml" in err and "max_bouns" in err and "line " in err
    assert "Traceback" not in err and not (tmp_path / "x").exists()


def test_cli_run_off_map_unit_names_the_formation(run_cli, tmp_path):
    text = (Path(__file__).parents[1] / "data" / "scenarios" / "flodden_1513.yaml").read_text()
    bad = tmp_path / "offmap.yaml"
    bad.write_text(text.replace("[-2.1905, 55.6165]", "[-2.5, 55.6165]", 1))
    code, _out, err = run_cli("run", bad, "--out", tmp_path / "x")
    assert code == 1 and "offmap.yaml" in err and "sc_home" in err
    assert not (tmp_path / "x").exists()


def test_cli_schema_prints_json_schema(run_cli):
    code, out, _err = run_cli("schema")
    schema = json.loads(out)
    assert code == 0 and "sides" in schema["properties"]
    code, out, _err = run_cli("schema", "--kind", "troops")
    assert "profiles" in json.loads(out)["properties"]
