"""scenario_builder.heap: the set-up frozen out of the garbage collector's walks
changes how fast a battle is fought, never what happens in it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# a fresh process per battle: freezing is once per process, and this one's heap is pytest's
_FIGHT = """
import gc, hashlib, sys
from engine.scenario import load_scenario
from scenario_builder.battle import build_battlefield, fight
settle = sys.argv[1] == "settle"
sc = load_scenario("flodden_1513")
log, _ = fight(sc, build_battlefield(sc), 7, max_bounds=6, settle=settle)
print(hashlib.sha256(log.to_json().encode()).hexdigest(), gc.get_freeze_count() > 0)
"""


def _fight(mode: str) -> tuple[str, str]:
    out = subprocess.run(
        [sys.executable, "-c", _FIGHT, mode],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=300,
    ).stdout.split()
    return out[0], out[1]


def test_a_settled_battle_logs_the_same_bytes() -> None:
    settled, froze = _fight("settle")
    plain, froze_plain = _fight("plain")
    assert (froze, froze_plain) == ("True", "False")  # the flag does what it says
    assert settled == plain


def test_freeze_setup_freezes_once_per_process() -> None:
    code = (
        "import gc\nfrom scenario_builder.heap import freeze_setup\n"
        "a = freeze_setup(); n = gc.get_freeze_count(); junk = [[] for _ in range(1000)]\n"
        "b = freeze_setup(); print(a, b, n > 0, gc.get_freeze_count() == n)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.split() == ["True", "False", "True", "True"]
