"""The demo command, Monte Carlo replays on Dask, and validation against history."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenario_builder.montecarlo import replay, summarize, wilson_interval

# flodden_dir: the built Flodden saved once (tests/conftest.py)


def test_wilson_interval_known_values() -> None:
    # Known answers (Wilson 1927; e.g. Newcombe 1998 table I): 0/10 and 10/10 and 5/10.
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(0, 10)[1] == pytest.approx(0.2775, abs=1e-4)
    assert wilson_interval(10, 10)[0] == pytest.approx(0.7225, abs=1e-4)
    lo, hi = wilson_interval(5, 10)
    assert (lo, hi) == pytest.approx((0.2366, 0.7634), abs=1e-4)


def test_summary_counts_and_history() -> None:
    def row(seed: int, winner: str, bounds: int, la: int, lb: int) -> dict:
        return {
            "seed": seed,
            "winner": winner,
            "bounds": bounds,
            "losses": {"a": la, "b": lb},
            "strength": {"a": 10, "b": 10},
        }

    runs = [row(1, "a", 10, 2, 5), row(2, "b", 12, 6, 1), row(3, "a", 14, 1, 7)]
    s = summarize(runs, ["a", "b"], {"winner": "a"})
    assert s["win_odds"]["a"]["wins"] == 2 and s["win_odds"]["b"]["wins"] == 1
    assert s["win_odds"]["draw"]["wins"] == 0
    assert s["losses"]["a"]["mean"] == 3.0 and s["losses"]["b"]["median"] == 5.0
    assert s["bounds"]["median"] == 12.0
    assert s["historical"]["reproduces_history"] is True
    assert s["historical"]["simulated_mean_loss_ratio"] == {"a:b": pytest.approx(3 / 4.333, 1e-3)}


@pytest.mark.slow  # a Dask cluster: 10-35 s on 2 cores
def test_replay_equals_run_with_the_same_seed(flodden_dir: Path, tmp_path: Path, run_cli) -> None:
    code, out, err = run_cli(
        *["run", "flodden_1513", "--seed", "4", "--out", str(tmp_path), "--json"]
    )
    assert code == 0, err
    summary = json.loads(out)
    r = replay(str(Path("data/scenarios/flodden_1513.yaml").resolve()), str(flodden_dir), 4)
    assert (r["winner"], r["bounds"], r["losses"]) == (
        summary["winner"],
        summary["bounds"],
        summary["losses"],
    )


@pytest.mark.slow  # a Dask cluster: 10-35 s on 2 cores
def test_montecarlo_cli_on_dask(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "mc"
    code, stdout, err = run_cli(
        *[
            "montecarlo",
            "teutoburg_ad9",
            "--runs",
            "4",
            "--workers",
            "2",
            "--seed",
            "11",
            "--out",
            str(out),
            "--json",
        ]
    )
    assert code == 0, err
    s = json.loads(stdout)
    assert s["runs"] == 4 and s["seeds"] == [11, 14] and s["workers"] == 2
    assert sum(v["wins"] for v in s["win_odds"].values()) == 4
    assert s["historical"]["winner"] == "germans"
    runs = json.loads((out / "runs.json").read_text())
    assert [r["seed"] for r in runs] == [11, 12, 13, 14]
    assert (out / "montecarlo.png").stat().st_size > 10_000
    assert (out / "battlefield" / "battlefield.tif").is_file()
    # a Dask replay is the same battle as a local one with that seed
    local = replay(
        str(Path("data/scenarios/teutoburg_ad9.yaml").resolve()), str(out / "battlefield"), 12
    )
    assert (local["winner"], local["losses"]) == (runs[1]["winner"], runs[1]["losses"])


def test_montecarlo_bad_input(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "mc"
    code, _, err = run_cli(*["montecarlo", "no_such_battle", "--runs", "2", "--out", str(out)])
    assert code == 1 and err.startswith("Error: ") and err.count("\n") == 1
    assert "no_such_battle" in err and not out.exists()
    code, _, err = run_cli(*["montecarlo", "teutoburg_ad9", "--runs", "0", "--out", str(out)])
    assert code == 2 and not out.exists()


@pytest.mark.slow
def test_demo_writes_everything_and_reports(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    import maps.battlefield_map as bm

    drawn: list[object] = []
    real = bm.draw_base_map

    def counted(bf: object) -> bm.BaseMap:
        drawn.append(bf)
        return real(bf)  # type: ignore[arg-type]

    monkeypatch.setattr(bm, "draw_base_map", counted)
    out = tmp_path / "demo"
    code, stdout, err = run_cli(*["demo", "--out", str(out), "--json"])
    assert code == 0, err
    assert len(drawn) == 1  # one base map for the terrain page and the playback
    report = json.loads(stdout)
    for name in (
        "battlefield.html",
        "playback.html",
        "layout.pdf",
        "demo.json",
        "run/battle_log.json",
        "battlefield/battlefield.tif",
    ):
        assert (out / name).is_file(), name
    svgs = sorted((out / "layers").glob("*.svg"))
    assert len(svgs) == report["cut_layers"] + 1 > 2  # the boards above the base, and base.svg
    layers = json.loads((out / "layers" / "layers.json").read_text())
    assert report["boards"] == layers["boards"] >= report["cut_layers"] + 1
    assert report["board_thickness_mm"] == pytest.approx(layers["total_thickness_mm"])
    assert report["winner"] in {"scots", "english"}
    assert report["sheets"] >= 1
    log = json.loads((out / "run" / "battle_log.json").read_text())
    assert log["seed"] == 7 and log["scenario"] == "flodden_1513"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "temp dir left behind"


def test_demo_bad_scale_writes_nothing(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "demo"
    code, _, err = run_cli(*["demo", "--out", str(out), "--scale", "2cm"])
    assert code == 1 and err.startswith("Error: ") and err.count("\n") == 1
    assert not out.exists()


@pytest.mark.slow  # a Dask cluster: 10-35 s on 2 cores
def test_montecarlo_on_a_given_scheduler(tmp_path: Path, run_cli) -> None:
    """``--scheduler ADDRESS``: any dask.distributed scheduler, here one started for the test."""
    from dask.distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        out = tmp_path / "mc"
        code, stdout, err = run_cli(
            *[
                "montecarlo",
                "teutoburg_ad9",
                "--runs",
                "2",
                "--scheduler",
                cluster.scheduler_address,
                "--out",
                str(out),
                "--json",
            ]
        )
    assert code == 0, err
    s = json.loads(stdout)
    assert s["runs"] == 2 and s["workers"] == 1


@pytest.mark.slow  # waits out the 10 s connect timeout
def test_montecarlo_unreachable_scheduler_is_one_line(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "mc"
    code, _, err = run_cli(
        *[
            "montecarlo",
            "teutoburg_ad9",
            "--runs",
            "2",
            "--scheduler",
            "tcp://127.0.0.1:9",
            "--out",
            str(out),
        ]
    )
    assert code == 1 and err.startswith("Error: tcp://127.0.0.1:9: ") and err.count("\n") == 1
    assert not out.exists()
