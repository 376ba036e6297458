"""SIGTERM (``kill``, ``timeout``, a cancelled CI job) ends a command as Ctrl-C does: the same
clean-up, nothing left beside ``--out``, one line, exit status 143 (docs/errors.md)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_during_a_run_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    """``run gettysburg_1863_day2`` killed 1.5 s in (building the ground or fighting, before
    anything is written): exit 143, ``Terminated.`` on stderr, no ``--out`` and no hidden
    temporary folder beside it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SCENARIO_BUILDER_DEBUG", None)
    p = subprocess.Popen(
        [sys.executable, "-m", "scenario_builder", "run", "gettysburg_1863_day2", "--out", "o"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(1.5)
    assert p.poll() is None, "the run ended before it could be stopped"
    p.send_signal(signal.SIGTERM)
    _out, err = p.communicate(timeout=60)
    lines = [x for x in err.splitlines() if x.strip()]
    assert p.returncode == 143, (p.returncode, err)
    assert lines == ["Terminated."], err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_during_montecarlo_stops_the_workers(tmp_path: Path) -> None:
    """``montecarlo`` killed while its workers replay: exit 143, one line, no ``--out``, and
    no worker process of it left running."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SCENARIO_BUILDER_DEBUG", None)
    args = ["montecarlo", "flodden_1513", "--runs", "400", "--workers", "2", "--out", "m"]
    p = subprocess.Popen(
        [sys.executable, "-m", "scenario_builder", *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(6.0)
    assert p.poll() is None, "the replays ended before they could be stopped"
    workers = _descendants(p.pid)
    assert workers, "the replays run in worker processes"
    p.send_signal(signal.SIGTERM)
    _out, err = p.communicate(timeout=90)
    lines = [x for x in err.splitlines() if x.strip()]
    assert p.returncode == 143, (p.returncode, err)
    assert lines == ["Terminated."], err
    assert list(tmp_path.iterdir()) == []
    deadline = time.monotonic() + 10.0
    while _alive(workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(workers), _alive(workers)


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` now (from ``ps``)."""
    ps = subprocess.run(["ps", "-eo", "pid=,ppid="], capture_output=True, text=True, check=True)
    children: dict[int, list[int]] = {}
    for line in ps.stdout.splitlines():
        c, parent = (int(x) for x in line.split())
        children.setdefault(parent, []).append(c)
    out: set[int] = set()
    todo = [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def _alive(pids: set[int]) -> set[int]:
    left = set()
    for q in pids:
        try:
            with open(f"/proc/{q}/stat", encoding="ascii") as fh:
                if fh.read().split(") ", 1)[1][:1] != "Z":  # a zombie has ended
                    left.add(q)
        except (FileNotFoundError, ProcessLookupError):
            pass
    return left
