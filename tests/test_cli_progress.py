"""Long commands show a bar on a terminal (and nothing when stderr is not one): ``run`` through
the build's stages, its bounds and the writing; ``print`` through its sheets and boards."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _drawn(err: str) -> str:
    return ANSI.sub("", err.replace("\r", "\n"))


def test_run_shows_its_stages_and_bounds_on_a_terminal(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich then treats stderr as a terminal
    code, _, err = run_cli("run", "flodden_1513", "--max-bounds", "3", "--out", tmp_path / "r")
    assert code == 0, err
    drawn = _drawn(err)
    assert re.search(r"run: bound \d of 3", drawn), drawn[-2000:]
    assert "run: writing the log" in drawn
    assert "Error" not in drawn


def test_run_draws_nothing_when_stderr_is_no_terminal(run_cli: Any, tmp_path: Path) -> None:
    code, out, err = run_cli("run", "flodden_1513", "--max-bounds", "2", "--out", tmp_path / "r")
    assert code == 0 and err == "", err
    assert "Wrote" in out


def test_print_counts_its_sheets_and_boards(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run_cli("build", "flodden", "--out", tmp_path / "bf")[0] == 0
    monkeypatch.setenv("FORCE_COLOR", "1")
    code, _, err = run_cli(
        "print",
        tmp_path / "bf",
        "--scale",
        "2mm",
        "--paper",
        "A3",
        "--bbox=-2.19,55.618,-2.18,55.625",
        "--out",
        tmp_path / "t.pdf",
        "--layers",
        tmp_path / "layers",
    )
    assert code == 0, err
    drawn = _drawn(err)
    assert re.search(r"print: (sheet|board) \d+ of \d+", drawn), drawn[-2000:]
