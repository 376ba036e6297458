"""Issue 15: ``montecarlo --scheduler ADDR`` on a cluster started with the README's commands.

``dask scheduler`` and ``dask worker --nworkers N --nthreads 1`` run as their own processes, the
worker in a directory of its own (as on another machine), and the command is given a relative
``--out``: every path a worker is handed must be absolute.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _dask(*args: str, cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))  # this checkout, as the worker's install
    with log.open("wb") as fh:
        return subprocess.Popen(
            [sys.executable, "-m", "dask", *args],  # the `dask` command
            cwd=cwd,
            env=env,
            stdout=fh,
            stderr=subprocess.STDOUT,
        )


@pytest.fixture
def readme_cluster(tmp_path: Path) -> Iterator[str]:
    """``dask scheduler`` + ``dask worker ADDR --nworkers 2 --nthreads 1`` (README, "Monte Carlo
    replays"), the worker started in a directory of its own; yields the scheduler's address."""
    info = tmp_path / "scheduler.json"
    away = tmp_path / "worker_home"
    away.mkdir()
    procs = [
        _dask(
            "scheduler",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(info),
            cwd=tmp_path,
            log=tmp_path / "scheduler.log",
        )
    ]
    try:
        for _ in range(300):
            if info.exists() and info.read_text().strip():
                break
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        procs.append(
            _dask(
                "worker",
                address,
                "--nworkers",
                "2",
                "--nthreads",
                "1",
                "--no-dashboard",
                cwd=away,
                log=tmp_path / "worker.log",
            )
        )
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


@pytest.mark.slow  # a scheduler and two worker processes: ~20 s on 2 cores
def test_montecarlo_on_the_readme_cluster(
    readme_cluster: str, tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dask.distributed import Client

    with Client(readme_cluster, timeout=30) as c:
        c.wait_for_workers(2, timeout=60)
    monkeypatch.chdir(tmp_path)  # --out relative to here, not to the workers' directory
    code, stdout, err = run_cli(
        *["montecarlo", "teutoburg_ad9", "--runs", "6", "--seed", "3", "--scheduler"],
        readme_cluster,
        *["--out", "mc", "--json"],
    )
    assert code == 0, err
    s = json.loads(stdout)
    assert s["runs"] == 6 and s["seeds"] == [3, 8] and s["workers"] == 2
    runs = json.loads((tmp_path / "mc" / "runs.json").read_text())
    assert [r["seed"] for r in runs] == [3, 4, 5, 6, 7, 8]
