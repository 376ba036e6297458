"""``montecarlo --scheduler ADDRESS`` where ADDRESS is no Dask scheduler: one line, exit 1, in
seconds, and nothing written beside ``--out`` (the check runs before anything is built)."""

from __future__ import annotations

import http.server
import os
import socketserver
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

#: the brief a user can wait for a wrong address (the check's own deadline is 8 s)
LIMIT_S = 15.0


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # no request log in the test
        pass


class _CloseAtOnce(socketserver.BaseRequestHandler):
    def handle(self) -> None:  # accepted, then closed without a byte
        pass


def _serve(server: socketserver.BaseServer) -> Iterator[str]:
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]  # type: ignore[misc]
        yield f"tcp://{host}:{port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def http_server() -> Iterator[str]:
    yield from _serve(http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Quiet))


@pytest.fixture
def closing_server() -> Iterator[str]:
    yield from _serve(socketserver.ThreadingTCPServer(("127.0.0.1", 0), _CloseAtOnce))


def _refused(
    address: str,
    tmp_path: Path,
    run_cli: Callable[..., tuple[int, str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> str:
    """Run the command on ``address``; check the refusal's shape; return its one line."""
    monkeypatch.chdir(tmp_path)
    start = time.monotonic()
    code, out, err = run_cli(
        *["montecarlo", "teutoburg_ad9", "--runs", "2", "--scheduler", address, "--out", "mc"]
    )
    took = time.monotonic() - start
    assert code == 1, (code, out, err)
    assert took < LIMIT_S, took
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"Error: {address}: "), err
    assert "Traceback" not in err and "internal error" not in err
    assert list(tmp_path.iterdir()) == []  # no --out, no temporary folder beside it
    return lines[0]


def test_a_web_server_is_no_scheduler(
    http_server: str, tmp_path: Path, run_cli: Callable[..., tuple[int, str, str]], monkeypatch
) -> None:
    line = _refused(http_server, tmp_path, run_cli, monkeypatch)
    assert "scheduler" in line


def test_a_server_that_hangs_up_is_no_scheduler(
    closing_server: str, tmp_path: Path, run_cli: Callable[..., tuple[int, str, str]], monkeypatch
) -> None:
    line = _refused(closing_server, tmp_path, run_cli, monkeypatch)
    assert "not a Dask scheduler" in line and "MemoryError" not in line


def test_not_an_address(
    tmp_path: Path, run_cli: Callable[..., tuple[int, str, str]], monkeypatch
) -> None:
    line = _refused("not a url", tmp_path, run_cli, monkeypatch)
    assert line.endswith("expected a Dask scheduler address like tcp://HOST:8786")


def test_a_dask_worker_is_no_scheduler() -> None:
    """The address of a worker answers ``identity`` too: told apart by its type."""
    from distributed import LocalCluster

    from scenario_builder.errors import ScenarioError
    from scenario_builder.mc_scheduler import check_scheduler

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        check_scheduler(cluster.scheduler_address)  # the scheduler passes
        worker = next(iter(cluster.scheduler_info["workers"]))
        with pytest.raises(ScenarioError, match="expected a Dask scheduler, got a Dask worker"):
            check_scheduler(worker)


def test_tls_without_the_files(
    tmp_path: Path, run_cli: Callable[..., tuple[int, str, str]], monkeypatch
) -> None:
    """A tls:// address with no TLS files in Dask's configuration: said so, nothing tried."""
    for var in [v for v in os.environ if v.startswith("DASK_DISTRIBUTED__COMM__TLS")]:
        monkeypatch.delenv(var)
    line = _refused("tls://127.0.0.1:1", tmp_path, run_cli, monkeypatch)
    assert "needs the client's TLS files" in line
