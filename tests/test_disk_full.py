"""A full disk is one line naming the user's path (docs/errors.md): never a temporary
folder's name, never "internal error" for a library's own words (GDAL through pyogrio says
"database or disk is full", or only "Failed to commit transaction"), and nothing left behind.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from collections import namedtuple
from pathlib import Path
from typing import Any

import pytest

from scenario_builder import atomic
from scenario_builder.atomic import atomic_dir, atomic_path
from scenario_builder.errors import DataSourceError

_Usage = namedtuple("_Usage", "total used free")


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_enospc_inside_the_temporary_folder_names_the_users_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with (
        pytest.raises(DataSourceError) as got,
        atomic_dir(out) as tmp,
        atomic_path(tmp / "sheets" / "a.pdf") as f,
    ):
        raise OSError(errno.ENOSPC, "No space left on device", str(f))
    want = f"{out / 'sheets' / 'a.pdf'}: cannot write (No space left on device)"
    assert str(got.value) == want
    assert not out.exists() and _leftovers(tmp_path) == []


def test_a_librarys_disk_full_words_are_the_same_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(DataSourceError) as got, atomic_dir(out):
        raise RuntimeError("failed to execute insert : database or disk is full")
    assert str(got.value) == f"{out}: cannot write (no space left on the device)"
    assert _leftovers(tmp_path) == []


def test_run_on_a_full_disk_is_one_line_naming_the_out_folder(
    tmp_path: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``run`` whose GeoPackage write fails the way GDAL fails on a full disk (pyogrio's
    "Failed to commit transaction", the reason lost) with the disk all but full: exit 1, one
    line naming the file under ``--out``, nothing beside it."""
    import geopandas
    import pyogrio.errors

    def full(*_a: Any, **_k: Any) -> None:
        raise pyogrio.errors.DataSourceError("Failed to commit transaction")

    monkeypatch.setattr(geopandas.GeoDataFrame, "to_file", full)
    monkeypatch.setattr(atomic.shutil, "disk_usage", lambda p: _Usage(10**9, 10**9 - 4096, 4096))
    out = tmp_path / "run"
    code, _out, err = run_cli(
        "run", "teutoburg_ad9", "--seed", "3", "--max-bounds", "2", "--out", str(out)
    )
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 1 and len(lines) == 1, err
    assert lines[0].startswith(f"Error: {out}/") and "no space left on the device" in lines[0]
    assert ".tmp" not in lines[0] and "internal error" not in lines[0]
    assert not out.exists() and _leftovers(tmp_path) == []


def test_a_real_full_disk(tmp_path: Path) -> None:
    """On a 2 MB tmpfs (where this machine lets us mount one): ``demo`` stops with one line
    naming a file under ``--out`` and leaves the disk as it found it."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    if not shutil.which("mount") or os.geteuid() != 0:
        pytest.skip("needs root to mount a tmpfs")
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mnt)], capture_output=True
    )
    if made.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "scenario_builder", "demo", "--out", str(mnt / "demo")],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp_path,
        )
        lines = [x for x in done.stderr.splitlines() if x.strip()]
        assert done.returncode == 1 and len(lines) == 1, done.stderr[-2000:]
        assert lines[0].startswith(f"Error: {mnt / 'demo'}/"), lines
        assert "no space left on the device" in lines[0].lower()
        assert os.listdir(mnt) == []
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)
