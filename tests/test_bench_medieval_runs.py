"""``benchmarks/bench_medieval_d10.py`` runs as its docstring says: it had stopped at deployment
once the English troop list named the formation its banner of St Cuthbert stands with (an
``inspirational`` entry, the medieval d10 game's "Commander and Inspirational Figures") and the
benchmark's formations had no such formation. A benchmark nobody can run measures nothing."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_medieval_benchmark_fights_its_thirty_turns() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks/bench_medieval_d10.py"), "3"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    m = re.fullmatch(
        r"medieval-d10 2 x 20 units, (\d+) turns: [\d.]+ s CPU \((\d+) events; result (.+)\)",
        done.stdout.strip(),
    )
    assert m is not None, done.stdout
    turns, events = int(m.group(1)), int(m.group(2))
    # fought, not stopped at once: victory checks are off (rout_fraction 1.0), so the battle
    # runs its 30 turns unless one army is gone, and every turn has events
    assert 1 <= turns <= 30 and events > 10 * turns
