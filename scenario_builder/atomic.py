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
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary file path beside ``target``; rename it onto ``target`` on success."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    # Keep the real suffix last: GDAL picks drivers and warns by extension (.gpkg, .tif).
    fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=f".tmp{target.suffix}",
                               dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    # mkstemp makes files 0600; outputs are ordinary files, readable as the umask allows.
    umask = os.umask(0)
    os.umask(umask)
    tmp_path.chmod(0o666 & ~umask)
    try:
        yield tmp_path
        os.replace(tmp_path, target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


@contextlib.contextmanager
def atomic_dir(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary directory; on success move each of its entries into ``target``.

    ``target`` may already exist (other files in it are kept); entries with the same name are
    replaced. On failure the temporary directory is removed and ``target`` is untouched.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        yield tmp
        target.mkdir(parents=True, exist_ok=True)
        for entry in sorted(tmp.iterdir()):
            dest = target / entry.name
            if dest.is_dir() and not dest.is_symlink():
                shutil.rmtree(dest)
            os.replace(entry, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
