"""Every script in ``benchmarks/`` runs as its docstring says, from an empty folder on the
installed package, and prints its report. ``bench_medieval_d10.py`` had stopped at deployment
once the English troop list named the formation its banner of St Cuthbert stands with (an
``inspirational`` entry, the medieval d10 game's "Commander and Inspirational Figures") while the
benchmark's formations had no such formation, and nothing ran it: a benchmark nobody can run
measures nothing. The figures themselves are not checked here (performance is measured, never
timed in tests); the report lines are, so a script that stops early or prints nothing fails."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    return done.stdout


@pytest.mark.slow
def test_medieval_benchmark_fights_its_thirty_turns(tmp_path: Path) -> None:
    # run as its docstring says (PYTHONPATH at the checkout)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = _run([str(BENCH / "bench_medieval_d10.py"), "3"], tmp_path, env)
    m = re.fullmatch(
        r"medieval-d10 2 x 20 units, (\d+) turns: [\d.]+ s CPU \((\d+) events; result (.+)\)",
        out.strip(),
    )
    assert m is not None, out
    turns, events = int(m.group(1)), int(m.group(2))
    # fought, not stopped at once: victory checks are off (rout_fraction 1.0), so the battle
    # runs its 30 turns unless one army is gone, and every turn has events
    assert 1 <= turns <= 30 and events > 10 * turns


# (script and its smallest honest arguments, a line its report must hold)
SCRIPTS = [
    (["bench_build.py", "flodden", "--repeat", "1"], r"(?m)^flodden\s+156,025\s+25\s"),
    (["bench_routing.py", "flodden", "--pairs", "2"], r"(?m)^flodden\s+156025\s"),
    (["bench_dice.py"], r"(?m)^panic_test v0\.9 \(2 dice\)\s+[\d.]+ M tests/s$"),
    (
        ["bench_montecarlo.py", "flodden_1513", "4", "2", "2"],
        r"replay time in workers / in process \(seeds 1-2\): [\d.]+",
    ),
    (["bench_print.py"], r"(?m)^print\s+[\d.]+ s \(layout \+ layers"),
    (
        ["bench_dark_age.py", "--growth", "--sizes", "4,8", "--log-hash"],
        r"(?m)^dark-age 2 x 8 units, \d+ bounds: [\d.]+ s CPU \(\d+ events; .*\) log [0-9a-f]{16}$",
    ),
    (
        ["bench_medieval_d10.py", "--growth", "--sizes", "4,8"],
        r"(?m)^growth N\^[\d.-]+ over 4,8 units a side$",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("args", "report"), SCRIPTS, ids=[s[0][0] for s in SCRIPTS])
def test_benchmark_script_runs_and_reports(args: list[str], report: str, tmp_path: Path) -> None:
    out = _run([str(BENCH / args[0]), *args[1:]], tmp_path)
    assert re.search(report, out), out[-2000:]


@pytest.mark.slow
@pytest.mark.browser
def test_playback_benchmark_opens_the_page(tmp_path: Path) -> None:
    out = _run([str(BENCH / "bench_playback.py")], tmp_path)
    assert re.search(r"(?m)^open in chromium: median [\d.]+ s", out), out
    assert re.search(r"(?m)^write playback \(fog=True\): [\d.]+ s, [\d.]+ MB$", out), out
