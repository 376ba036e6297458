"""Write outputs so that a failure leaves nothing half-written.

A command writes into a temporary sibling (file or directory) and renames it into place only when
everything succeeded.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> with atomic_path(d / "a.txt") as tmp:
...     _ = tmp.write_text("hello")
>>> (d / "a.txt").read_text()
'hello'
>>> try:
...     with atomic_path(d / "b.txt") as tmp:
...         _ = tmp.write_text("half")
...         raise RuntimeError("boom")
... except RuntimeError:
...     pass
>>> sorted(p.name for p in d.iterdir())
['a.txt']
"""

from __future__ import annotations

import contextlib
import errno
import glob
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scenario_builder.errors import DataSourceError, ScenarioError


@contextlib.contextmanager
def _writing(target: Path, tmp: Path | None = None) -> Iterator[None]:
    """Turn an OS error while writing ``target`` (or its temporary ``tmp``) into one line naming
    ``target``: the temporary name means nothing to the user and is gone afterwards."""
    try:
        yield
    except ScenarioError as exc:
        # a file of ours inside the temporary folder: named by the user's path, as it will be
        inside = tmp is not None and exc.source is not None and exc.source.startswith(str(tmp))
        if inside and isinstance(exc, DataSourceError) and exc.source is not None:
            rel = Path(exc.source).relative_to(tmp).as_posix()  # type: ignore[arg-type]
            raise DataSourceError(target / rel, exc.problem) from exc
        raise
    except OSError as exc:
        about = str(exc.filename or "")
        if tmp is None or not about or about.startswith(str(tmp)) or about == str(target):
            raise DataSourceError(target, f"cannot write ({exc.strerror or exc})") from exc
        raise
    except Exception as exc:
        # a library's own error for a full disk (GDAL/OGR through pyogrio and rasterio, SQLite
        # in a GeoPackage): the same one line naming the user's path, not an internal error
        if disk_full(exc) or _nearly_full(target):
            raise DataSourceError(target, "cannot write (no space left on the device)") from exc
        raise


#: what the libraries we write through say when the disk is full
_DISK_FULL = re.compile(r"no space left on device|disk is full|disk full|ENOSPC", re.IGNORECASE)


#: free space below which a write that failed is taken to have failed for want of space (GDAL
#: can lose the reason: a GeoPackage on a full disk fails "to commit transaction")
_NEARLY_FULL_BYTES = 1 << 20


def _nearly_full(target: Path) -> bool:
    """Whether the file system ``target`` is on has less than a MiB free."""
    probe = target
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        return shutil.disk_usage(probe).free < _NEARLY_FULL_BYTES
    except OSError:
        return False


def disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) says the disk is full.

    >>> disk_full(RuntimeError("failed to execute insert : database or disk is full"))
    True
    >>> disk_full(OSError(28, "No space left on device"))
    True
    >>> disk_full(ValueError("expected a number"))
    False
    """
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if (isinstance(e, OSError) and e.errno == errno.ENOSPC) or _DISK_FULL.search(str(e)):
            return True
        e = e.__cause__ or e.__context__
    return False


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary file path beside ``target``; rename it onto ``target`` on success."""
    target = Path(target)
    with _writing(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        # Keep the real suffix last: GDAL picks drivers and warns by extension (.gpkg, .tif).
        fd, tmp = tempfile.mkstemp(
            prefix=f".{target.stem}.", suffix=f".tmp{target.suffix}", dir=target.parent
        )
        os.close(fd)
        tmp_path = Path(tmp)
        # mkstemp makes files 0600; outputs are ordinary files, readable as the umask allows.
        umask = os.umask(0)
        os.umask(umask)
        tmp_path.chmod(0o666 & ~umask)
    try:
        with _writing(target, tmp_path):
            yield tmp_path
            os.replace(tmp_path, target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def check_writable(target: str | os.PathLike[str], option: str = "--out") -> None:
    """Fail early, with one line naming ``option`` and the path, if ``target`` cannot be written.

    The nearest existing ancestor must be a folder we may write in (the rest is created); run
    before any work, so a battle is not fought for output that cannot be saved. Writing can still
    fail later (a full disk); the atomic writers then leave nothing behind.
    """
    target = Path(target)
    # an existing file is replaced atomically through its folder, so the folder is what counts
    probe = target if target.is_dir() else target.parent
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise DataSourceError(target, f"{option}: cannot write here, {probe} is a file")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise DataSourceError(target, f"{option}: cannot write here, {probe} is not writable")


# The file in an output folder that says which command and input wrote it (see claim_out_dir).
STAMP = ".scenario-builder.json"


def claim_out_dir(
    target: str | os.PathLike[str], stamp: dict[str, Any], *, force: bool = False
) -> None:
    """Refuse to write into a non-empty ``--out`` that another run wrote, unless ``force``.

    ``stamp`` names the command and its input (``{"command": "run", "scenario": "flodden_1513"}``);
    a folder stamped the same (the same command re-run, say with another seed) is replaced
    quietly, anything else needs ``--force``. Called before any work, so nothing is computed for
    output that cannot be written.
    """
    target = Path(target)
    if target.exists() and not target.is_dir():
        raise DataSourceError(target, "--out: expected a folder, got a file")
    check_writable(target)
    if force or not target.is_dir() or not any(target.iterdir()):
        return
    try:
        previous = json.loads((target / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        previous = None
    if previous == stamp:
        return
    if isinstance(previous, dict) and previous:
        what = "the output of `" + " ".join(str(v) for v in previous.values()) + "`"
    else:
        what = "files this command did not write"
    raise DataSourceError(
        target, f"--out already holds {what}; pass --force to replace it, or choose another --out"
    )


@contextlib.contextmanager
def atomic_dir(
    target: str | os.PathLike[str],
    *,
    stamp: dict[str, Any] | None = None,
    replace: bool = False,
) -> Iterator[Path]:
    """Yield a temporary directory; on success move each of its entries into ``target``.

    ``target`` may already exist (other files in it are kept unless ``replace``); entries with
    the same name are replaced. ``stamp`` is written as ``STAMP`` (see :func:`claim_out_dir`).
    On failure the temporary directory is removed and ``target`` is untouched.
    """
    target = Path(target)
    # the writer's pid in the name: a later run knows a dead writer's leftovers from a live
    # writer's work (_clear_stale, _refuse_second_writer)
    began = time.time_ns()
    prefix = f".{target.name}.{os.getpid()}.{began}."
    tmp: Path | None = None
    try:
        with _writing(target):
            target.parent.mkdir(parents=True, exist_ok=True)
            _clear_stale(target)
            tmp = Path(tempfile.mkdtemp(prefix=prefix, suffix=".tmp", dir=target.parent))
        _refuse_second_writer(target, tmp, began)
        with _writing(target, tmp):
            yield tmp
        with _writing(target):
            _commit(tmp, target, stamp, replace)
    finally:
        # a Ctrl-C can land after the folder is made and before its name is back: this
        # writer's own prefix (its pid and start) finds it then
        made = [tmp] if tmp is not None else target.parent.glob(f"{glob.escape(prefix)}*.tmp")
        for folder in made:
            shutil.rmtree(folder, ignore_errors=True)


def _writers(target: Path) -> list[tuple[Path, int, int]]:
    """The temporary folders of writers of ``target`` beside it: (folder, the writer's pid,
    when it began, ns), from the folder's name (a folder's own times change as it fills)."""
    out = []
    for p in target.parent.glob(f".{target.name}.*.tmp"):
        parts = p.name[len(target.name) + 2 :].split(".")
        if p.is_dir() and len(parts) > 2 and parts[0].isdigit() and parts[1].isdigit():
            out.append((p, int(parts[0]), int(parts[1])))
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def _clear_stale(target: Path) -> None:
    """Remove the temporary folders that writers of ``target`` which are no longer running left
    beside it (a machine that lost power, a SIGKILL): nobody else will."""
    for p, pid, _began in _writers(target):
        if pid != os.getpid() and not _alive(pid):
            shutil.rmtree(p, ignore_errors=True)


def _refuse_second_writer(target: Path, mine: Path, mine_began: int) -> None:
    """One writer of ``--out`` at a time: a live writer that began first (by the start its
    folder's name records, then pid) keeps it; this one stops with one line, and the first
    one's output is not lost to a second rename over it."""
    for p, pid, began in _writers(target):
        if p == mine or pid == os.getpid() or not _alive(pid):
            continue
        if (began, pid) < (mine_began, os.getpid()):
            raise DataSourceError(
                target,
                f"--out: another scenario-builder command (pid {pid}) is writing here; wait "
                "for it to finish or choose another --out",
            )


def _commit(tmp: Path, target: Path, stamp: dict[str, Any] | None, replace: bool) -> None:
    """Move a finished temporary folder's entries into ``target`` (see :func:`atomic_dir`)."""
    if stamp is not None:
        (tmp / STAMP).write_text(json.dumps(stamp, indent=1), encoding="utf-8")
    target.mkdir(parents=True, exist_ok=True)
    if replace:  # --force: the new output replaces the whole folder, not just its names
        for old in target.iterdir():
            if not (tmp / old.name).exists():
                if old.is_dir() and not old.is_symlink():
                    shutil.rmtree(old)
                else:
                    old.unlink()
    for entry in sorted(tmp.iterdir()):
        dest = target / entry.name
        if dest.is_dir() and not dest.is_symlink():
            shutil.rmtree(dest)
        os.replace(entry, dest)
