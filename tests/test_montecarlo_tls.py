"""``montecarlo --scheduler tls://...`` with the client's ``--tls-ca-file/--tls-cert/--tls-key``
against a real ``dask scheduler`` and ``dask worker`` on loopback, all three with certificates
from a throw-away CA made by ``openssl`` (docs/montecarlo.md, "Security"): the replays run
over TLS; without the files, or with them for a plain tcp:// address, one line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl not installed"),
]


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _certificates(d: Path) -> None:
    """ca.pem, and for the scheduler, the worker and the client NAME.pem + NAME.key signed by
    it (Dask checks the peer's chain, not its host name)."""
    _openssl(
        *["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"],
        *["-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=sb-test-ca"],
        cwd=d,
    )
    for name in ("scheduler", "worker", "client"):
        _openssl(
            *["req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key"],
            *["-out", f"{name}.csr", "-subj", f"/CN={name}"],
            cwd=d,
        )
        _openssl(
            *["x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key"],
            *["-CAcreateserial", "-out", f"{name}.pem", "-days", "1"],
            cwd=d,
        )


def _tls(d: Path, name: str) -> list[str]:
    return ["--tls-ca-file", str(d / "ca.pem"), "--tls-cert", str(d / f"{name}.pem"),
            "--tls-key", str(d / f"{name}.key")]  # fmt: skip


@pytest.fixture
def tls_cluster(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    certs = tmp_path / "certs"
    certs.mkdir()
    _certificates(certs)
    info = tmp_path / "scheduler.json"
    logs = []
    procs = []

    def start(*args: str, log: str) -> None:
        fh = (tmp_path / log).open("wb")
        logs.append(fh)
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "dask", *args],
                cwd=tmp_path,
                stdout=fh,
                stderr=subprocess.STDOUT,
                env={**os.environ, "TMPDIR": str(tmp_path)},
            )
        )

    start(
        *["scheduler", "--host", "tls://127.0.0.1", "--port", "0", "--no-dashboard"],
        *["--scheduler-file", str(info), *_tls(certs, "scheduler")],
        log="scheduler.log",
    )
    try:
        for _ in range(300):
            if info.exists() and info.read_text().strip():
                break
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        assert address.startswith("tls://"), address
        start(
            *["worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard"],
            *["--host", "127.0.0.1", *_tls(certs, "worker")],
            log="worker.log",
        )
        yield address, certs
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        for fh in logs:
            fh.close()


def test_replays_run_over_tls_with_the_client_files(
    tls_cluster: tuple[str, Path], run_cli: Any, tmp_path: Path
) -> None:
    address, certs = tls_cluster
    out = tmp_path / "mc"
    code, _, err = run_cli(
        *["montecarlo", "flodden_1513", "--runs", "2", "--scheduler", address],
        *_tls(certs, "client"),
        *["--out", str(out), "--json"],
    )
    assert code == 0, err
    runs = json.loads((out / "runs.json").read_text())
    assert [r["seed"] for r in runs] == [1, 2]
    # the same replays as one fought here: TLS carries them, it changes nothing
    code, alone, err = run_cli("run", "flodden_1513", "--seed", "2", "--out", tmp_path / "r",
                               "--json")  # fmt: skip
    assert code == 0, err
    assert runs[1]["winner"] == json.loads(alone)["winner"]
    assert runs[1]["bounds"] == json.loads(alone)["bounds"]


def test_a_tls_scheduler_without_the_client_files_is_one_line(
    tls_cluster: tuple[str, Path], run_cli: Any, tmp_path: Path
) -> None:
    address, _ = tls_cluster
    out = tmp_path / "mc"
    code, _, err = run_cli(
        "montecarlo", "flodden_1513", "--runs", "2", "--scheduler", address, "--out", str(out)
    )
    assert code == 1 and err.count("\n") == 1 and "tls://" in err and "--tls-ca-file" in err, err
    assert not out.exists()


def test_tls_files_for_a_plain_tcp_scheduler_are_a_usage_error(
    run_cli: Any, tmp_path: Path
) -> None:
    pem = tmp_path / "x.pem"
    pem.write_text("not used")
    code, _, err = run_cli(
        *["montecarlo", "flodden_1513", "--runs", "2", "--scheduler", "tcp://127.0.0.1:1"],
        *["--tls-ca-file", str(pem), "--tls-cert", str(pem), "--out", str(tmp_path / "mc")],
    )
    assert code == 2 and "are for a tls:// --scheduler" in err, err
