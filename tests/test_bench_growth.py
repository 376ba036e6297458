"""The scale work's growth benchmark (``benchmarks/bench_engine.py --growth``): the exponent fit and
the call count it rests on, and one-line errors for bad sizes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

from bench_engine import growth_exponent, measure  # noqa: E402


@pytest.mark.parametrize(
    ("sizes", "values", "k"),
    [
        ([30, 60, 120, 240], [1.0, 2.0, 4.0, 8.0], 1.0),
        ([30, 240], [0.5, 0.5 * 8**1.15], 1.15),
        ([30, 60, 120, 240], [2.0, 8.0, 32.0, 128.0], 2.0),
        ([10, 100], [3.0, 3.0], 0.0),
    ],
)
def test_growth_exponent_known_answers(sizes: list[int], values: list[float], k: float) -> None:
    assert growth_exponent(sizes, values) == pytest.approx(k, abs=1e-12)


def test_growth_exponent_is_least_squares_not_the_end_points() -> None:
    # the middle sizes pull the fit: 1, 4, 4, 8 over 30..240 (doublings) is, in units of log 2,
    # y = 0, 2, 2, 3 against x = 0, 1, 2, 3: slope (-1.5*0 - 0.5*2 + 0.5*2 + 1.5*3) / 5 = 0.9,
    # not the end points' 1.0
    k = growth_exponent([30, 60, 120, 240], [1.0, 4.0, 4.0, 8.0])
    assert k == pytest.approx(0.9, abs=1e-12)


def test_growth_exponent_needs_two_sizes() -> None:
    with pytest.raises(ValueError, match="two or more sizes"):
        growth_exponent([30], [1.0])


def test_calls_counts_the_fight_and_grows_with_the_armies() -> None:
    small, large = measure(4, calls=True), measure(8, calls=True)
    assert set(small) == {"per_side", "bases", "bounds", "cpu_s", "calls"}
    assert isinstance(small["calls"], int) and small["calls"] > 1000
    # a battle of twice the formations makes more calls per bound
    assert large["calls"] / large["bounds"] > small["calls"] / small["bounds"]
    assert "calls" not in measure(4)


@pytest.mark.parametrize("sizes", ["30,x", "30", "0,30"])
def test_growth_bad_sizes_one_line_error(sizes: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "bench_engine.py"), "--growth", "--sizes", sizes],
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    err = done.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "--sizes" in err or "--growth" in err


@pytest.mark.slow
def test_growth_runs_end_to_end() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / "bench_engine.py"),
            "--growth",
            "--sizes",
            "4,8",
            "--repeat",
            "1",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    g = json.loads(done.stdout)
    assert g["sizes"] == [4, 8] and len(g["cpu_s_min"]) == 2 and len(g["calls"]) == 2
    assert g["calls"][1] > g["calls"][0]
    assert g["exponent"] == round(growth_exponent([4, 8], g["cpu_s_min"]), 3)


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["--against", "/nonexistent/checkout"], "--against"),
        (["--against", str(BENCH)], "--against"),  # a folder, but no engine in it
        (["--against", str(BENCH.parent), "--per-side", "0"], "--against"),
        (["--per-side", "4", "--engine-root", str(BENCH)], "--engine-root"),
    ],
)
def test_against_bad_checkout_one_line_error(args: list[str], names: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "bench_engine.py"), *args], capture_output=True, text=True
    )
    assert done.returncode != 0
    err = done.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert names in err


@pytest.mark.slow
def test_against_itself_is_the_same_battle() -> None:
    # this checkout against itself: the same engine fights the same battle, so the bounds are
    # equal and the Python calls (which do not depend on the host) all but equal: a child that
    # loads the engine by --engine-root makes a few dozen more or fewer (22,428 against 22,472
    # at 2 x 4; the same command repeats its count exactly)
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / "bench_engine.py"),
            "--against",
            str(BENCH.parent),
            "--per-side",
            "4",
            "--repeat",
            "2",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    a = json.loads(done.stdout)
    assert a["calls"] > 1000 and abs(a["calls"] - a["calls_against"]) <= 0.01 * a["calls"]
    assert a["bounds"] == a["bounds_against"]
    assert len(a["cpu_s"]) == len(a["cpu_s_against"]) == 2
    assert a["ratio_min"] == round(min(a["cpu_s_against"]) / min(a["cpu_s"]), 3)


@pytest.mark.parametrize(
    "args",
    [
        ["--per-side", "4", "--repeat", "0"],
        ["--per-side", "4", "--repeat", "2", "--calls"],
        ["--growth", "--sizes", "4,8", "--repeat", "-1"],
    ],
)
def test_repeat_bad_one_line_error(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "bench_engine.py"), *args], capture_output=True, text=True
    )
    assert done.returncode != 0
    err = done.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "--repeat" in err


def test_per_side_repeat_keeps_the_least_of_fresh_runs() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / "bench_engine.py"),
            "--per-side",
            "4",
            "--repeat",
            "2",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    r = json.loads(done.stdout)
    assert {"per_side", "bases", "bounds", "cpu_s", "cpu_s_runs"} <= set(r)
    assert len(r["cpu_s_runs"]) == 2 and r["cpu_s"] == min(r["cpu_s_runs"])
    assert r["per_side"] == 4 and r["bounds"] > 0


@pytest.mark.parametrize("name", ["nope", "dark-age"])
def test_ruleset_outside_the_2mm_family_one_line_error(name: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "bench_engine.py"), "--per-side", "4", "--ruleset", name],
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    err = done.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and err.startswith("--ruleset")


def test_wc_ruleset_fights_the_benchmark_battle() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / "bench_engine.py"),
            "--per-side",
            "4",
            "--ruleset",
            "2mm-earth-v0.9+wc-morale",
            "--json",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["per_side"] == 4 and out["bounds"] >= 1
