"""Special rules exhaustion and crews_flee (engine.special_rules, docs/special-rules-troops.md),
played in shipped battles on their own ground, each against the same seed without the rule.

- ``exhaustion``: Stamford Bridge 1066 under 2mm Earth v0.9, the English named (Harold's
  march from Tadcaster through York that morning): they move at half their speed (6.1, chart
  7.3 with 1.1's halving on top) and roll each melee die at -1 (2.2-2.3) for the rule's
  bounds, then move as the book has them again.
- ``crews_flee``: Chacabuco 1817 under v0.9, the royalist guns named: their crews test once
  the patriots come within 300 m (or shoot at them); fled, the guns shoot no more, their bases
  leave the table and are counted abandoned, not killed.
- loading: a rule with nothing to set it off is one line; medieval-d10 refuses both rules,
  dark-age exhaustion, in one line naming the rule.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.log import BattleLog
from engine.rulesets import get_ruleset
from engine.scenario import Scenario, load_scenario, scenario_path
from engine.special_rules import parse_rule
from scenario_builder.battle import build_battlefield, fight, summarise

SOURCE = "test: the number under test, not a historical claim"


def _with_rules(sc: Scenario, *rules: dict[str, Any]) -> Scenario:
    return sc.model_copy(update={"special_rules": [parse_rule(r) for r in rules]})


def _events(log: BattleLog, kind: str) -> list[tuple[int, dict[str, Any]]]:
    return [(r.bound, e.to_dict()) for r in log.bounds for e in r.events if e.type == kind]


def _allowances(log: BattleLog, fid: str) -> dict[int, float]:
    """Bound -> the metres ``fid`` was allowed in its move that bound (6.1)."""
    return {n: e["allowance_m"] for n, e in _events(log, "moved") if e["formation"] == fid}


@pytest.fixture(scope="module")
def stamford() -> tuple[Scenario, Any]:
    sc = load_scenario("stamford_bridge_1066")
    return sc, build_battlefield(sc)


@pytest.fixture(scope="module")
def chacabuco() -> tuple[Scenario, Any]:
    sc = load_scenario("chacabuco_1817")
    return sc, build_battlefield(sc)


# -- exhaustion --------------------------------------------------------------------------------
ENGLISH = ("en_harold", "en_gyrth", "en_leofwine")


def test_exhausted_troops_move_at_half_speed_then_recover(stamford) -> None:
    """exhaustion, 6 bounds: each English formation is logged exhausted in bound 1 and
    recovered in bound 7; its allowance is half the book's in bounds 1-6 and the book's again
    after (the same ground, same seed, both fresh in bounds 7-9 of the approach)."""
    sc, built = stamford
    assert sc.ruleset == "2mm-earth-v0.9"
    rule = {"rule": "exhaustion", "sides": ["english"], "bounds": 6, "source": SOURCE}
    book, _ = fight(sc, built, 1)
    log, _ = fight(_with_rules(sc, rule), built, 1)
    assert not _events(book, "exhausted")
    tired = {e["formation"]: (n, e["until"]) for n, e in _events(log, "exhausted")}
    back = {e["formation"]: n for n, e in _events(log, "recovered")}
    assert tired == {fid: (1, 6) for fid in ENGLISH}
    assert back == {fid: 7 for fid in ENGLISH}
    for fid in ENGLISH:
        was, now = _allowances(book, fid), _allowances(log, fid)
        for n in range(1, 7):
            assert now[n] == was[n] / 2, (fid, n)
        for n in range(7, 10):
            assert now[n] == was[n], (fid, n)
    norse = [e for _, e in _events(log, "moved") if e["formation"].startswith("no_")]
    assert norse and all(e["allowance_m"] > 0 for e in norse)  # only the side named


def test_exhausted_troops_fight_worse_while_it_lasts(stamford) -> None:
    """exhaustion, 24 bounds: the slowed English reach the shield wall late, and every melee
    die they roll in it while exhausted needs one more than the book's against the same
    enemy (2.3 need, the rule's -1 a die); the battle goes differently from the book's."""
    sc, built = stamford
    rule = {"rule": "exhaustion", "sides": ["english"], "bounds": 24, "source": SOURCE}
    book, _ = fight(sc, built, 1)
    log, _ = fight(_with_rules(sc, rule), built, 1)
    need: dict[str, set[int]] = {}
    for _, e in _events(book, "melee"):
        if e["formation"] in ENGLISH:
            need.setdefault(e["target"], set()).add(e["need"])
    assert need and all(len(v) == 1 for v in need.values())
    struck = [(n, e) for n, e in _events(log, "melee") if e["formation"] in ENGLISH]
    assert struck and all(n <= 24 for n, _ in struck)
    for _, e in struck:
        (was,) = need[e["target"]]
        assert e["need"] == was + 1, e
    first = min(n for n, _ in struck)
    assert first > min(n for n, e in _events(book, "melee") if e["formation"] in ENGLISH)
    assert log.result != book.result  # the same dice, a different battle
    assert log.header["special_rules"][0]["rule"] == "exhaustion"


def test_a_reinforcement_is_exhausted_from_the_bound_it_comes_on(chacabuco) -> None:
    """exhaustion by side: the patriots on the table are exhausted in bounds 1-3; Soler's
    foot and horse, off the table till bound 30 (the scenario's plan), in bounds 30-32 after
    their march round the royalist flank, and recover as bound 33 begins."""
    sc, built = chacabuco
    rule = {"rule": "exhaustion", "sides": ["patriots"], "bounds": 3, "source": SOURCE}
    log, _ = fight(_with_rules(sc, rule), built, 2)
    came = {e["formation"]: n for n, e in _events(log, "arrived")}
    assert came == {"pt_soler": 30, "pt_soler_horse": 30}
    tired = {e["formation"]: (n, e["until"]) for n, e in _events(log, "exhausted")}
    back = {e["formation"]: n for n, e in _events(log, "recovered")}
    for fid in came:
        assert tired[fid] == (30, 32) and back[fid] == 33
    first = {f for f, (n, _) in tired.items() if n == 1}
    assert first and all(back[f] == 4 for f in first)
    assert not any(f.startswith("rs_") for f in tired)


# -- crews_flee --------------------------------------------------------------------------------
def _guns_shots(log: BattleLog) -> list[int]:
    return [n for n, e in _events(log, "shot") if e["formation"] == "rs_guns"]


def test_crews_flee_and_their_guns_fall_silent(chacabuco) -> None:
    """crews_flee (flee_on 6: they run at the first test): the royalist crews test as the
    patriots come within 300 m, flee, and the guns shoot no more; their 2 bases are counted
    abandoned, not killed. The book alone: the same guns shoot after that bound."""
    sc, built = chacabuco
    rule = {
        "rule": "crews_flee",
        "formations": ["rs_guns"],
        "enemy_within_m": 300,
        "flee_on": 6,
        "source": SOURCE,
    }
    book, _ = fight(sc, built, 2)
    log, _ = fight(_with_rules(sc, rule), built, 2)
    assert not _events(book, "crews_test") and "guns_abandoned" not in book.result
    ((n, test),) = _events(log, "crews_test")
    assert test["trigger"] == "enemy_within_m" and test["fled"] and test["rule"] == "crews_flee"
    ((m, left),) = _events(log, "guns_abandoned")
    assert m == n and left["formation"] == "rs_guns" and len(left["bases"]) == 2
    assert _guns_shots(log) and max(_guns_shots(log)) < n  # silent from the flight on
    assert [b for b in _guns_shots(book) if b >= n]  # the book's guns fire on
    assert log.result["guns_abandoned"] == {"royalists": 2}
    # the crews fled: their bases are dispersed, never killed (the guns are lost as pieces)
    guns = log.result["casualties_by_formation"]["rs_guns"]
    assert guns == {"killed": 0, "wounded": 0, "captured": 0, "dispersed": 2}
    cas, lost = log.result["casualties"]["royalists"], log.result["losses"]["royalists"]
    assert sum(cas.values()) == lost
    assert summarise(log, sc)["guns_abandoned"] == {"royalists": 2}
    assert "guns_abandoned" not in summarise(book, sc)


def test_crews_test_with_a_chance_each_bound(chacabuco) -> None:
    """crews_flee, flee_on 3 of a d6: each test is one die logged with it, fled exactly when
    it shows 3 or less; a crew that stands tests again the next bound while the trigger holds,
    and with ``retest: false`` only once. Over seeds 1-6 some crews flee, some stand."""
    sc, built = chacabuco
    rule: dict[str, Any] = {
        "rule": "crews_flee",
        "formations": ["rs_guns"],
        "enemy_within_m": 300,
        "when_shot_at": True,
        "flee_on": 3,
        "source": SOURCE,
    }
    fled = stood = 0
    for seed in range(1, 7):
        log, _ = fight(_with_rules(sc, rule), built, seed)
        tests = _events(log, "crews_test")
        assert tests, seed
        for _, t in tests:
            assert t["dice"]["faces"][0] <= 3 if t["fled"] else t["dice"]["faces"][0] > 3
        assert [t["fled"] for _, t in tests].count(True) <= 1
        bounds = [n for n, _ in tests]
        assert bounds == list(range(bounds[0], bounds[0] + len(bounds)))  # each bound
        fled += tests[-1][1]["fled"]
        stood += not tests[0][1]["fled"]
        once, _ = fight(_with_rules(sc, {**rule, "retest": False}), built, seed)
        assert len(_events(once, "crews_test")) == 1
    assert fled and stood


@pytest.mark.parametrize("ruleset", ["2mm-earth-v0.7", "2mm-earth+wc-morale", "dark-age"])
def test_the_rules_under_the_other_2mm_earth_rulesets(chacabuco, ruleset: str) -> None:
    """Every 2mm Earth book and composition plays crews_flee (fled: silent, counted
    abandoned); those with 2mm Earth's speeds play exhaustion (O'Higgins' division at half
    its allowance for 3 bounds, then the book's). dark-age rolls its moves: crews only."""
    sc, built = chacabuco
    victory = sc.victory
    if ruleset != "2mm-earth-v0.7":  # W&C's morale: the battle ends at the break
        victory = victory.model_copy(update={"pursuit_bounds": 0})
    sc = sc.model_copy(update={"ruleset": ruleset, "victory": victory})
    rules: list[dict[str, Any]] = [
        {
            "rule": "crews_flee",
            "formations": ["rs_guns"],
            "enemy_within_m": 300,
            "flee_on": 6,
            "source": SOURCE,
        }
    ]
    if ruleset != "dark-age":
        rules.append(
            {"rule": "exhaustion", "formations": ["pt_ohiggins"], "bounds": 3, "source": SOURCE}
        )
    book, _ = fight(sc, built, 2)
    log, _ = fight(_with_rules(sc, *rules), built, 2)
    ((n, test),) = _events(log, "crews_test")
    ((m, left),) = _events(log, "guns_abandoned")
    assert test["fled"] and m == n
    assert all(b < n for b in _guns_shots(log)) and [b for b in _guns_shots(book) if b >= n]
    assert log.result["guns_abandoned"] == {"royalists": len(left["bases"])}
    if ruleset != "dark-age":
        was, now = _allowances(book, "pt_ohiggins"), _allowances(log, "pt_ohiggins")
        assert [now[k] * 2 for k in (1, 2, 3)] == [was[k] for k in (1, 2, 3)]
        assert now[4] == was[4]


def test_rules_replay_byte_for_byte_and_read_back(stamford, chacabuco) -> None:
    """Same scenario, rules and seed: the same log bytes; every new event reads back through
    the ruleset's event types and is worded with the rule's name."""
    sc, built = chacabuco
    rules = (
        {
            "rule": "crews_flee",
            "formations": ["rs_guns"],
            "enemy_within_m": 300,
            "flee_on": 4,
            "source": SOURCE,
        },
        {"rule": "exhaustion", "formations": ["pt_ohiggins"], "bounds": 5, "source": SOURCE},
    )
    ruled = _with_rules(sc, *rules)
    a, _ = fight(ruled, built, 2)
    b, _ = fight(ruled, built, 2)
    assert a.to_bytes() == b.to_bytes()
    types = get_ruleset(sc.ruleset).event_types()
    seen = set()
    for r in a.bounds:
        for e in r.events:
            if e.type in ("exhausted", "recovered", "crews_test", "guns_abandoned"):
                back = types[e.type].from_dict(e.to_dict())
                assert back.to_dict() == e.to_dict()
                assert back.describe().endswith(f"({e.rule})")  # type: ignore[attr-defined]
                seen.add(e.type)
    assert seen == {"exhausted", "recovered", "crews_test", "guns_abandoned"}


# -- loading -----------------------------------------------------------------------------------
def _scenario_file(
    tmp_path: Path, rules: list[dict[str, Any]], name: str = "chacabuco_1817"
) -> Path:
    src = scenario_path(name)
    data = yaml.safe_load(src.read_text(encoding="utf-8"))
    data["special_rules"] = rules
    if (src.parent / "plans").is_dir() and not (tmp_path / "plans").exists():
        shutil.copytree(src.parent / "plans", tmp_path / "plans")  # the sides' plan files
    out = tmp_path / f"{name}_rules.yaml"
    out.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return out


def _one_line(run_cli: Any, path: Path, tmp_path: Path, *extra: str) -> str:
    code, _, err = run_cli("run", str(path), "--seed", "1", "--out", str(tmp_path / "o"), *extra)
    assert code != 0 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0], err
    return lines[0]


@pytest.mark.parametrize(
    ("rule", "said"),
    [
        (
            {"rule": "crews_flee", "formations": ["rs_guns"], "flee_on": 3, "source": "s"},
            "special_rules.0: expected enemy_within_m or when_shot_at: true, got neither",
        ),
        (
            {"rule": "exhaustion", "bounds": 4, "source": "s"},
            "special_rules.0: expected formations or sides to name who is exhausted, got none",
        ),
        (
            {
                "rule": "crews_flee",
                "formations": ["rs_gun"],
                "when_shot_at": True,
                "flee_on": 3,
                "source": "s",
            },
            "special_rules.0.formations.0: expected a formation, got 'rs_gun' "
            "(did you mean 'rs_guns'?)",
        ),
        (
            {"rule": "exhaustion", "sides": ["royalist"], "bounds": 4, "source": "s"},
            "special_rules.0.sides.0: expected a side, got 'royalist' (did you mean 'royalists'?)",
        ),
    ],
)
def test_a_bad_rule_is_one_line(run_cli, tmp_path: Path, rule: dict[str, Any], said: str) -> None:
    line = _one_line(run_cli, _scenario_file(tmp_path, [rule]), tmp_path)
    assert said in line, line


@pytest.mark.parametrize(
    ("scenario", "rule", "said"),
    [
        (
            "towton_1461",
            {
                "rule": "crews_flee",
                "formations": ["yk_left"],
                "when_shot_at": True,
                "flee_on": 3,
                "source": "s",
            },
            "medieval-d10 does not play special rule crews_flee (its batteries abandon their "
            "guns by the book (MORALE TEST RESULT, Artillery)",
        ),
        (
            "towton_1461",
            {"rule": "exhaustion", "formations": ["yk_norfolk"], "bounds": 4, "source": "s"},
            "medieval-d10 does not play special rule exhaustion (its units and march rates",
        ),
        (
            "maldon_991",
            {"rule": "exhaustion", "sides": ["vikings"], "bounds": 4, "source": "s"},
            "dark-age does not play special rule exhaustion (plays: crews_flee, fog",
        ),
    ],
)
def test_a_ruleset_without_the_seam_refuses(
    run_cli, tmp_path: Path, scenario: str, rule: dict[str, Any], said: str
) -> None:
    line = _one_line(run_cli, _scenario_file(tmp_path, [rule], scenario), tmp_path)
    assert said in line, line


def test_the_playback_words_and_marks_the_rules_events(chacabuco) -> None:
    """The playback reads the rules' events through the ruleset's event types: each worded
    with the formation's name and the rule, the crews' test and flight marked at the guns."""
    import json

    from engine.log import Draw
    from maps.playback import EventReader

    sc, built = chacabuco
    rules = (
        {
            "rule": "crews_flee",
            "formations": ["rs_guns"],
            "enemy_within_m": 300,
            "flee_on": 6,
            "source": SOURCE,
        },
        {"rule": "exhaustion", "formations": ["pt_ohiggins"], "bounds": 3, "source": SOURCE},
    )
    log, _ = fight(_with_rules(sc, *rules), built, 2)
    data = json.loads(log.to_bytes())
    reader = EventReader.for_log(data)
    read = {
        ev["type"]: reader.read(ev)
        for r in data["bounds"]
        for ev in r["events"]
        if ev["type"] in ("exhausted", "recovered", "crews_test", "guns_abandoned")
    }
    assert set(read) == {"exhausted", "recovered", "crews_test", "guns_abandoned"}
    guns = "Royalist guns"
    assert read["guns_abandoned"].words.startswith(f"{guns}'s crews flee: 2 gun bases abandoned")
    assert "(crews_flee)" in read["crews_test"].words and "rolled" in read["crews_test"].words
    for kind in ("crews_test", "guns_abandoned"):
        assert read[kind].draw is Draw.MARK and read[kind].actor == "rs_guns"
    assert read["exhausted"].words.endswith("is exhausted until bound 3 (exhaustion)")


def test_the_docs_examples_load() -> None:
    """Every YAML example in docs/special-rules-troops.md is a valid special rule, and names
    formations of the shipped scenario it is written for."""
    import re

    text = (Path(__file__).parents[1] / "docs" / "special-rules-troops.md").read_text(
        encoding="utf-8"
    )
    blocks = re.findall(r"```yaml\n(.*?)```", text, flags=re.S)
    rules = [parse_rule(e) for block in blocks for e in yaml.safe_load(block)]
    assert sorted(str(r.rule) for r in rules) == ["crews_flee", "exhaustion"]
    every = {
        f.id
        for name in ("stamford_bridge_1066", "flodden_1513")
        for s in load_scenario(name).sides
        for f in s.formations
    }
    assert all(set(r.formations) <= every for r in rules)  # type: ignore[union-attr]


def test_a_scenario_with_the_rules_round_trips_through_yaml() -> None:
    """The scenario with both rules writes to YAML and reads back the same
    (``Scenario.to_yaml``), its parameters and sources included."""
    sc = load_scenario("flodden_1513")
    ruled = _with_rules(
        sc,
        {
            "rule": "exhaustion",
            "sides": ["scots"],
            "bounds": 5,
            "speed_factor": 0.75,
            "dice_modifier": 0,
            "resilience_modifier": -1,
            "source": SOURCE,
        },
        {
            "rule": "crews_flee",
            "formations": ["sc_guns_centre", "sc_guns_left"],
            "when_shot_at": True,
            "flee_on": 2,
            "retest": False,
            "source": SOURCE,
        },
    )
    back = Scenario.from_yaml(ruled.to_yaml())
    assert back == ruled
    assert [r.rule for r in back.special_rules] == ["exhaustion", "crews_flee"]
