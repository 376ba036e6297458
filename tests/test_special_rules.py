"""Scenario special rules (engine.special_rules, docs/special-rules.md), played in battles on
the shipped ground and scenarios.

- ``limited_missile_supply``: Homildon Hill 1402 under 2mm Earth v0.9 (its English archers,
  8.2 shooting) and Towton 1461 under medieval-d10 (its FIRING CHART): a formation shoots its
  volleys, is logged out of missiles and shoots no more; resupply brings volleys back.
- ``fog``: on the Minden ground, an enemy 200 m off is hidden by a 150 m fog, seen in a 250 m
  one, and seen again once the fog lifts (``bounds``).
- loading: unknown rules and parameters are one line with the nearest name; a ruleset that
  does not play a rule refuses the scenario in one line naming the rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.battle import Battle
from engine.dice import Dice
from engine.log import BattleLog
from engine.orders import InstantDelivery
from engine.rulesets import get_ruleset, register, unregister
from engine.rulesets.two_mm_earth.rulesets import TwoMmEarthV09
from engine.scenario import Scenario, load_scenario, scenario_path
from engine.special_rules import parse_rule
from engine.testing import check_battle, flat_origin, make_scenario
from scenario_builder.battle import build_battlefield, fight

ARMIES = (
    str(Path(__file__).parent / "data" / "troops" / "rules_red.yaml"),
    str(Path(__file__).parent / "data" / "troops" / "rules_blue.yaml"),
)
SOURCE = "test: the number under test, not a historical claim"


def _with_rules(sc: Scenario, *rules: dict[str, Any]) -> Scenario:
    return sc.model_copy(update={"special_rules": [parse_rule(r) for r in rules]})


def _shots(log: BattleLog, kind: str) -> dict[str, list[int]]:
    """Formation -> the bounds it shot in (one entry per shot event of type ``kind``)."""
    out: dict[str, list[int]] = {}
    for r in log.bounds:
        for e in r.events:
            if e.type == kind:
                d = e.to_dict()
                out.setdefault(d.get("formation") or d.get("unit") or "", []).append(r.bound)
    return out


def _events(log: BattleLog, kind: str) -> list[tuple[int, dict[str, Any]]]:
    return [(r.bound, e.to_dict()) for r in log.bounds for e in r.events if e.type == kind]


@pytest.fixture(scope="module")
def homildon() -> tuple[Scenario, Any]:
    """Homildon under the book alone: the scenario's own ``surrender`` (Tytler's captives) is
    taken off, so each test here names only the rules it plays."""
    sc = load_scenario("homildon_hill_1402").model_copy(update={"special_rules": []})
    return sc, build_battlefield(sc)


def test_archers_run_dry_and_stop_shooting_under_2mm_earth(homildon) -> None:
    """limited_missile_supply, 8.2: each English archer formation shoots 4 volleys, is logged
    out of missiles with its fourth and shoots no more; without the rule they shoot on."""
    sc, built = homildon
    assert sc.ruleset == "2mm-earth-v0.9"
    base_log, _ = fight(sc, built, 1)
    base = _shots(base_log, "shot")
    assert max(len(v) for v in base.values()) > 4  # the book alone: shooting without end
    assert not _events(base_log, "out_of_missiles")
    rule = {"rule": "limited_missile_supply", "volleys": 4, "source": SOURCE}
    log, _ = fight(_with_rules(sc, rule), built, 1)
    shots = _shots(log, "shot")
    dry = {e["formation"]: (b, e) for b, e in _events(log, "out_of_missiles")}
    for fid in ("en_bows_w", "en_bows_e"):
        assert len(shots[fid]) == 4, fid
        bound, event = dry[fid]
        assert event["rule"] == "limited_missile_supply" and event["shot"] == 4
        assert max(shots[fid]) == bound  # the last volley's bound: nothing after it
    assert log.header["special_rules"][0]["rule"] == "limited_missile_supply"
    assert "special_rules" not in base_log.header  # the book alone: the header as before


def test_resupply_brings_volleys_back(homildon) -> None:
    """limited_missile_supply's resupply: volleys come back to formations out of contact and
    they shoot again after running dry."""
    sc, built = homildon
    rule = {
        "rule": "limited_missile_supply",
        "volleys": 2,
        "source": SOURCE,
        "resupply": {"every_bounds": 4, "volleys": 2, "source": SOURCE},
    }
    log, _ = fight(_with_rules(sc, rule), built, 1)
    shots = _shots(log, "shot")
    back = _events(log, "missiles_resupplied")
    assert back, "no resupply logged"
    assert all((b - 1) % 4 == 0 and e["left"] <= 2 for b, e in back)
    fid = back[0][1]["formation"]
    dry_at = min(b for b, e in _events(log, "out_of_missiles") if e["formation"] == fid)
    assert dry_at < back[0][0] <= max(shots[fid])  # ran dry, resupplied, shot again
    assert len(shots[fid]) > 2


def test_archers_run_dry_under_medieval_d10() -> None:
    """limited_missile_supply under medieval-d10 (FIRING CHART): Towton's Yorkist archers fire
    three times, then no more."""
    sc = load_scenario("towton_1461")
    assert sc.ruleset == "medieval-d10"
    built = build_battlefield(sc)
    base = _shots(fight(sc, built, 1)[0], "d10_fire")
    rule = {"rule": "limited_missile_supply", "volleys": 3, "source": SOURCE}
    log, _ = fight(_with_rules(sc, rule), built, 1)
    fired = _shots(log, "d10_fire")
    dry = _events(log, "out_of_missiles")
    assert dry, "no unit ran out"
    for bound, e in dry:
        fid = e["formation"]
        assert len(fired[fid]) == 3 and max(fired[fid]) == bound
        assert len(base[fid]) > 3  # the book alone shoots on
    assert all(len(v) <= 3 for v in fired.values())


# -- fog ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def minden(built_minden):
    bf = built_minden.battlefield
    return bf, flat_origin(bf)


def _fog_battle(bf: Any, origin: Any, *rules: dict[str, Any]) -> Battle:
    red = [{"id": "watch", "profile": "inf", "bases": 2, "at": (0, 0), "facing": 0}]
    blue = [{"id": "lurk", "profile": "inf", "bases": 2, "at": (0, 230), "facing": 180}]
    sc = make_scenario(red, blue, armies=ARMIES, origin=origin, max_bounds=4)
    sc = _with_rules(sc, *rules)
    return Battle(bf, sc, Dice(2), delivery=InstantDelivery())


def _seen(b: Battle) -> list[bool]:
    return ["lurk" in r.snapshot["seen"]["red"] for r in b.log.bounds]


@pytest.mark.parametrize(("visibility", "seen"), [(150.0, False), (250.0, True)])
def test_fog_hides_an_enemy_beyond_its_distance(minden, visibility: float, seen: bool) -> None:
    """fog: an enemy 200 m off (nearest points) is not seen in a 150 m fog, seen in a 250 m
    one, as it is without fog (6.2: the ground between is open and level)."""
    bf, origin = minden
    clear = _fog_battle(bf, origin)
    gap = clear.sight.distance("watch", "lurk")
    assert 150.0 < gap < 250.0
    clear.run()
    assert all(_seen(clear))
    rule = {"rule": "fog", "visibility_m": visibility, "source": SOURCE}
    b = _fog_battle(bf, origin, rule)
    b.run()
    check_battle(b)
    assert _seen(b) == [seen] * len(b.log.bounds)
    assert _events(b.log, "fog")[0] == (
        1,
        {"type": "fog", "phase": "orders", "rule": "fog", "visibility_m": visibility},
    )


def test_fog_lifts_after_its_bounds(minden) -> None:
    """fog with ``bounds: 2``: hidden while it lies (deployment, bounds 1-2), seen from bound 3,
    the lifting logged as bound 3 begins."""
    bf, origin = minden
    rule = {"rule": "fog", "visibility_m": 150, "bounds": 2, "source": SOURCE}
    b = _fog_battle(bf, origin, rule)
    b.run()
    assert _seen(b)[:3] == [False, False, False]
    assert _seen(b)[3:] == [True] * (len(b.log.bounds) - 3)
    assert [(n, e["visibility_m"]) for n, e in _events(b.log, "fog")] == [(1, 150.0), (3, None)]


# -- loading -----------------------------------------------------------------------------------
def _scenario_file(tmp_path: Path, rules: list[dict[str, Any]], ruleset: str | None = None) -> Path:
    data = yaml.safe_load(scenario_path("homildon_hill_1402").read_text(encoding="utf-8"))
    data["special_rules"] = rules
    if ruleset is not None:
        data["ruleset"] = ruleset
    out = tmp_path / "homildon_rules.yaml"
    out.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return out


@pytest.mark.parametrize(
    ("rule", "said"),
    [
        (
            {"rule": "limited_missle_supply", "volleys": 3, "source": "s"},
            "special_rules.0.rule: expected a special rule, got 'limited_missle_supply' "
            "(did you mean 'limited_missile_supply'?)",
        ),
        (
            {"rule": "fog", "visibilty_m": 100, "source": "s"},
            "special_rules.0.visibilty_m: expected a parameter of fog, got 'visibilty_m' "
            "(did you mean 'visibility_m'?)",
        ),
        ({"rule": "fog", "visibility_m": 100}, "special_rules.0.source: Field required"),
        (
            {
                "rule": "limited_missile_supply",
                "volleys": 3,
                "source": "s",
                "resupply": {"every_bound": 2, "volleys": 1, "source": "s"},
            },
            "special_rules.0.resupply.every_bound: expected a parameter of "
            "limited_missile_supply resupply, got 'every_bound' (did you mean 'every_bounds'?)",
        ),
        (
            {"rule": "limited_missile_supply", "volleys": -1, "source": "s"},
            "special_rules.0.volleys: Input should be greater than or equal to 0, got -1",
        ),
        (
            {
                "rule": "limited_missile_supply",
                "volleys": 3,
                "source": "s",
                "formations": {"en_bow_w": 2},
            },
            "special_rules.0.formations.en_bow_w: expected a formation, got 'en_bow_w' "
            "(did you mean 'en_bows_w'?)",
        ),
    ],
)
def test_a_bad_rule_is_one_line_naming_file_and_rule(
    run_cli, tmp_path: Path, rule: dict[str, Any], said: str
) -> None:
    path = _scenario_file(tmp_path, [rule])
    code, _, err = run_cli("run", str(path), "--seed", "1", "--out", str(tmp_path / "o"))
    assert code != 0
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(path) in lines[0] and said in lines[0], lines[0]


@pytest.fixture
def bookish() -> Any:
    """2mm Earth v0.9 under another name, playing no special rule (a book that has no seam
    for them)."""

    @register
    class Bookish(TwoMmEarthV09):
        name = "bookish-v1"
        aliases = ()
        special_rules = frozenset()

    yield Bookish
    unregister("bookish-v1")


def test_a_rule_the_ruleset_does_not_play_is_refused(run_cli, tmp_path: Path, bookish) -> None:
    path = _scenario_file(tmp_path, [{"rule": "fog", "visibility_m": 100, "source": "s"}])
    code, _, err = run_cli(
        "run", str(path), "--seed", "1", "--ruleset", "bookish-v1", "--out", str(tmp_path / "o")
    )
    assert code != 0 and "Traceback" not in err
    line = err.strip()
    assert "\n" not in line
    assert str(path) in line
    assert "special_rules.0.rule: bookish-v1 does not play special rule fog" in line


def test_rulesets_special_lists_rules_parameters_and_rulesets(run_cli) -> None:
    code, out, _ = run_cli("rulesets", "--special", "--json")
    assert code == 0
    rules = {d["rule"]: d for d in json.loads(out)}
    assert sorted(rules) == [
        "crews_flee",
        "exhaustion",
        "fog",
        "limited_missile_supply",
        "shock_of_charge",
        "surrender",
    ]
    every = ["2mm-earth-v0.7", "2mm-earth-v0.9", "2mm-earth-v0.9+wc-morale", "dark-age"]
    assert rules["fog"]["rulesets"] == [*every, "medieval-d10"]
    assert rules["surrender"]["rulesets"] == every
    assert rules["shock_of_charge"]["rulesets"] == every
    assert rules["crews_flee"]["rulesets"] == every
    assert rules["exhaustion"]["rulesets"] == every[:3]  # not dark-age's rolled moves
    params = {p["name"]: p for p in rules["limited_missile_supply"]["parameters"]}
    assert params["source"]["required"] and params["volleys"]["required"]
    assert "resupply.every_bounds" in params
    assert "Motivation" in rules["fog"]["doc"]
    code, table, _ = run_cli("rulesets", "--special")
    assert code == 0 and "visibility_m" in table


def test_every_shipped_ruleset_declares_what_it_plays() -> None:
    """The seam (docs/special-rules.md, "Rulesets"): every shipped ruleset plays missiles and
    fog; surrender, shock_of_charge and crews_flee every 2mm Earth book and composition,
    exhaustion those with 2mm Earth's speeds (medieval-d10 has its own rout, its own test of
    a charged unit, its own abandoned batteries and its own units)."""
    both = {"surrender", "shock_of_charge", "crews_flee"}
    plays = {
        "2mm-earth-v0.9": {*both, "exhaustion"},
        "2mm-earth-v0.7": {*both, "exhaustion"},
        "2mm-earth+wc-morale": {*both, "exhaustion"},
        "dark-age": both,
        "medieval": set(),
    }
    for name, extra in plays.items():
        got = {str(n) for n in get_ruleset(name).special_rules}
        assert got == {"fog", "limited_missile_supply", *extra}, name


#: the rules the shipped scenarios name, each for what its sources tell (docs/history.md,
#: "Special rules named from the sources"); any other battle plays its book alone
SHIPPED_RULES = {
    "chacabuco_1817": ["surrender"],
    "homildon_hill_1402": ["surrender"],
    "jena_1806": ["surrender"],
    "teutoburg_ad9": ["surrender"],
}


def test_shipped_scenarios_name_only_the_rules_their_sources_tell() -> None:
    """Off unless named: only the battles whose sources count prisoners name ``surrender``,
    for the beaten side alone, its ``source`` naming an author the scenario's
    ``historical_outcome`` cites; every other shipped battle names none. Each loads under its
    own ruleset, so that ruleset plays the rule (one that does not is refused at load)."""
    named: dict[str, list[str]] = {}
    for p in sorted(scenario_path("flodden_1513").parent.glob("*.yaml")):
        sc = load_scenario(p.stem)
        assert sc.historical_outcome is not None
        winner = sc.historical_outcome.winner
        if sc.special_rules:
            named[p.stem] = [str(r.rule) for r in sc.special_rules]
        for r in sc.special_rules:
            beaten = {s.id for s in sc.sides if s.id != winner}
            assert set(getattr(r, "sides", [])) == beaten, p.stem
            cited = sc.historical_outcome.model_dump_json()
            authors = {w.strip(",.:;()") for w in r.source.split() if w[:1].isupper()}
            assert any(len(a) >= 5 and a in cited for a in authors), (p.stem, r.source)
    assert named == SHIPPED_RULES


# -- surrender ---------------------------------------------------------------------------------
def _cut_off(
    bf: Any, origin: Any, *rules: dict[str, Any], ruleset: str = "2mm-earth", seed: int = 1
) -> Battle:
    """Blue's line held between red's attacking column (south) and red's line across its way
    home (north, 10 m behind it): broken, it cannot get away (10.3)."""
    red = [
        {
            "id": "hammer",
            "profile": "guard",
            "bases": 8,
            "frontage": 4,
            "at": (0, 0),
            "facing": 0,
            "order": "attack",
            "target_formation": "trapped",
        },
        {"id": "anvil", "profile": "guard", "bases": 8, "at": (0, 230), "facing": 180},
    ]
    blue = [
        # far off, holding: the battle goes on after the trapped line breaks
        {"id": "reserve", "profile": "inf", "bases": 16, "frontage": 8, "at": (-1200, 600)},
        {"id": "trapped", "profile": "inf", "bases": 8, "at": (0, 200), "facing": 180},
    ]
    sc = make_scenario(red, blue, armies=ARMIES, origin=origin, max_bounds=12, ruleset=ruleset)
    return Battle(bf, _with_rules(sc, *rules), Dice(seed), delivery=InstantDelivery())


def test_a_cut_off_body_surrenders_and_is_counted_captured(minden) -> None:
    """surrender: the broken line whose flight is blocked (10.3) with an enemy upon it yields;
    its living bases are captured, in the casualties and the run's summary. The book alone
    kills it to the last base."""
    from scenario_builder.battle import summarise

    bf, origin = minden
    book = _cut_off(bf, origin)
    book.run()
    assert book.result is not None
    assert book.result["casualties"]["blue"]["captured"] == 0
    assert book.state.formations["trapped"].morale.value == "destroyed"
    assert not _events(book.log, "surrendered")
    b = _cut_off(bf, origin, {"rule": "surrender", "source": SOURCE})
    b.run()
    check_battle(b)
    (bound, e), *more = _events(b.log, "surrendered")
    assert not more
    assert e["rule"] == "surrender" and e["formation"] == "trapped" and e["captor"] == "anvil"
    assert e["bases"]  # some still stood when it was cut off
    blocked = [n for n, r in _events(b.log, "rout") if r["formation"] == "trapped"]
    assert blocked == [bound]  # it yielded as its flight failed
    captured = {k["base"] for n, k in _events(b.log, "killed") if k["by"] == "surrender"}
    assert captured == set(e["bases"])
    assert b.result is not None
    cas = b.result["casualties"]["blue"]
    assert cas["captured"] == len(e["bases"])
    assert cas["killed"] + cas["captured"] == book.result["casualties"]["blue"]["killed"]
    summary = summarise(b.log, b.scenario)
    assert summary["casualties"]["blue"]["captured"] == len(e["bases"])
    # nobody fights a captured base: no melee against the trapped line after it yielded
    assert not [n for n, m in _events(b.log, "melee") if m["target"] == "trapped" and n > bound]


def test_surrender_after_war_and_conquest_s_flee_move(minden) -> None:
    """surrender under War & Conquest's morale (2mm-earth+wc-morale): a unit that failed its
    Resolution test and whose flee move could not get away, the enemy upon it, yields in the
    Resolution; its bases are captured. The book alone captures none on the same seeds (W&C
    kills the fleeing unit its pursuer catches)."""
    bf, origin = minden
    rule = {"rule": "surrender", "source": SOURCE}
    yielded = 0
    for seed in (1, 2, 3):
        book = _cut_off(bf, origin, ruleset="2mm-earth+wc-morale", seed=seed)
        book.run()
        assert book.result is not None
        assert book.result["casualties"]["blue"]["captured"] == 0
        b = _cut_off(bf, origin, rule, ruleset="2mm-earth+wc-morale", seed=seed)
        b.run()
        check_battle(b)
        assert b.result is not None
        given = _events(b.log, "surrendered")
        bases = [x for _, e in given for x in e["bases"]]
        assert b.result["casualties"]["blue"]["captured"] == len(bases)
        assert all(e["phase"] == "resolution" and e["captor"] == "anvil" for _, e in given)
        yielded += bool(given)
    assert yielded  # some seed's flight is blocked before its pursuer catches it


def test_medieval_d10_refuses_surrender(minden) -> None:
    """The d10 book's rout is its own (MORALE TEST RESULT): no seam for surrender, so the
    scenario is refused in one line naming the rule, not fought ignoring it."""
    from scenario_builder.errors import ScenarioFileError

    sc = load_scenario("towton_1461")
    with pytest.raises(ScenarioFileError, match=r"special_rules\.0\.rule: .* surrender") as e:
        Battle(
            build_battlefield(sc).battlefield,
            _with_rules(sc, {"rule": "surrender", "source": SOURCE}),
            Dice(1),
        )
    assert "MORALE TEST RESULT" in str(e.value) and "\n" not in str(e.value)


def test_medieval_d10_refuses_shock_of_charge_with_the_book_s_reason(run_cli, tmp_path) -> None:
    """The d10 book already tests a unit receiving a charge (REASONS TO TAKE A MORALE TEST 3):
    the rule is refused in one line saying so."""
    data = yaml.safe_load(scenario_path("towton_1461").read_text(encoding="utf-8"))
    data["special_rules"] = [{"rule": "shock_of_charge", "unready": True, "source": "s"}]
    path = tmp_path / "towton_shock.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    code, _, err = run_cli("run", str(path), "--seed", "1", "--out", str(tmp_path / "o"))
    assert code != 0 and "Traceback" not in err
    line = err.strip()
    assert "\n" not in line and str(path) in line
    assert "medieval-d10 does not play special rule shock_of_charge" in line
    assert "REASONS TO TAKE A MORALE TEST 3" in line


# -- shock of the charge -----------------------------------------------------------------------
def _charged(bf: Any, origin: Any, seed: int, *rules: dict[str, Any], **kw: Any) -> Battle:
    """Red's foot line, in camp (engine.readiness ``unready``) unless ``ready``, charged in
    front by blue's knights from 300 m in bound 1 (10.2 has no trigger for a frontal charge)."""
    ready = kw.pop("ready", False)
    camp: dict[str, Any] = {"id": "camp", "profile": "inf", "bases": 8, "at": (0, 0)}
    if not ready:
        camp["readiness"] = {"state": "unready"}
    horse = {
        "id": "horse",
        "profile": "cav",
        "bases": 8,
        "at": (0, 300),
        "facing": 180,
        "order": "attack",
        "target_formation": "camp",
    }
    kw.setdefault("max_bounds", 6)
    sc = make_scenario([camp], [horse], armies=ARMIES, origin=origin, **kw)
    return Battle(bf, _with_rules(sc, *rules), Dice(seed), delivery=InstantDelivery())


def _camp_breaks(b: Battle) -> list[tuple[int, str, str]]:
    return [
        (n, e["phase"], e["type"])
        for n, e in _events(b.log, "retreat") + _events(b.log, "rout")
        if e["formation"] == "camp"
    ]


SEEDS = range(1, 7)


def test_an_unready_line_breaks_on_a_charge_only_with_the_rule(minden) -> None:
    """shock_of_charge (``unready: true``) under v0.9: the charged unready line takes 10.5's
    panic test as the charge lands (with 10.2's -1R for troops caught unready), and breaks
    before the melee when the test says so; the book alone never tests it for a frontal
    charge, and the line stands to the first melee on every seed."""
    bf, origin = minden
    rule = {"rule": "shock_of_charge", "unready": True, "source": SOURCE}
    broke = 0
    for seed in SEEDS:
        book = _charged(bf, origin, seed)
        book.run()
        assert not [e for _, e in _events(book.log, "panic_test") if e["formation"] == "camp"]
        assert not [x for x in _camp_breaks(book) if x[0] == 1], seed
        b = _charged(bf, origin, seed, rule)
        b.run()
        check_battle(b)
        tests = [(n, e) for n, e in _events(b.log, "panic_test") if e["formation"] == "camp"]
        (n, test), *_ = tests
        assert (n, test["phase"]) == (1, "execute_moves")
        assert test["triggers"] == ["shock_of_charge", "caught_unready"]
        breaks = [x for x in _camp_breaks(b) if x[0] == 1]
        if test["outcome"] == "none":
            assert not breaks, seed
        else:
            assert breaks == [(1, "execute_moves", test["outcome"])], seed
            broke += 1
    assert 0 < broke < len(SEEDS)  # a test, not a rout: it passes on some dice


def test_raw_troops_test_and_ready_troops_not_marked_do_not(minden) -> None:
    """shock_of_charge by ``formations`` (raw troops), under v0.7 (5.2 rout test): the marked
    line tests when charged though ready; with the rule naming only readiness it does not."""
    bf, origin = minden
    raw = {"rule": "shock_of_charge", "formations": ["camp"], "source": SOURCE}
    only_unready = {"rule": "shock_of_charge", "unready": True, "source": SOURCE}
    b = _charged(bf, origin, 1, raw, ready=True, ruleset="2mm-earth-v0.7")
    b.run()
    tests = [e for _, e in _events(b.log, "panic_test") if e["formation"] == "camp"]
    assert tests and tests[0]["triggers"] == ["shock_of_charge"]
    b = _charged(bf, origin, 1, only_unready, ready=True, ruleset="2mm-earth-v0.7")
    b.run()
    assert not [e for _, e in _events(b.log, "panic_test") if e["formation"] == "camp"]


def test_the_docs_examples_load() -> None:
    """Every YAML example in docs/special-rules.md is a valid special rule (or list of them)."""
    import re

    text = (Path(__file__).parents[1] / "docs" / "special-rules.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 5
    names = []
    for block in blocks:
        data = yaml.safe_load(block)
        entries = data["special_rules"] if isinstance(data, dict) else data
        names += [str(parse_rule(e).rule) for e in entries]
    assert sorted(set(names)) == ["fog", "limited_missile_supply", "shock_of_charge", "surrender"]


def test_rules_replay_byte_for_byte_and_round_trip(homildon) -> None:
    """Same scenario, rules and seed: the same log bytes (STYLE.md 2); the scenario with its
    rules writes to YAML and reads back the same (``Scenario.to_yaml``)."""
    sc, built = homildon
    rules = (
        {"rule": "limited_missile_supply", "volleys": 4, "source": SOURCE},
        {"rule": "fog", "visibility_m": 300, "bounds": 5, "source": SOURCE},
        {"rule": "surrender", "sides": ["scots"], "source": SOURCE},
        {"rule": "shock_of_charge", "formations": ["sc_main"], "source": SOURCE},
    )
    ruled = _with_rules(sc, *rules)
    assert Scenario.from_yaml(ruled.to_yaml()) == ruled
    a, _ = fight(ruled, built, 3)
    b, _ = fight(ruled, built, 3)
    assert a.to_bytes() == b.to_bytes()
    assert {"out_of_missiles", "fog"} <= {e.type for r in a.bounds for e in r.events}


@pytest.mark.parametrize(
    ("scenario", "ruleset"),
    [
        ("maldon_991", "dark-age"),
        ("flodden_1513", "2mm-earth-v0.9+wc-morale"),
        ("flodden_1513", "2mm-earth-v0.7"),
    ],
)
def test_missiles_run_dry_under_the_composed_rulesets(scenario: str, ruleset: str) -> None:
    """limited_missile_supply through the shared 2mm Earth shooting phases, in the versions and
    compositions: no formation shoots more than its volleys, and each that shot them all is
    logged dry on the bound of its last."""
    sc = load_scenario(scenario)
    built = build_battlefield(sc)
    base = _shots(fight(sc, built, 1, ruleset=ruleset)[0], "shot")
    assert max(len(v) for v in base.values()) > 2  # the book alone shoots on
    rule = {"rule": "limited_missile_supply", "volleys": 2, "source": SOURCE}
    log, _ = fight(_with_rules(sc, rule), built, 1, ruleset=ruleset)
    shots = _shots(log, "shot")
    dry = {e["formation"]: b for b, e in _events(log, "out_of_missiles")}
    assert dry
    assert all(len(v) <= 2 for v in shots.values())
    assert {f for f, v in shots.items() if len(v) == 2} == set(dry)
    assert all(max(shots[f]) == b for f, b in dry.items())


@pytest.mark.parametrize("ruleset", ["2mm-earth-v0.9+wc-morale", "dark-age"])
def test_shock_of_charge_in_war_and_conquest_s_resolution(minden, ruleset: str) -> None:
    """shock_of_charge under War & Conquest's morale: the charged unready line takes W&C's
    morale test (2d6 against MV) in the Resolution of the bound the charge lands, with
    ``shock_of_charge`` among its triggers; the book alone makes no test of it then."""
    bf, origin = minden
    rule = {"rule": "shock_of_charge", "unready": True, "source": SOURCE}
    for seed in (1, 2, 3):
        book = _charged(bf, origin, seed, ruleset=ruleset)
        book.run()
        landed = min(n for n, m in _events(book.log, "melee") if m["formation"] == "horse")
        tests = [e for n, e in _events(book.log, "wc_test") if e["formation"] == "camp"]
        assert not [e for e in tests if "shock_of_charge" in e["triggers"]]
        assert not [
            n for n, e in _events(book.log, "wc_test") if n == landed and e["formation"] == "camp"
        ]
        b = _charged(bf, origin, seed, rule, ruleset=ruleset)
        b.run()
        check_battle(b)
        shock = [
            (n, e)
            for n, e in _events(b.log, "wc_test")
            if e["formation"] == "camp" and "shock_of_charge" in e["triggers"]
        ]
        assert [(n, e["phase"]) for n, e in shock] == [(landed, "resolution")], seed
