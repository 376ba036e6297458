"""``scenario-builder validate`` and scenario_builder.validation: known answers for the CDB90
envelope (computed here from the shipped table) and the Wilson interval, a real validate run on
shipped ground, and bad input.

The envelope's figures quoted for CDB90 battles up to 1863 (winner 8.3 %, quartiles 4.4-17.9 %;
loser 23.8 %, 15.5-36.1 %; the loser lost the larger share in 81 %) are those of the battles
whose ``wina`` is written, which in this edition are all the attacker's wins; read with the
blanks as the attacker's defeats (scenario_builder.validation.load_cdb90) the envelope
``validate`` uses has 194 battles. Both are pinned, each from the table.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from engine.scenario import load_scenario, shipped_scenario_ids
from scenario_builder.montecarlo import wilson_interval
from scenario_builder.validation import (
    ENVELOPE_LAST_ISQNO,
    CDB90Winner,
    LossKind,
    Quartiles,
    envelope,
    load_cdb90,
)


def one_error_line(err: str) -> str:
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("Error: ") and "Traceback" not in err
    return lines[0]


@pytest.fixture(scope="module")
def table():
    return load_cdb90()


def test_shipped_cdb90_table_is_the_660_battles_with_gettysburg_row(table):
    assert len(table) == 660 and sorted(table) == list(range(1, 661))
    g = table[199]
    assert g.name == "GETTYSBURG" and g.start.startswith("1863-07-01")
    assert g.end.startswith("1863-07-03")
    assert (g.attacker_strength, g.attacker_casualties) == (75054, 28063)  # Confederates
    assert (g.defender_strength, g.defender_casualties) == (83289, 23049)  # Union
    # a blank wina is the attacker's defeat: Lee at Gettysburg, the Spanish at Nieuport 1600
    assert g.winner is CDB90Winner.DEFENDER and not g.winner_recorded
    assert table[1].name == "NIEUPORT" and table[1].winner is CDB90Winner.DEFENDER
    counts = {w: sum(1 for b in table.values() if b.winner is w) for w in CDB90Winner}
    assert counts == {CDB90Winner.ATTACKER: 398, CDB90Winner.DEFENDER: 219, CDB90Winner.DRAW: 43}


def test_cdb90_envelope_to_1863_known_answer_recorded_winners(table):
    """The quoted figures: battles 1-200 (1600-1863) with a written winner, both sides'
    strength and casualties; quartiles by the (n + 1) p rule."""
    env = envelope(table, recorded_winner_only=True)
    assert ENVELOPE_LAST_ISQNO == 200 and env.battles == 113
    assert round(100 * env.winner.median, 1) == 8.3
    assert (round(100 * env.winner.q1, 1), round(100 * env.winner.q3, 1)) == (4.4, 17.9)
    assert round(100 * env.loser.median, 1) == 23.8
    assert (round(100 * env.loser.q1, 1), round(100 * env.loser.q3, 1)) == (15.5, 36.1)
    assert round(100 * env.loser_larger) == 81


def test_cdb90_envelope_validate_uses_counts_the_defenders_wins_too(table):
    env = envelope(table)
    assert env.battles == 194  # the 113 attacker's wins and 81 defender's
    assert round(100 * env.winner.median, 1) == 8.4
    assert (round(100 * env.winner.q1, 1), round(100 * env.winner.q3, 1)) == (4.8, 17.4)
    assert round(100 * env.loser.median, 1) == 23.1
    assert (round(100 * env.loser.q1, 1), round(100 * env.loser.q3, 1)) == (13.0, 35.0)
    assert round(100 * env.loser_larger) == 81
    # CDB90's duplicated rows (``parent``) are all after 1863: leaving them out changes nothing
    assert not [q for q, b in table.items() if q <= 200 and b.duplicate_of is not None]
    assert len([b for b in table.values() if b.duplicate_of is not None]) == 36


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Stat. Med.
    # 17:857, table I, method 3 (Wilson score, no continuity correction)
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_interval_known_answers(k, n, lo, hi):
    a, b = wilson_interval(k, n)
    assert (round(a, 4), round(b, 4)) == (lo, hi)


def test_quartiles_are_the_n_plus_1_order_statistics():
    q = Quartiles.of([10, 20, 30, 40])  # positions 1.25, 2.5, 3.75
    assert (q.q1, q.median, q.q3) == (12.5, 25.0, 37.5)


def test_shipped_scenarios_cdb90_rows_exist_and_name_the_attacker(table):
    named = {}
    for sid in shipped_scenario_ids():
        sc = load_scenario(sid)
        ref = sc.historical_outcome.cdb90 if sc.historical_outcome else None
        if ref is None:
            continue
        b = table[ref.isqno]
        assert b.start[:4] == sc.date[:4], sid  # the same year's battle
        assert ref.attacker in [s.id for s in sc.sides]
        named[sid] = ref.isqno
    # CDB90 starts in 1600: of the shipped battles Minden, Jena and Gettysburg are in it
    # (Chacabuco 1817, looked up by name and date, is not; the rest are before 1600)
    assert named == {"gettysburg_1863_day2": 199, "jena_1806": 118, "minden_1759": 75}
    assert not [b for b in table.values() if "CHACABUCO" in b.name]


def test_schema_shows_the_cdb90_reference_and_duration(run_cli):
    code, out, _ = run_cli("schema")
    assert code == 0
    defs = json.loads(out)["$defs"]
    assert "isqno" in defs["CDB90Ref"]["properties"]
    assert "hours" in defs["HistoricalDuration"]["properties"]


@pytest.fixture(scope="module")
def flodden_run(tmp_path_factory):
    """``validate flodden_1513 --runs 3 --workers 1`` on the shipped ground, once."""
    from scenario_builder.cli import main

    out = tmp_path_factory.mktemp("val") / "out"
    try:
        main(["validate", "flodden_1513", "--runs", "3", "--workers", "1", "--out", str(out)])
    except SystemExit as exc:
        assert exc.code in (0, None)
    return out


def test_validate_flodden_writes_report_with_winner_losses_duration_cdb90(flodden_run):
    r = json.loads((flodden_run / "validation.json").read_text())
    assert r["scenario"] == "flodden_1513" and r["runs"] == 3 and r["seeds"] == [1, 3]
    rows = r["replays"]
    assert [x["seed"] for x in rows] == [1, 2, 3]
    # winner: the English (history) share with its Wilson interval
    w = r["winner"]
    wins = sum(1 for x in rows if x["winner"] == "english")
    assert w["historical"] == "english" and w["wins"] == wins
    assert w["ci95"] == [round(v, 4) for v in wilson_interval(wins, 3)]
    assert sum(w["counts"].values()) - w["counts"]["stalled"] == 3
    # losses by kind, killed against killed (the sources give the killed only), in men of the
    # foot and horse: the guns are pieces
    for side, strength in (("scots", 60), ("english", 44)):
        row = r["losses"][side]
        assert row["strength_bases"] == strength and row["men_per_base"] == 600
        assert row["strength_men"] == 600 * (strength - (4 if side == "scots" else 3))
        assert set(row["lost_bases_by_kind"]) == {k.value for k in LossKind}
        assert row["compared_kinds"] == ["killed"] and list(row["by_kind"]) == ["killed"]
        men = sorted(x["lost_men"][side]["killed"] for x in rows)
        assert all(m % 600 == 0 for m in men) and row["lost_men"]["median"] == men[1]
        lo, hi = row["sources"]["band_men"]
        assert row["share_in_band"] == round(sum(lo <= m <= hi for m in men) / 3, 4)
    assert r["losses"]["english"]["sources"]["band_men"] == [1500, 1500]
    # the Scottish guns in pieces (4.25 a base) against the 17-22 the sources say were taken
    guns = r["losses"]["scots"]["guns"]
    assert guns["band_pieces"] == [17, 22]
    # guns lost: taken, destroyed or abandoned; an injured gun base still stands
    pieces = sorted(
        sum(n for k, n in x["lost_pieces"]["scots"].items() if k != "wounded") for x in rows
    )
    assert all(p / 4.25 == int(p / 4.25) for p in pieces)
    assert guns["lost_pieces"]["median"] == pieces[1]
    # duration: 2mm Earth's bound is one minute; the sources' 2-3.25 h
    d = r["duration"]
    assert d["bound_minutes"] == 1.0 and d["sources"]["hours"] == [2.0, 3.25]
    assert d["game_minutes"]["median"] == sorted(x["bounds"] for x in rows)[1]
    assert all(x["game_minutes"] == x["bounds"] for x in rows)
    # CDB90: the envelope and the replays' shares, all kinds lost over the bases
    c = r["cdb90"]
    assert c["envelope"]["battles"] == 194 and c["battle"] is None
    for x in rows:
        for side, strength in (("scots", 60), ("english", 44)):
            assert x["loss_share"][side] == round(sum(x["lost_bases"][side].values()) / strength, 4)
    decided = [x for x in rows if x["winner"]]
    assert c["replays"]["decided"] == len(decided)
    larger = sum(
        x["loss_share"][next(s for s in x["loss_share"] if s != x["winner"])]
        > x["loss_share"][x["winner"]]
        for x in decided
    )
    assert c["replays"]["loser_lost_larger_share"] == round(larger / len(decided), 4)


def test_validate_flodden_figure_is_a_drawn_png(flodden_run):
    import numpy as np
    from matplotlib.image import imread

    png = flodden_run / "validation.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    img = imread(png)
    assert img.shape[:2] == (988, 936)  # 7.2 x 7.6 in at 130 dpi
    # not blank: the envelope's grey, the replays' blue or orange and the sources' red are drawn
    rgb = (img[..., :3] * 255).round().astype(int).reshape(-1, 3)
    colours = {tuple(c) for c in np.unique(rgb, axis=0)}
    assert (176, 176, 176) in colours  # CDB90 battles
    assert len(colours) > 50


def test_validate_compares_gettysburg_with_its_cdb90_row(table):
    """The battle's own row, by the stated attacker: replays' results shaped as the engine
    writes them (a Union win losing 10 of 40 bases to 25 of 50)."""
    from scenario_builder.validation import validate

    sc = load_scenario("gettysburg_1863_day2")
    result = {
        "seed": 1,
        "winner": "union",
        "bounds": 30,
        "losses": {"union": 8, "confederates": 20},
        "casualties": {
            "union": {"killed": 8, "wounded": 2, "captured": 0},
            "confederates": {"killed": 20, "wounded": 3, "captured": 2},
        },
        "strength": {"union": 40, "confederates": 50},
        "men_per_base": {"union": 400.0, "confederates": 400.0},
    }
    r = validate(sc, [result], ruleset="2mm-earth-v0.9", bound_minutes=1.0, table=table)
    b = r["cdb90"]["battle"]
    assert b["isqno"] == 199 and b["winner"] == "union" and "1-3 July" in b["note"]
    assert b["sides"]["confederates"]["role"] == "attacker"
    assert b["sides"]["confederates"]["loss_share"] == round(28063 / 75054, 4)
    assert b["sides"]["union"]["loss_share"] == round(23049 / 83289, 4)
    assert b["sides"]["union"]["replays_loss_share"]["median"] == 0.25
    assert r["losses"]["union"]["lost_men"]["median"] == 4000  # a total: wounded count
    assert r["duration"]["share_in_band"] == 0.0  # 30 min against 3.5-4.5 h


# -- bad input: one line, a documented status, nothing written, no cluster -------------------


@pytest.fixture()
def no_cluster(monkeypatch):
    import scenario_builder.montecarlo as mc

    def refuse(*_a, **_k):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr(mc, "run_replays", refuse)


def test_unknown_scenario_is_one_line_exit_1(run_cli, tmp_path, no_cluster):
    code, _, err = run_cli("validate", "no_such_battle", "--runs", "3", "--out", tmp_path / "v")
    assert code == 1 and "no_such_battle" in one_error_line(err)
    assert not (tmp_path / "v").exists()


@pytest.mark.parametrize("runs", ["0", "-5", "100001"])
def test_runs_out_of_range_is_a_usage_error_exit_2(run_cli, tmp_path, runs, no_cluster):
    code, _, err = run_cli("validate", "flodden_1513", "--runs", runs, "--out", tmp_path / "v")
    line = one_error_line(err)
    assert code == 2 and "--runs" in line and runs in line
    assert not (tmp_path / "v").exists()


def test_unwritable_out_is_one_line_before_any_work(run_cli, tmp_path, no_cluster):
    f = tmp_path / "a_file"
    f.write_text("not a folder")
    t0 = time.perf_counter()
    code, _, err = run_cli("validate", "flodden_1513", "--runs", "3", "--out", f / "out")
    assert code == 1
    assert f"{f / 'out'}: --out: cannot write here, {f} is a file" in one_error_line(err)
    assert time.perf_counter() - t0 < 15


def test_isqno_not_in_cdb90_names_the_scenario_before_the_ground(
    run_cli, tmp_path, no_cluster, monkeypatch
):
    import scenario_builder.battle as battle

    def no_ground(*_a, **_k):
        raise AssertionError("the ground was built")

    monkeypatch.setattr(battle, "build_battlefield", no_ground)
    src = Path(load_scenario("gettysburg_1863_day2").path)
    text = src.read_text(encoding="utf-8").replace("isqno: 199", "isqno: 9999")
    bad = tmp_path / "g.yaml"
    bad.write_text(text, encoding="utf-8")
    # the battlefield slug and troop lists by id resolve from the data folder
    code, _, err = run_cli("validate", bad, "--runs", "2", "--out", tmp_path / "v")
    line = one_error_line(err)
    assert code == 1 and str(bad) in line and "got 9999" in line
    assert not (tmp_path / "v").exists()


def test_cdb90_attacker_must_be_a_side(tmp_path):
    from scenario_builder.errors import ScenarioFileError

    src = Path(load_scenario("gettysburg_1863_day2").path)
    bad = tmp_path / "g.yaml"
    text = src.read_text(encoding="utf-8").replace("attacker: confederates", "attacker: rebels")
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioFileError, match=r"cdb90.*attacker.*expected a side"):
        load_scenario(bad)
