"""Odds calculator: exact distributions against brute-force enumeration, simulations against
exact figures (fixed seeds: deterministic), and the ``scenario-builder odds`` CLI."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from engine.dice import ScriptedDice
from engine.rulesets import get_ruleset
from engine.rulesets.two_mm_earth.odds import (
    at_least,
    attack_distribution,
    attack_distribution_exact,
    expected_hits,
    hit_chance,
    panic_distribution,
    panic_distribution_exact,
    simulate_attack,
    simulate_panic,
)
from engine.rulesets.two_mm_earth.resolution import roll_attack
from scenario_builder.cli import main
from scenario_builder.cli.odds import odds


def _enumerate_attack(n: int, r: int, m: int) -> list[Fraction]:
    combos = list(itertools.product(range(1, 7), repeat=n))
    counts = Counter(roll_attack(ScriptedDice(f), n, r, m).hits for f in combos)
    return [Fraction(counts[k], len(combos)) for k in range(n + 1)]


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize(
    ("r", "m"), [(1, 0), (3, 0), (4, 0), (4, -1), (6, -2), (7, 0), (2, 1), (5, -1), (9, 0)]
)
def test_2_3_attack_distribution_equals_enumeration(n: int, r: int, m: int) -> None:
    assert attack_distribution_exact(n, r, m) == _enumerate_attack(n, r, m)


def test_2_3_attack_three_dice_need_four() -> None:
    assert attack_distribution_exact(3, 4) == [Fraction(k, 8) for k in (1, 3, 3, 1)]
    assert attack_distribution(3, 4) == [0.125, 0.375, 0.375, 0.125]
    assert expected_hits(attack_distribution_exact(3, 4)) == Fraction(3, 2)
    assert at_least(attack_distribution_exact(3, 4)) == [
        1,
        Fraction(7, 8),
        Fraction(1, 2),
        Fraction(1, 8),
    ]
    assert hit_chance(8) == 0  # 2.3: no natural 6, a need of 8 cannot be met
    assert hit_chance(6, -1) == 0 and hit_chance(6) == Fraction(1, 6)
    assert attack_distribution_exact(0, 4) == [1]


def test_10_5_panic_distribution_r4_l0() -> None:
    assert panic_distribution_exact(4) == {
        "none": Fraction(27, 36),
        "retreat": Fraction(5, 36),
        "rout": Fraction(4, 36),
    }


@pytest.mark.parametrize("name", ["2mm-earth-v0.9", "2mm-earth-v0.7"])
def test_panic_distributions_sum_to_one(name: str) -> None:
    for r in range(1, 8):
        for lead in range(4):
            for mod in (-2, -1, 0):
                d = panic_distribution_exact(r, lead, mod, name)
                assert sum(d.values()) == 1
                assert all(v >= 0 for v in d.values())


def test_10_5_panic_odds_improve_with_resilience_and_leadership() -> None:
    for lead in range(4):
        none = [panic_distribution_exact(r, lead)["none"] for r in range(1, 8)]
        assert none == sorted(none)
    rout = [panic_distribution_exact(4, lead)["rout"] for lead in range(4)]
    assert rout == sorted(rout, reverse=True)


def test_v07_panic_distribution_known_answers() -> None:
    # one die vs R4: 1-3 none, 4 flee, 5-6 rout
    d = panic_distribution_exact(4, ruleset="2mm-earth-v0.7")
    assert d == {"none": Fraction(1, 2), "retreat": Fraction(1, 6), "rout": Fraction(1, 3)}
    d = panic_distribution_exact(4, ruleset="2mm-earth-v0.7", seen_routing=1, rear_contact=True)
    assert d == {"none": Fraction(0), "retreat": Fraction(0), "rout": Fraction(1)}
    assert panic_distribution(4, ruleset=get_ruleset("2mm-earth-v0.7"))["none"] == 0.5


def test_simulated_attack_matches_exact() -> None:
    n, trials = 4, 40_000
    sim = simulate_attack(n, 5, -1, trials=trials, seed=3)
    exact = attack_distribution(n, 5, -1)
    # 5 sigma of a frequency over 40 000 trials is at most 0.0125; fixed seed: deterministic
    assert all(abs(s - e) < 0.0125 for s, e in zip(sim, exact, strict=True))
    assert sim == simulate_attack(n, 5, -1, trials=trials, seed=3)
    assert sim != simulate_attack(n, 5, -1, trials=trials, seed=4)


@pytest.mark.parametrize(
    ("name", "kw"), [("2mm-earth-v0.9", {}), ("2mm-earth-v0.7", {"seen_fleeing": 1})]
)
def test_simulated_panic_matches_exact(name: str, kw: dict[str, int]) -> None:
    sim = simulate_panic(4, 1, -1, name, trials=40_000, seed=11, **kw)
    exact = panic_distribution(4, 1, -1, name, **kw)
    assert all(abs(sim[k] - exact[k]) < 0.0125 for k in exact)
    assert sim == simulate_panic(4, 1, -1, name, trials=40_000, seed=11, **kw)


def test_simulation_needs_trials() -> None:
    with pytest.raises(ValueError, match="trials >= 1"):
        simulate_attack(2, 4, trials=0, seed=1)
    with pytest.raises(ValueError, match="trials >= 1"):
        simulate_panic(4, trials=0, seed=1)


# CLI ---------------------------------------------------------------------------------------


def _json(args: list[str]) -> dict:
    result = CliRunner().invoke(odds, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_cli_attack_melee_with_outnumbering() -> None:
    rep = _json(["--attack", "melee", "--arming", "3", "--resilience", "4", "--outnumber", "2"])
    assert rep["dice"] == 5 and rep["need"] == 4 and rep["p_hit"] == "1/2"
    assert [row["fraction"] for row in rep["distribution"]] == [
        "1/32",
        "5/32",
        "5/16",
        "5/16",
        "5/32",
        "1/32",
    ]
    assert rep["expected_hits"] == 2.5
    assert rep["distribution"][3]["p_at_least"] == 0.5


def test_cli_attack_ranged_cover_and_penalties() -> None:
    # infantry in debris: ranged R +1 (chart 7.2) -> R5; half range -1, moving -1 -> need 7+:
    # 2.3 has no natural 6, so the shot cannot hit
    rep = _json(
        [
            "--attack",
            "ranged",
            "--arming",
            "2",
            "-r",
            "4",
            "--half-range",
            "--moving",
            "--cover",
            "debris",
            "--unit-type",
            "infantry",
        ]
    )
    assert rep["effective_resilience"] == 5 and rep["die_modifier"] == -2 and rep["need"] == 7
    assert rep["p_hit"] == "0" and rep["expected_hits"] == 0
    assert [row["fraction"] for row in rep["distribution"]] == ["1", "0", "0"]
    out = CliRunner().invoke(
        odds,
        [
            "--attack",
            "ranged",
            "--arming",
            "2",
            "-r",
            "4",
            "--half-range",
            "--moving",
            "--cover",
            "debris",
            "--unit-type",
            "infantry",
        ],
    )
    assert out.exit_code == 0 and "cannot hit (2.3)" in out.output
    # a skirmisher ignores the moving penalty; --long-range is the same flag as --half-range
    rep = _json(
        [
            "--attack",
            "ranged",
            "--arming",
            "2",
            "-r",
            "4",
            "--long-range",
            "--moving",
            "--skirmisher",
        ]
    )
    assert rep["die_modifier"] == -1 and rep["need"] == 5
    # melee uses the melee column: infantry in debris -1 -> R3
    rep = _json(
        [
            "--attack",
            "melee",
            "--arming",
            "2",
            "-r",
            "4",
            "--cover",
            "debris",
            "--unit-type",
            "infantry",
        ]
    )
    assert rep["effective_resilience"] == 3


def test_cli_8_1_ordnance_and_8_2_volley() -> None:
    rep = _json(["--attack", "ranged", "--arming", "3", "-r", "4", "--ordnance-ranks", "4"])
    assert rep["bonus_dice"] == 2 and rep["dice"] == 5 and rep["die_modifier"] == -1
    rep = _json(
        [
            "--attack",
            "ranged",
            "--arming",
            "3",
            "-r",
            "4",
            "--ordnance-ranks",
            "4",
            "--outnumber",
            "-1",
            "--half-range",
            "--cover",
            "overhead",
            "--unit-type",
            "infantry",
        ]
    )
    assert rep["bonus_dice"] == 1 and rep["die_modifier"] == -3 and rep["effective_resilience"] == 5
    rep = _json(["--attack", "ranged", "--arming", "2", "-r", "4", "--volley"])
    assert rep["ordnance_ranks"] == 2 and rep["bonus_dice"] == 1 and rep["die_modifier"] == -1


def test_cli_panic_exact_and_simulated() -> None:
    rep = _json(["--panic", "-r", "4", "-l", "1", "--simulate", "20000", "--seed", "7"])
    assert rep["ruleset"] == "2mm-earth-v0.9"
    assert {k: v["fraction"] for k, v in rep["outcomes"].items()} == {
        "none": "8/9",
        "retreat": "1/12",
        "rout": "1/36",
    }
    assert all(abs(v["simulated"] - v["p"]) < 0.015 for v in rep["outcomes"].values())
    assert rep == _json(["--panic", "-r", "4", "-l", "1", "--simulate", "20000", "--seed", "7"])


def test_cli_panic_v07_options() -> None:
    rep = _json(["--panic", "-r", "4", "--ruleset", "2mm-earth-0.7", "--seen-fleeing", "1"])
    assert rep["ruleset"] == "2mm-earth-v0.7"
    assert rep["outcomes"]["rout"]["fraction"] == "1/2"


def test_cli_human_output_tables() -> None:
    result = CliRunner().invoke(
        odds, ["--attack", "melee", "--arming", "3", "-r", "4", "--simulate", "1000"]
    )
    assert result.exit_code == 0
    assert "each die hits on 4+ (p = 1/2)" in result.output
    assert "P(>=k)" in result.output and "simulated (1000, seed 1)" in result.output
    assert "expected hits: 1.500" in result.output
    result = CliRunner().invoke(odds, ["--panic", "-r", "4"])
    assert result.exit_code == 0
    assert "no effect" in result.output and "3/4" in result.output and "5/36" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--attack", "melee", "--arming", "0", "-r", "4"], "expected --arming 1..20, got 0"),
        (["--attack", "melee", "--arming", "-2", "-r", "4"], "expected --arming 1..20, got -2"),
        (["--attack", "melee", "-r", "4"], "expected --arming 1..20, got none"),
        (["--attack", "melee", "--arming", "2", "-r", "0"], "expected --resilience 1..7, got 0"),
        (["--attack", "melee", "--arming", "2", "-r", "8"], "expected --resilience 1..7, got 8"),
        (["--panic"], "expected --resilience R (1..7), got none"),
        (["-r", "4"], "expected exactly one of --attack melee|ranged, --panic, --wc-morale MV"),
        (["--attack", "melee", "--panic", "-r", "4"], "expected exactly one of"),
        (["--attack", "siege", "--arming", "2", "-r", "4"], "expected --attack melee or ranged"),
        (
            ["--attack", "melee", "--arming", "2", "-r", "4", "--moving"],
            "--moving applies to --attack ranged only",
        ),
        (
            ["--attack", "ranged", "--arming", "2", "-r", "4", "--outnumber", "2"],
            "--outnumber applies to melee",
        ),
        (
            ["--attack", "melee", "--arming", "2", "-r", "4", "--cover", "wet"],
            "--cover needs --unit-type",
        ),
        (
            [
                "--attack",
                "melee",
                "--arming",
                "2",
                "-r",
                "4",
                "--cover",
                "lava",
                "--unit-type",
                "infantry",
            ],
            "expected --cover one of",
        ),
        (
            [
                "--attack",
                "melee",
                "--arming",
                "2",
                "-r",
                "4",
                "--cover",
                "wet",
                "--unit-type",
                "elephant",
            ],
            "expected --unit-type one of",
        ),
        (
            ["--attack", "ranged", "--arming", "2", "-r", "4", "--ordnance-ranks", "0"],
            "expected --ordnance-ranks 1..10, got 0",
        ),
        (
            ["--attack", "melee", "--arming", "2", "-r", "4", "--leadership", "2"],
            "--leadership does not apply to --attack",
        ),
        (["--panic", "-r", "4", "--arming", "2"], "--arming does not apply to --panic"),
        (["--panic", "-r", "4", "-l", "4"], "expected --leadership 0..3, got 4"),
        (["--panic", "-r", "4", "--ruleset", "dba"], "unknown ruleset 'dba'; expected one of"),
        (["--panic", "-r", "4", "--seen-fleeing", "1"], "use --ruleset 2mm-earth-v0.7"),
        (["--panic", "-r", "4", "--simulate", "0"], "expected --simulate 1..1000000, got 0"),
        # every whole-number option has a range, checked before any odds are worked out
        (
            ["--attack", "melee", "--arming", "100000", "-r", "4"],
            "Error: odds: expected --arming 1..20, got 100000",
        ),
        (["--attack", "melee", "--arming", "200", "-r", "4"], "expected --arming 1..20, got 200"),
        (
            ["--panic", "-r", "4", "--simulate", "1000000000000"],
            "expected --simulate 1..1000000, got 1000000000000",
        ),
        (
            ["--attack", "melee", "--arming", "2", "-r", "4", "--outnumber", "50"],
            "expected --outnumber -20..20, got 50",
        ),
        (["--panic", "-r", "4", "-m", "-11"], "expected --modifier -10..10, got -11"),
        (
            ["--panic", "-r", "4", "--ruleset", "2mm-earth-v0.7", "--contact-sides", "4"],
            "expected --contact-sides 0..3, got 4",
        ),
        (["--wc-morale", "15"], "expected --wc-morale -2..14, got 15"),
        (
            ["--ruleset", "medieval-d10", "--attack", "ranged", "--figures", "100000"],
            "expected --figures 1..200, got 100000",
        ),
        (["--ruleset", "medieval-d10", "--control", "--simulate", "2000000"], "--simulate 1..1"),
    ],
)
def test_cli_bad_input_one_line_error(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["odds", *args])
    assert info.value.code == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("Error: ") and message in err
    assert "Traceback" not in err


def test_the_documented_odds_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    import shlex
    from pathlib import Path

    doc = Path(__file__).resolve().parents[1] / "docs" / "odds.md"
    section = doc.read_text(encoding="utf-8")
    commands = [line for line in section.splitlines() if line.startswith("scenario-builder odds")]
    assert len(commands) >= 4
    for line in commands:
        args = shlex.split(line)[1:]
        main([*args, "--json"])  # no SystemExit: success
        assert json.loads(capsys.readouterr().out)["mode"] in (
            "attack",
            "panic",
            "wc-morale",
            "flee-pursuit",
            "dark-age-move",
        )


@given(st.integers(0, 12), st.integers(1, 7), st.integers(-4, 1))
def test_2_3_attack_distribution_properties(n: int, r: int, m: int) -> None:
    dist = attack_distribution_exact(n, r, m)
    assert sum(dist) == 1 and len(dist) == n + 1
    assert expected_hits(dist) == n * hit_chance(r, m)
    # a tougher target or a worse penalty never helps the attacker
    assert hit_chance(r + 1, m) <= hit_chance(r, m) and hit_chance(r, m - 1) <= hit_chance(r, m)
    assert 0 <= hit_chance(r, m) <= 1
    # 2.3, no natural 6: zero exactly when the face needed is above the die
    assert (hit_chance(r, m) == 0) == (r - m > 6)


@given(st.integers(1, 7), st.integers(0, 3), st.integers(-3, 1), st.booleans())
def test_10_5_panic_distribution_properties(r: int, lead: int, mod: int, routing: bool) -> None:
    here = panic_distribution_exact(r, lead, mod, routing=routing)
    tougher = panic_distribution_exact(r + 1, lead, mod, routing=routing)
    assert tougher["rout"] <= here["rout"] and tougher["none"] >= here["none"]
    assert sum(here.values()) == 1
    if routing:  # leadership does not count while routing
        assert here == panic_distribution_exact(r, 0, mod, routing=True)
