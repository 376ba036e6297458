"""``scenario-builder odds --ruleset medieval-d10``: the procedures' exact odds through the CLI
(FIRING CHART, MELEE CHART with Automatic Kills and Part-Dice, artillery misfires, THE MORALE
TEST CHART, THE CONTROL TEST CHART, initiative), and one-line errors for bad option sets."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest
from click.testing import CliRunner

from scenario_builder.cli import main
from scenario_builder.cli.odds import odds


def _odds(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(odds, ["--ruleset", "medieval-d10", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _fractions(rows: list[dict[str, Any]]) -> list[Fraction]:
    return [Fraction(r["fraction"]) for r in rows]


def test_firing_odds_by_hand() -> None:
    # 20 longbowmen (4 dice), medium range at heavy armour: 7+, shields +1 -> 8+: p = 3/10
    rep = _odds(
        "--attack",
        "ranged",
        "--weapon",
        "longbow",
        "--figures",
        "20",
        "--armour",
        "heavy",
        "--range-band",
        "medium",
        "--factor",
        "shields",
    )
    assert rep["need"] == 8
    p = Fraction(3, 10)
    assert _fractions(rep["distribution"]) == [
        Fraction(1, 1) * (1 - p) ** 4,
        4 * p * (1 - p) ** 3,
        6 * p**2 * (1 - p) ** 2,
        4 * p**3 * (1 - p),
        p**4,
    ]
    # the same from a range in cm: 26 cm rounds into the medium band (short ends at 25)
    rep_cm = _odds(
        "--attack",
        "ranged",
        "--weapon",
        "longbow",
        "--figures",
        "20",
        "--armour",
        "heavy",
        "--range-cm",
        "25.5",
        "--factor",
        "shields",
    )
    assert rep_cm["range_band"] == "medium" and rep_cm["distribution"] == rep["distribution"]


def test_melee_odds_with_the_optional_rules_and_simulation() -> None:
    rep = _odds(
        "--attack",
        "melee",
        "--weapon",
        "pike",
        "--figures",
        "36",
        "--armour",
        "medium",
        "--class",
        "B",
        "--automatic-kills",
        "--part-dice",
        "--factor",
        "charging",
        "--simulate",
        "20000",
        "--seed",
        "4",
    )
    # 36 figures: 2 automatic kills, 5 full d10s at 5+ (6/10), a 1-figure part die saved on 3+
    assert rep["need"] == 5
    assert rep["expected_kills"] == pytest.approx(2 + 5 * 0.6 + 0.6 * 0.2)
    for row in rep["distribution"]:
        sd = (row["p"] * (1 - row["p"]) / 20000) ** 0.5
        assert abs(row["simulated"] - row["p"]) <= 4 * sd + 1e-9


def test_artillery_odds_by_hand() -> None:
    rep = _odds(
        "--attack",
        "ranged",
        "--weapon",
        "light_field_artillery",
        "--guns",
        "1",
        "--armour",
        "light",
        "--range-band",
        "short",
    )
    # fires 9/10 (misfire throw), kills on 4+ (7/10)
    assert _fractions(rep["distribution"]) == [Fraction(37, 100), Fraction(63, 100)]
    assert Fraction(rep["p_any_explosion"]) == Fraction(3, 100)


def test_morale_control_and_initiative_odds() -> None:
    rep = _odds("--morale", "other")  # C class, no factors: faces 1-2 / 3-6 / 7-10
    got = {k: Fraction(v["fraction"]) for k, v in rep["outcomes"].items()}
    assert got == {
        "no advance": Fraction(1, 5),
        "half speed advance": Fraction(2, 5),
        "act as ordered": Fraction(2, 5),
    }
    rep = _odds("--morale", "receiving_charge", "--class", "E", "--factor", "per_10pct_lost=2")
    assert rep["modifier"] == -2 - 4
    rep = _odds("--control", "--class", "A", "--cavalry")  # +2: passes on faces 1-2 only
    assert Fraction(rep["outcomes"]["passed"]["fraction"]) == Fraction(1, 5)
    rep = _odds("--initiative", "exceptional,cautious")
    assert Fraction(rep["outcomes"]["first wins"]["fraction"]) == Fraction(79, 94)
    rep = _odds("--initiative", "exceptional,cautious", "--dice-sides", "6")
    assert Fraction(rep["outcomes"]["first wins"]["fraction"]) == Fraction(33, 34)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--attack", "melee", "--weapon", "pike"], "expected --armour"),
        (
            [
                "--attack",
                "ranged",
                "--weapon",
                "longbow",
                "--figures",
                "5",
                "--armour",
                "heavy",
                "--range-cm",
                "80",
            ],
            "beyond longbow's long range",
        ),
        (["--morale", "bravely"], "expected --morale one of"),
        (["--control", "--factor", "nonesuch"], "expected --factor one of"),
        (["--control", "--morale", "other"], "expected exactly one of"),
        (
            [
                "--attack",
                "ranged",
                "--weapon",
                "longbow",
                "--figures",
                "30",
                "--armour",
                "light",
                "--range-band",
                "short",
                "--automatic-kills",
            ],
            "melee phase only",
        ),
        (["--initiative", "bold"], "FIRST,SECOND"),
    ],
)
def test_bad_medieval_odds_options_are_one_line_errors(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["odds", "--ruleset", "medieval-d10", *args])
    assert info.value.code == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("Error: ") and message in err


def test_medieval_options_are_refused_for_2mm_earth(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["odds", "--attack", "melee", "--arming", "3", "-r", "4", "--figures", "3"])
    assert "--figures does not apply" in capsys.readouterr().err
