"""The pursuit after the break (11.1), killed / wounded / captured, and
historical outcomes as data set against the replays in men.

Fought on the shipped Halidon Hill 1333 scenario (OS Terrain 50 ground), the battle the pursuit
decided: the Scots broke on the slope and died in the flight.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.log import Destroyed
from engine.rulesets import get_ruleset
from engine.scenario import HistoricalOutcome, SideLosses, load_scenario
from scenario_builder.build import build_site
from scenario_builder.errors import ScenarioFileError
from scenario_builder.montecarlo import comparable_bases, summarize

SEED = 1


@pytest.fixture(scope="module")
def halidon() -> tuple:
    sc = load_scenario("halidon_hill_1333")
    return sc, build_site("halidon_hill").battlefield


def _fight(sc, bf, pursuit_bounds: int) -> Battle:
    sc = copy.deepcopy(sc)
    sc.victory.pursuit_bounds = pursuit_bounds
    battle = Battle(bf, sc, Dice(SEED))
    battle.run()
    return battle


def test_11_1_pursuit_adds_losses_after_the_break(halidon) -> None:
    sc, bf = halidon
    stop = _fight(sc, bf, 0)
    chase = _fight(sc, bf, sc.victory.pursuit_bounds)
    r0, r1 = stop.log.result, chase.log.result
    # the same battle up to the break: decided in the same bound with the same losses
    assert r1["decided_bound"] == r0["bounds"]
    assert r1["losses_at_break"] == r0["losses"]
    assert r1["winner"] == r0["winner"] == "english"
    # then the pursuit runs on and the broken side loses more (the remounted men-at-arms)
    assert 0 < r1["pursuit_bounds"] <= sc.victory.pursuit_bounds
    assert r1["bounds"] == r1["decided_bound"] + r1["pursuit_bounds"]
    assert r1["losses"]["scots"] > r1["losses_at_break"]["scots"], r1
    pursuers = {
        e.formation
        for rec in chase.log.bounds[r1["decided_bound"] :]
        for e in rec.events
        if e.type == "pursuit"
    }
    assert pursuers and all(f.startswith("en_") for f in pursuers)
    # without pursuit_bounds nothing of this is in the result
    assert "decided_bound" not in r0 and "pursuit_bounds" not in r0


def test_aftermath_orders_the_broken_army_off_and_generals_stop(halidon) -> None:
    sc, bf = halidon
    battle = _fight(sc, bf, sc.victory.pursuit_bounds)
    at = battle.log.result["decided_bound"]
    first = battle.log.bounds[at].snapshot["formations"]
    after = battle.log.bounds[at + 1]
    # 10.2 "must retreat if ordered to retreat": every Scottish formation still standing is broken
    assert all(v["morale"] != "steady" for k, v in first.items() if k.startswith("sc_"))
    # no general issues orders once the battle is decided (the book's pursuit runs itself)
    assert not [e for e in after.events if e.type == "order_issued"]


def test_casualties_split_killed_wounded_captured(halidon) -> None:
    sc, bf = halidon
    battle = _fight(sc, bf, sc.victory.pursuit_bounds)
    res = battle.log.result
    last = battle.log.bounds[-1].snapshot["bases"]
    caught = {
        b
        for rec in battle.log.bounds
        for e in rec.events
        if isinstance(e, Destroyed) and e.reason.startswith("11.1 routed into enemy")
        for b in e.bases
    }
    for side, cas in res["casualties"].items():
        # killed + captured are the dead bases; wounded the injured ones still on the table
        assert cas["killed"] + cas["captured"] == res["losses"][side]
        injured = sum(
            1
            for bid, b in last.items()
            if b["state"] == "injured" and bid.startswith("sc_" if side == "scots" else "en_")
        )
        assert cas["wounded"] == injured
        assert cas["captured"] <= len(caught)


def test_a_ruleset_without_pursuit_stops_at_the_break() -> None:
    """The base Ruleset's hooks: no pursuit rule, so the pursuit is over at once and every dead
    base is killed (a book that does not tell killed from captured)."""
    from engine.rulesets import Ruleset

    rs = get_ruleset("2mm-earth-v0.9")
    assert Ruleset.pursuit_over(rs, None) is True  # type: ignore[arg-type]
    assert Ruleset.begin_aftermath(rs, None) == []  # type: ignore[arg-type]


def test_historical_band_validation_names_file_and_line(tmp_path: Path) -> None:
    src = Path("data/scenarios/halidon_hill_1333.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(src.replace("killed: [2000, 10000]", "killed: [10000, 2000]"), encoding="utf-8")
    with pytest.raises(ScenarioFileError, match=r"bad\.yaml: line \d+: .*low <= high"):
        load_scenario(bad)
    bad.write_text(src.replace("winner: english", "winner: englsh"), encoding="utf-8")
    with pytest.raises(ScenarioFileError, match=r"did you mean 'english'"):
        load_scenario(bad)
    typo = src.replace("    scots:\n      killed: [2000", "    scotts:\n      killed: [2000")
    bad.write_text(typo, encoding="utf-8")
    with pytest.raises(ScenarioFileError, match=r"did you mean 'scots'"):
        load_scenario(bad)


def test_side_losses_bands() -> None:
    s = SideLosses(killed=(500, 500), captured=(600, 600))
    assert s.given() == ("killed", "captured") and s.band() == (1100, 1100)
    t = SideLosses(total=(7673, 7673))
    assert t.given() == ("killed", "wounded", "captured") and t.band() == (7673, 7673)
    with pytest.raises(ValueError, match="at least one"):
        SideLosses(note="nothing given")


def test_montecarlo_losses_in_men_against_the_band() -> None:
    hist = HistoricalOutcome(
        winner="a",
        losses={
            "a": SideLosses(killed=(100, 200)),
            "b": SideLosses(killed=(1000, 2000), captured=(0, 1000)),
        },
    ).model_dump(mode="json")

    def row(seed: int, winner: str, a: tuple[int, int, int], b: tuple[int, int, int]) -> dict:
        cas = {
            s: {"killed": k, "wounded": w, "captured": c} for s, (k, w, c) in (("a", a), ("b", b))
        }
        return {
            "seed": seed,
            "winner": winner,
            "bounds": 10,
            "strength": {"a": 20, "b": 20},
            "losses": {"a": a[0] + a[2], "b": b[0] + b[2]},
            "casualties": cas,
            "men_per_base": {"a": 100.0, "b": 100.0},
        }

    runs = [
        row(1, "a", (1, 5, 0), (10, 0, 5)),  # a 100 men, b 1500: ratio 15 (band 5-30)
        row(2, "a", (3, 0, 0), (2, 0, 0)),  # a 300 (outside), b 200 (outside): ratio 0.67
        row(3, "b", (2, 0, 0), (12, 1, 8)),
    ]  # a 200, b 2000: ratio 10
    # wounded are not counted where the band gives killed (and captured) only
    assert comparable_bases(runs[0], "a", ("killed",)) == 1
    s = summarize(runs, ["a", "b"], hist)["historical"]
    men = s["losses_in_men"]
    assert men["a"]["band"] == [100, 200] and men["a"]["share_in_band"] == pytest.approx(
        2 / 3, 1e-3
    )
    assert men["b"]["band"] == [1000, 3000] and men["b"]["share_in_band"] == pytest.approx(
        2 / 3, 1e-3
    )
    assert men["b"]["simulated_men"]["median"] == 1500
    ratio = s["loss_ratio"]
    assert ratio["of"] == "b:a" and ratio["band"] == [5.0, 30.0]
    assert ratio["median"] == pytest.approx(10.0) and ratio["share_in_band"] == pytest.approx(
        2 / 3, 1e-3
    )


def test_shipped_outcomes_are_data() -> None:
    for sid in ("flodden_1513", "teutoburg_ad9", "gettysburg_1863_day2"):
        sc = load_scenario(sid)
        hist = sc.historical_outcome
        assert isinstance(hist, HistoricalOutcome) and hist.winner in {s.id for s in sc.sides}
        assert sc.men_per_base and hist.losses
        for band in hist.losses.values():
            assert band.sources and band.band()[0] <= band.band()[1]
