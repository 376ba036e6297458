"""What a Monte Carlo worker needs to replay a battle, as bytes: the files the scenario loader
read on the head (the scenario, its plan files, its troop lists) and the built battlefield.

A worker of a ``--scheduler`` cluster may run on another machine, with the package installed at
another path and no file system shared with the head, so it is handed no path of the head's: the
bundle travels inside the worker plugin (``scenario_builder.mc_preload.Preload``), keyed by a
hash of its content, and each worker writes it once into its own scratch folder and loads the
battle from there. The scenario's files keep their places relative to one another, so a plan
file or troop list named relative to the scenario is found beside it as on the head.

>>> b = Bundle((("s/a.yaml", b"id: a"),), "s/a.yaml", (), (("battlefield.json", b"{}"),))
>>> len(b.key), b.key == Bundle(b.files, b.scenario, b.plans, b.battlefield).key
(64, True)
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from scenario_builder.errors import ScenarioError

#: relative file name -> content
Files = tuple[tuple[str, bytes], ...]
#: ``--plan SIDE=FILE`` pairs
Plans = tuple[tuple[str, str], ...]
#: written last into a materialised bundle: the folder is whole (a worker killed mid-write
#: leaves a folder without it, which the next one writes again)
COMPLETE = ".complete"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Bundle:
    """The scenario's files (``scenario`` and the plan files of ``plans`` among them) and the
    battlefield's, each by a relative name; ``key`` is a hash of all of it."""

    files: Files
    scenario: str
    plans: Plans
    battlefield: Files
    key: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        digest = {
            "files": [[n, _sha(b)] for n, b in self.files],
            "scenario": self.scenario,
            "plans": [list(p) for p in self.plans],
            "battlefield": [[n, _sha(b)] for n, b in self.battlefield],
        }
        key = _sha(json.dumps(digest, sort_keys=True).encode())
        object.__setattr__(self, "key", key)

    @property
    def size(self) -> int:
        """Bytes of content (what each worker is sent)."""
        return sum(len(b) for _, b in (*self.files, *self.battlefield))

    def folder(self, under: Path) -> Path:
        """Where :func:`materialise` writes this bundle under ``under``."""
        return under / f"scenario-builder-{self.key[:16]}"

    def local(self, root: Path) -> tuple[str, str, Plans]:
        """The scenario file, battlefield folder and ``--plan`` files in a materialised copy."""
        files = root / "files"
        plans = tuple((side, str(files / name)) for side, name in self.plans)
        return str(files / self.scenario), str(root / "battlefield"), plans

    def check_reads(self, root: Path, reads: Iterable[Path]) -> None:
        """Every file a worker read outside its copy (a troop list named by id, found in its
        own installed data) must be one the head read: the same bytes, or the replays would
        differ from the head's ``run`` without a word."""
        known = {_sha(b) for _, b in self.files}
        inside = root.resolve()
        for path in reads:
            p = Path(path).resolve()
            if p.is_relative_to(inside):
                continue
            if _sha(p.read_bytes()) not in known:
                raise ScenarioError(
                    p,
                    "differs from the file the head read: install the same scenario-builder "
                    "version on every Dask worker",
                )


def pack(scenario_file: Path, reads: Iterable[Path], plans: Plans, battlefield_dir: Path) -> Bundle:
    """A bundle of the files read (``reads``: :func:`engine.yamlio.recording_reads` around the
    head's load) and the battlefield's. The scenario and the files it names lie under ``tree/``
    as they lie relative to the folder that holds them all, so relative names in the scenario
    still find them; a ``--plan`` file, named by no other file, goes as ``plan/SIDE/NAME``."""
    read = Counter(Path(p).resolve() for p in (scenario_file, *reads))
    # a --plan file is in the tree too when something else read it (the scenario names it)
    read.subtract(Path(f).resolve() for _, f in plans)
    tree = sorted(p for p, n in read.items() if n > 0)
    top = Path(os.path.commonpath([p.parent for p in tree]))

    def name(p: str | Path) -> str:
        return "tree/" + Path(p).resolve().relative_to(top).as_posix()

    files = [(name(p), p.read_bytes()) for p in tree]
    named = tuple((side, f"plan/{side}/{Path(f).name}") for side, f in plans)
    files += [(n, Path(f).read_bytes()) for (_, n), (_, f) in zip(named, plans, strict=True)]
    bf = Path(battlefield_dir)
    ground = tuple(
        (p.relative_to(bf).as_posix(), p.read_bytes()) for p in sorted(bf.rglob("*")) if p.is_file()
    )
    return Bundle(tuple(sorted(files)), name(scenario_file), named, ground)


def _safe(name: str) -> PurePosixPath:
    """A bundle name as a path that stays inside the folder it is written to."""
    p = PurePosixPath(name)
    if p.is_absolute() or ".." in p.parts or not p.parts:
        raise ScenarioError(name, "expected a relative file name in a Monte Carlo bundle")
    return p


def materialise(bundle: Bundle, under: Path) -> Path:
    """Write ``bundle`` under ``under`` (once: a whole copy already there is reused); returns
    its folder. Written to a temporary folder and renamed, so a copy is whole or absent."""
    root = bundle.folder(under)
    if (root / COMPLETE).is_file():
        return root
    under.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".partial-", dir=under))
    try:
        for base, files in (("files", bundle.files), ("battlefield", bundle.battlefield)):
            for name, data in files:
                path = tmp / base / _safe(name)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
        (tmp / COMPLETE).write_text(bundle.key)
        shutil.rmtree(root, ignore_errors=True)  # a partial copy of an interrupted worker
        try:
            tmp.rename(root)
        except OSError:  # another process of this worker folder wrote it meanwhile
            if not (root / COMPLETE).is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return root
