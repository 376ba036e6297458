"""``montecarlo --scheduler ADDR`` on a cluster started as docs/montecarlo.md says, its workers
as if on other machines: the package imported from another folder than the head's, each worker
in a directory and TMPDIR of its own, and an audit hook in every worker that refuses to open any
path of the head's (its install, its data, its working folder with ``--out``). The replays must
come back the same as a local run of the same seeds.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: a ``dask worker --preload`` module: every worker refuses (and notes) opening a head's path
AUDIT = """
import os, sys

_roots = [r for r in os.environ["SB_FORBIDDEN"].split(os.pathsep) if r]
_log = os.environ["SB_AUDIT_LOG"]
_busy = False


def _hook(event, args):
    global _busy
    if _busy or event not in ("open", "os.listdir", "os.scandir") or not args:
        return
    path = args[0]
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, str):
        return
    full = os.path.abspath(path)
    if any(full == r or full.startswith(r + os.sep) for r in _roots):
        _busy = True
        try:
            with open(_log, "a") as fh:
                fh.write(f"{event} {full}\\n")
        finally:
            _busy = False
        raise PermissionError(f"a worker opened a path of the head's: {full}")


sys.addaudithook(_hook)
"""


def _copy_packages(site: Path) -> None:
    """The packages (and the data folder with the pyproject beside it, so ``data_dir()`` is
    this copy's) at another path: the workers' install."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for pkg in ("scenario_builder", "engine", "maps", "data"):
        shutil.copytree(ROOT / pkg, site / pkg, ignore=skip)
    shutil.copy(ROOT / "pyproject.toml", site / "pyproject.toml")
    (site / "audit_head_paths.py").write_text(AUDIT)


def _dask(*args: str, cwd: Path, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as fh:
        return subprocess.Popen(
            [sys.executable, "-m", "dask", *args],  # the `dask` command
            cwd=cwd,
            env=env,
            stdout=fh,
            stderr=subprocess.STDOUT,
        )


@pytest.fixture
def away_cluster(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """``dask scheduler`` + two ``dask worker ADDR --nworkers 1 --nthreads 1`` (docs/montecarlo.md,
    "On a cluster of machines") importing a copy of the packages; yields the scheduler's address,
    the copy's folder, the head's folder and the audit log."""
    import scenario_builder_data

    site, head = tmp_path / "site", tmp_path / "head"
    head.mkdir()
    _copy_packages(site)
    audit = tmp_path / "audit.log"
    forbidden = {str(ROOT), str(head), *map(str, scenario_builder_data.__path__)}
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SCENARIO_BUILDER_DATA")}
    env |= {
        "PYTHONPATH": str(site),
        "SB_FORBIDDEN": os.pathsep.join(sorted(forbidden)),
        "SB_AUDIT_LOG": str(audit),
    }
    info = tmp_path / "scheduler.json"
    sched_home = tmp_path / "scheduler_home"
    sched_home.mkdir()
    procs = [
        _dask(
            *["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"],
            *["--scheduler-file", str(info)],
            cwd=sched_home,
            env=env,
            log=tmp_path / "scheduler.log",
        )
    ]
    try:
        for _ in range(300):
            if info.exists() and info.read_text().strip():
                break
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        for i in range(2):
            home = tmp_path / f"worker{i}"
            (home / "tmp").mkdir(parents=True)
            procs.append(
                _dask(
                    *["worker", address, "--nworkers", "1", "--nthreads", "1"],
                    *["--no-dashboard", "--host", "127.0.0.1", "--preload", "audit_head_paths"],
                    cwd=home,
                    env=env | {"TMPDIR": str(home / "tmp")},
                    log=tmp_path / f"worker{i}.log",
                )
            )
        yield {"address": address, "site": site, "head": head, "audit": audit}
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def _runs(path: Path) -> list[dict[str, Any]]:
    """runs.json without the replays' timings (the one field that is not the battle's)."""
    runs = json.loads(path.read_text())
    for r in runs:
        r.pop("seconds")
    return runs


@pytest.mark.slow  # a scheduler, two worker processes and a local cluster: ~30 s on 2 cores
def test_montecarlo_on_workers_elsewhere(
    away_cluster: dict[str, Any],
    tmp_path: Path,
    run_cli: Callable[..., tuple[int, str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dask.distributed import Client

    address, site, head = away_cluster["address"], away_cluster["site"], away_cluster["head"]
    with Client(address, timeout=30) as c:
        c.wait_for_workers(2, timeout=60)
        where = c.run(lambda: __import__("scenario_builder").__file__)
    assert all(Path(f).is_relative_to(site) for f in where.values()), where
    # a --plan file in the head's folder, and the scenario's own plan file beside it (relative)
    plan = head / "my_patriots.yaml"
    shutil.copy(ROOT / "data" / "scenarios" / "plans" / "chacabuco_patriots.yaml", plan)
    monkeypatch.chdir(head)
    args = ["montecarlo", "chacabuco_1817", "--runs", "4", "--seed", "3"]
    args += ["--plan", f"patriots={plan.name}", "--json"]
    code, stdout, err = run_cli(*args, "--scheduler", address, "--out", "mc")
    assert code == 0, err
    assert not away_cluster["audit"].exists(), away_cluster["audit"].read_text()
    s = json.loads(stdout)
    assert s["runs"] == 4 and s["seeds"] == [3, 6] and s["workers"] == 2
    # the local run from the checkout: its fork server imports the packages from the working
    # directory it starts in (the head's folder has none)
    monkeypatch.chdir(ROOT)
    args[args.index(f"patriots={plan.name}")] = f"patriots={plan}"
    code, _, err = run_cli(*args, "--workers", "2", "--out", str(head / "mc_local"))
    assert code == 0, err
    assert _runs(head / "mc" / "runs.json") == _runs(head / "mc_local" / "runs.json")
    # the run's plugin was dropped, and with it each worker's copy of the bundle
    with Client(address, timeout=30) as c:
        left = c.run(lambda dask_worker: sorted(dask_worker.plugins))
        copies = c.run(
            lambda dask_worker: [
                p.name
                for p in Path(dask_worker.local_directory).iterdir()
                if p.name.startswith("scenario-builder-")
            ]
        )
    assert not any(n.startswith("scenario-builder-") for names in left.values() for n in names)
    assert not any(copies.values()), copies
    # workers with another version of a troop list the scenario names by id refuse the battle
    with (site / "data" / "troops" / "royalist_1817.yaml").open("a") as fh:
        fh.write("# another version\n")
    monkeypatch.chdir(head)
    code, _, err = run_cli(*args, "--scheduler", address, "--out", "mc_other")
    assert code == 1, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "install the same scenario-builder version" in lines[0], err
    assert "royalist_1817.yaml" in lines[0] and not (head / "mc_other").exists()
    assert not away_cluster["audit"].exists(), away_cluster["audit"].read_text()


def test_the_workers_are_sent_no_head_path(flodden_dir: Path, tmp_path: Path) -> None:
    """The plugin (the bundle inside it) and a task's arguments, pickled as Dask sends them,
    name no file of the head's: neither the install, its data, nor the battlefield folder."""
    from engine.scenario import load_scenario
    from engine.yamlio import recording_reads
    from scenario_builder.mc_bundle import Bundle, pack
    from scenario_builder.mc_preload import Preload
    from scenario_builder.paths import data_dir

    plan = tmp_path / "plans" / "mine.yaml"
    plan.parent.mkdir()
    shutil.copy(data_dir() / "scenarios" / "plans" / "chacabuco_patriots.yaml", plan)
    with recording_reads() as reads:
        sc = load_scenario("chacabuco_1817")
        sc.use_plan_files([("patriots", str(plan))])
    assert sc.path is not None
    bundle = pack(sc.path, reads, (("patriots", str(plan)),), flodden_dir)
    names = dict(bundle.files)
    assert bundle.scenario in names and all(f in names for _, f in bundle.plans)
    assert any(n.endswith("troops/patriot_1817.yaml") for n in names), sorted(names)
    # the files go as the head read them (battlefield.json notes the paths it was built from,
    # provenance a worker never opens: the audit hook above), so look at all but their bytes
    hollow = Bundle(
        tuple((n, b"") for n, _ in bundle.files),
        bundle.scenario,
        bundle.plans,
        tuple((n, b"") for n, _ in bundle.battlefield),
    )
    sent = pickle.dumps(Preload(hollow, None)) + pickle.dumps((bundle.key, [1, 2], None))
    for head_path in {ROOT, data_dir().resolve(), tmp_path, flodden_dir, Path.cwd()}:
        assert os.fsencode(str(head_path)) not in sent, head_path
        assert not any(os.fsencode(str(head_path)) in b for _, b in bundle.files), head_path
    assert not any(Path(n).is_absolute() or ".." in Path(n).parts for n in names)
    assert bundle.plans == (("patriots", "plan/patriots/mine.yaml"),)
    assert bundle.scenario == "tree/scenarios/chacabuco_1817.yaml"  # the tree is data/'s


def test_a_plan_file_the_scenario_names_stays_in_its_tree(flodden_dir: Path) -> None:
    """``--plan SIDE=FILE`` with the scenario's own plan file: the worker's copy of the
    scenario still finds it by its relative name."""
    from engine.scenario import load_scenario
    from engine.yamlio import recording_reads
    from scenario_builder.mc_bundle import pack

    with recording_reads() as reads:
        sc = load_scenario("chacabuco_1817")
        own = sc.plan_file("patriots")
        assert own is not None
        sc.use_plan_files([("patriots", str(own))])
    assert sc.path is not None
    bundle = pack(sc.path, reads, (("patriots", str(own)),), flodden_dir)
    names = dict(bundle.files)
    assert "tree/scenarios/plans/chacabuco_patriots.yaml" in names
    assert "plan/patriots/chacabuco_patriots.yaml" in names


def test_a_worker_with_other_troop_lists_is_refused(flodden_dir: Path, tmp_path: Path) -> None:
    """A file a worker reads from its own install (a troop list by id) must be the head's."""
    from scenario_builder.errors import ScenarioError
    from scenario_builder.mc_bundle import materialise, pack

    scenario = tmp_path / "s.yaml"
    scenario.write_text("id: s\n")
    bundle = pack(scenario, [scenario], (), flodden_dir)
    root = materialise(bundle, tmp_path / "worker")
    assert materialise(bundle, tmp_path / "worker") == root  # written once
    assert (root / "files" / bundle.scenario).read_text() == "id: s\n"
    assert (root / "battlefield" / "battlefield.json").is_file()
    bundle.check_reads(root, [root / "files" / bundle.scenario])
    other = tmp_path / "installed.yaml"
    other.write_text("id: changed\n")
    with pytest.raises(ScenarioError, match="install the same scenario-builder version"):
        bundle.check_reads(root, [other])


def test_a_worker_keeps_a_bundle_while_a_run_holds_it(built_teutoburg: Any, tmp_path: Path) -> None:
    """Two runs' plugins of one battle on a worker: the first to end leaves the copy to the
    other; replays name the battle by its hash alone."""
    from engine.scenario import load_scenario
    from engine.yamlio import recording_reads
    from scenario_builder import montecarlo as mc
    from scenario_builder.errors import ScenarioError
    from scenario_builder.mc_bundle import pack

    with recording_reads() as reads:
        sc = load_scenario("teutoburg_ad9")
    assert sc.path is not None
    built_teutoburg.save(tmp_path / "bf")
    bundle = pack(sc.path, reads, (), tmp_path / "bf")
    scratch = tmp_path / "worker"
    mc.prepare(bundle, scratch)
    mc.prepare(bundle, scratch)
    mc.forget(bundle, scratch)
    assert bundle.folder(scratch).is_dir()
    [row] = mc.replay_prepared(bundle.key, [3])
    assert row["seed"] == 3
    mc.forget(bundle, scratch)
    assert not bundle.folder(scratch).exists()
    with pytest.raises(ScenarioError, match="no Monte Carlo bundle"):
        mc.replay_prepared(bundle.key, [3])
