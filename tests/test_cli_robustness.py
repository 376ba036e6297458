"""Failure injection through the real entry point: every command driven into an
unwritable output, a reused --out, a mistyped name, bad coordinates or an interrupt gives one
line, a non-zero exit, and leaves nothing behind.

As root (CI containers) permission bits do not stop writes, so "unwritable" is a path whose
parent is a file (the OS refuses it for every user), and a full disk is injected as an ENOSPC
from the writer.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def one_error_line(err: str) -> str:
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("Error: ") and "Traceback" not in err
    return lines[0]


@pytest.fixture(scope="module")
def coarse_flodden(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Flodden built at 100 m: a real battlefield folder for map/print/route, in a second."""
    from scenario_builder.build import build_site

    out = tmp_path_factory.mktemp("flodden100") / "bf"
    build_site("flodden", resolution=100.0).save(out)
    return out


@pytest.fixture()
def blocked(tmp_path: Path) -> Path:
    """A path no one can create: its parent is a file."""
    f = tmp_path / "a_file"
    f.write_text("not a folder")
    return f / "out"


@pytest.mark.parametrize(
    "args",
    [
        ("run", "flodden_1513"),
        ("demo",),
        ("montecarlo", "flodden_1513", "--runs", "2"),
        ("build", "flodden", "--resolution", "100"),
    ],
    ids=["run", "demo", "montecarlo", "build"],
)
def test_unwritable_out_folder_is_one_line_before_any_work(run_cli, blocked, args):
    t0 = time.perf_counter()
    code, _out, err = run_cli(*args, "--out", blocked)
    line = one_error_line(err)
    assert code == 1
    assert f"{blocked}: --out: cannot write here, {blocked.parent} is a file" in line
    assert time.perf_counter() - t0 < 15  # refused up front, not after a battle or a cluster
    assert sorted(p.name for p in blocked.parent.parent.iterdir()) == ["a_file"]


@pytest.mark.parametrize("cmd", ["map", "print", "print-layers", "route-map"])
def test_unwritable_file_outputs_are_one_line(run_cli, coarse_flodden, blocked, cmd):
    args = {
        "map": ("map", coarse_flodden, "--offline", "--out", blocked / "m.html"),
        "print": ("print", coarse_flodden, "--out", blocked / "t.pdf"),
        "print-layers": (
            "print",
            coarse_flodden,
            "--scale",
            "1:20000",
            "--out",
            blocked.parent.parent / "t.pdf",
            "--layers",
            blocked,
        ),
        "route-map": (
            "route",
            coarse_flodden,
            "--from",
            "-2.19,55.60",
            "--to",
            "-2.15,55.63",
            "--crs",
            "EPSG:4326",
            "--map",
            blocked / "r.html",
        ),
    }[cmd]
    code, _, err = run_cli(*args)
    assert code == 1
    line = one_error_line(err)
    assert str(blocked) in line
    # print --layers: the PDF is not left half-made when its layers cannot be written
    assert sorted(p.name for p in blocked.parent.parent.iterdir()) == ["a_file"]


@pytest.mark.slow  # traces and prints the whole table first: ~10 s on 2 cores
def test_full_disk_while_writing_layers_leaves_neither_pdf_nor_layers(
    run_cli, coarse_flodden, tmp_path, monkeypatch
):
    import maps.cutlayers

    real = (
        maps.cutlayers.write_layer_files if hasattr(maps.cutlayers, "write_layer_files") else None
    )
    del real

    def full_disk(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "layers" / "x.svg"))

    monkeypatch.setattr(maps.cutlayers, "write_cut_layers", full_disk)
    code, _, err = run_cli(
        "print",
        coarse_flodden,
        "--scale",
        "1:100000",
        "--out",
        tmp_path / "t.pdf",
        "--layers",
        tmp_path / "layers",
    )
    assert code == 1
    assert "No space left on device" in one_error_line(err)
    assert list(tmp_path.iterdir()) == []


def test_reusing_out_for_another_run_needs_force(run_cli, tmp_path):
    out = tmp_path / "bf"
    code, _, err = run_cli("build", "flodden", "--resolution", "100", "--out", out)
    assert code == 0, err
    stamp = json.loads((out / ".scenario-builder.json").read_text())
    assert stamp == {"command": "build", "input": "flodden"}
    # the same build again replaces quietly
    code, _, err = run_cli("build", "flodden", "--resolution", "120", "--out", out)
    assert code == 0, err
    # another site into the same folder is refused, and the folder is untouched
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    code, _, err = run_cli("build", "minden", "--resolution", "100", "--out", out)
    assert code == 1
    line = one_error_line(err)
    assert "the output of `build flodden`" in line and "--force" in line
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before
    # a folder of the user's own files is refused too
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    code, _, err = run_cli("run", "flodden_1513", "--out", mine)
    assert code == 1 and "files this command did not write" in one_error_line(err)
    # --force replaces the whole folder
    code, _, err = run_cli("build", "minden", "--resolution", "100", "--out", out, "--force")
    assert code == 0, err
    assert json.loads((out / ".scenario-builder.json").read_text())["input"] == "minden"


def test_unknown_names_suggest_the_closest(run_cli, tmp_path):
    code, _, err = run_cli("run", "flodden", "--out", tmp_path / "x")
    assert code == 1
    assert "did you mean flodden_1513?" in one_error_line(err)
    code, _, err = run_cli("build", "gettysbrug", "--out", tmp_path / "y")
    assert code == 1
    assert (
        "gettysbrug: expected a shipped site, got an unknown slug; did you mean gettysburg?"
        in one_error_line(err)
    )
    assert list(tmp_path.iterdir()) == []


def test_scenarios_lists_ids_battle_date_ruleset_sides(run_cli):
    code, out, _ = run_cli("scenarios", "--json")
    assert code == 0
    rows = {r["id"]: r for r in json.loads(out)}
    shipped = {p.stem for p in (ROOT / "data" / "scenarios").glob("*.yaml")}
    assert set(rows) == shipped
    fl = rows["flodden_1513"]
    assert fl["date"] == "1513-09-09" and fl["ruleset"] == "2mm-earth-v0.9"
    assert set(fl["sides"]) == {"scots", "english"}


def test_tables_never_truncate_identifiers_when_narrow(run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    code, out, _ = run_cli("sites")
    assert code == 0
    for slug in ("north_bayreuth_pair", "teutoburg_kalkriese"):
        assert slug in out
    code, out, _ = run_cli("scenarios")
    assert code == 0 and "gettysburg_1863_day2" in out and "2mm-earth-v0.9" in out


def test_print_errors_name_the_option_at_fault(run_cli, coarse_flodden, tmp_path):
    code, _, err = run_cli(
        "print", coarse_flodden, "--paper", "30x30mm", "--out", tmp_path / "a.pdf"
    )
    assert code == 1 and "--paper: expected 50 to 5000 mm a side" in one_error_line(err)
    code, _, err = run_cli("print", coarse_flodden, "--max-pages", "3", "--out", tmp_path / "b.pdf")
    assert code == 1 and one_error_line(err).startswith("Error: --max-pages: expected at most 3")
    code, _, err = run_cli("print", coarse_flodden, "--max-pages", "0", "--out", tmp_path / "z.pdf")
    line = one_error_line(err)  # a range the option declares: a usage error (exit 2)
    assert code == 2 and "'--max-pages': 0 is not in the range x>=1" in line
    code, _, err = run_cli(
        "print", coarse_flodden, "--paper", "50x50mm", "--margin", "16", "--out", tmp_path / "c.pdf"
    )
    assert code == 1 and one_error_line(err).startswith("Error: --margin: ")
    assert list(tmp_path.iterdir()) == []


def test_tiny_bbox_and_overlay_outside_it(run_cli, tmp_path):
    code, _, err = run_cli(
        "build", "flodden", "--bbox=-2.16,55.61,-2.1599,55.6101", "--out", tmp_path / "a"
    )
    assert code == 1 and "covers fewer than 2x2 cells of the DEM" in one_error_line(err)
    # a corner of the shipped DEM far from the historical overlay: built, overlay skipped
    code, _out, err = run_cli(
        "build", "flodden", "--bbox=-2.235,55.575,-2.225,55.585", "--out", tmp_path / "b"
    )
    assert code == 0, err
    assert "overlay lies outside the area built; skipped" in err
    meta = json.loads((tmp_path / "b" / "battlefield.json").read_text())
    assert any(s.get("skipped") for s in meta["sources"] if s["kind"] == "overlay")


def test_route_reads_lonlat_or_metres_and_says_which(run_cli, coarse_flodden):
    code, out, err = run_cli(
        "route", coarse_flodden, "--from", "-2.19,55.60", "--to", "-2.15,55.63"
    )
    assert "cost" in out
    assert code == 0, err
    assert "read        --from/--to as lon,lat (guessed: --crs to choose)" in out
    code, _out, err = run_cli(
        "route", coarse_flodden, "--from", "-3.0,55.60", "--to", "-2.15,55.63"
    )
    assert code == 1
    line = one_error_line(err)
    assert line.startswith("Error: --from: -3,55.6 is off the battlefield") and "lon -2.24" in line


def test_scenario_position_off_the_map_names_file_line_and_lonlat(run_cli, tmp_path):
    src = (ROOT / "data" / "scenarios" / "flodden_1513.yaml").read_text(encoding="utf-8")
    lines = src.splitlines()
    n = next(i for i, ln in enumerate(lines) if "position: {lonlat:" in ln)
    head, _, tail = lines[n].partition("position: {lonlat: [")
    lines[n] = head + "position: {lonlat: [-2.5, 55.6" + tail[tail.index("]") :]
    bad = tmp_path / "off.yaml"
    bad.write_text("\n".join(lines), encoding="utf-8")  # troop lists by name: data/troops
    code, _, err = run_cli("run", bad, "--out", tmp_path / "o")
    assert code == 1
    line = one_error_line(err)
    assert f"{bad}: line {n + 1}: formation" in line and "at lonlat [-2.5, 55.6]" in line


def test_montecarlo_checks_the_scenario_before_starting_a_cluster(run_cli, tmp_path, monkeypatch):
    import scenario_builder.montecarlo as mc

    def no_cluster(*_a, **_k):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr(mc, "run_replays", no_cluster)
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: x\nname: x\n", encoding="utf-8")
    code, _, err = run_cli("montecarlo", bad, "--runs", "3", "--out", tmp_path / "mc")
    assert code == 1 and str(bad) in one_error_line(err)
    assert not (tmp_path / "mc").exists()


@pytest.mark.slow
def test_montecarlo_caps_workers_at_runs_and_cores(run_cli, tmp_path):
    code, out, err = run_cli(
        "montecarlo",
        "flodden_1513",
        "--runs",
        "2",
        "--workers",
        "64",
        "--json",
        "--out",
        tmp_path / "mc",
    )
    assert code == 0, err
    n = min(2, os.cpu_count() or 1)
    assert f"--workers 64: using {n}" in err and "Traceback" not in err
    assert json.loads(out)["runs"] == 2


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "after_s"),
    [
        # at once: the fork server the workers come from still importing (SIGINT ignored)
        (["montecarlo", "flodden_1513", "--runs", "400", "--out", "mc"], 1.5),
        (["montecarlo", "flodden_1513", "--runs", "400", "--out", "mc"], 12.0),
        # demo and run: past the imports, within the build or the fight, as soon as their work
        # folder beside --out appears (None). A clock raced them: the whole demo takes about
        # 6 s on an idle machine and the run 3 s, so a sleep of 6 s or 3 s met their exit
        (["demo", "--out", "demo-out"], None),
        (["run", "gettysburg_1863_day2", "--out", "run-out"], None),
    ],
    ids=["montecarlo-starting", "montecarlo", "demo", "run"],
)
def test_ctrl_c_mid_run_is_quiet_and_leaves_nothing(tmp_path, args, after_s):
    """SIGINT to the whole process group (what a terminal's Ctrl-C does) mid-run: montecarlo
    with its cluster under way, demo and run while building or fighting (``after_s`` None:
    once the hidden work folder ``.<out>.*.tmp`` stands beside ``--out``)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "scenario_builder", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
        start_new_session=True,
    )
    if after_s is None:
        out = args[args.index("--out") + 1]
        deadline = time.monotonic() + 60.0
        while not any(tmp_path.glob(f".{out}.*.tmp")) and proc.poll() is None:
            assert time.monotonic() < deadline, "no work folder beside --out in 60 s"
            time.sleep(0.02)
    else:
        time.sleep(after_s)  # for montecarlo: often while the cluster is still starting
    assert proc.poll() is None, "finished before the interrupt"
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=90)
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["Aborted."], err
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_as_the_work_folder_is_made_leaves_nothing(tmp_path, monkeypatch):
    """The Ctrl-C test above once (1 run in 4 on a clean clone) left the hidden work folder:
    the interrupt landed after ``mkdtemp`` made it and before ``atomic_dir`` held its name.
    Here the interrupt lands exactly there, every time."""
    import tempfile

    from scenario_builder import atomic

    real = tempfile.mkdtemp

    def made_then_interrupted(*args, **kwargs):
        real(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.tempfile, "mkdtemp", made_then_interrupted)
    with pytest.raises(KeyboardInterrupt), atomic.atomic_dir(tmp_path / "out"):
        pass
    assert list(tmp_path.iterdir()) == []


def test_an_existing_output_file_is_replaced_not_refused(tmp_path):
    """``map``/``print --out FILE`` twice: the old file is replaced through its folder."""
    from scenario_builder.atomic import check_writable
    from scenario_builder.errors import DataSourceError

    out = tmp_path / "m.html"
    out.write_text("old")
    check_writable(out)  # the folder is writable: no error
    with pytest.raises(DataSourceError, match="is a file"):
        check_writable(out / "x.html")  # a file where a folder must be


def test_an_interrupt_caught_after_an_exec_of_text_still_exits_130(tmp_path):
    """CPython 3.11 flags a KeyboardInterrupt leaving an ``exec()`` of source text (as when a
    dataclass is built while a module imports) and, at the exit of ``python -m`` (how the
    tests run the CLI), kills itself with SIGINT even when the interrupt was caught:
    ``montecarlo`` interrupted while importing exited -2 about one run in five. ``_quiet_exit``
    must lower that flag, so the status is the promised 130."""
    (tmp_path / "interrupted.py").write_text(
        "import sys\n"
        "from scenario_builder.cli import _quiet_exit\n"
        "try:\n"
        "    exec('raise KeyboardInterrupt')\n"
        "except KeyboardInterrupt:\n"
        "    _quiet_exit()\n"
        "    sys.exit(130)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-m", "interrupted"], cwd=tmp_path, env=env, capture_output=True
    )
    assert proc.returncode == 130, proc.stderr


def test_ctrl_c_wrapped_by_pydantic_is_an_abort(monkeypatch, capsys):
    """A Ctrl-C while pydantic-core builds a model's validator (a module importing) comes out
    as a SchemaError naming the interrupt, not as KeyboardInterrupt: the CLI still says
    "Aborted." and exits 130 (seen once in CI in ``montecarlo`` interrupted 1.5 s in), and a
    SchemaError of any other kind stays an internal error."""
    import pydantic_core

    import scenario_builder.cli as cli_mod

    def wrapped(**_kw):
        raise pydantic_core.SchemaError('Error building "enum" validator:\n  KeyboardInterrupt: ')

    monkeypatch.setattr(cli_mod.cli, "main", wrapped)
    monkeypatch.setattr(cli_mod, "_quiet_exit", lambda: None)  # leave pytest's SIGINT alone
    with pytest.raises(SystemExit) as exc:
        cli_mod.main(["sites"])
    assert exc.value.code == 130
    assert capsys.readouterr().err.strip().splitlines() == ["Aborted."]

    def other(**_kw):
        raise pydantic_core.SchemaError("Error building: bad field")

    monkeypatch.setattr(cli_mod.cli, "main", other)
    with pytest.raises(SystemExit) as exc:
        cli_mod.main(["sites"])
    assert exc.value.code == 1
    assert "internal error (SchemaError" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "starts"),
    [
        (
            ("--resolution", "0.5"),
            "Error: --resolution: 0.5 m cells over 9.9 x 9.89 km would make 391,980,512 cells "
            "(~35.3 GB), over the limit of 16,000,000; raise it with --max-cells",
        ),
        (
            ("--resolution", "5", "--max-cells", "1000"),
            "Error: --resolution: 5 m cells over",
        ),
        (
            ("--resolution", "100000"),
            "Error: {dem}: expected at least 2x2 cells, got 0x0: the area built is 9.9 x 9.9 km, "
            "too small for 100000 m cells (at most 3298 m fit)",
        ),
    ],
    ids=["too-fine", "own-limit", "too-coarse"],
)
def test_build_is_sized_before_any_work(run_cli, tmp_path, args, starts):
    from scenario_builder.sites import get_site

    t0 = time.perf_counter()
    code, _out, err = run_cli("build", "flodden", *args, "--out", tmp_path / "bf")
    assert code == 1
    assert one_error_line(err).startswith(starts.format(dem=get_site("flodden").dem))
    assert time.perf_counter() - t0 < 10  # refused from the header, not after reading the DEM
    assert list(tmp_path.iterdir()) == []


def test_a_whole_world_bbox_builds_the_dem_inside_it(run_cli, tmp_path):
    code, _out, err = run_cli("build", "flodden", "--bbox=-180,-85,180,85", "--out", tmp_path / "w")
    assert code == 0, err
    meta = json.loads((tmp_path / "w" / "battlefield.json").read_text())
    assert meta["slug"] == "flodden"


def test_a_dem_wider_than_one_utm_grid_is_one_line(run_cli, tmp_path):
    import numpy as np
    import rasterio
    from affine import Affine

    world = tmp_path / "world.tif"
    with rasterio.open(
        world, "w", driver="GTiff", width=36, height=17, count=1, dtype="float32",
        crs="EPSG:4326", transform=Affine(10, 0, -180, 0, -10, 85),
    ) as dst:  # fmt: skip
        dst.write(np.full((17, 36), 100, dtype=np.float32), 1)
    code, _out, err = run_cli("build", "--dem", world, "--out", tmp_path / "o")
    assert code == 1
    line = one_error_line(err)
    assert line.startswith(f"Error: {world}: expected an area at most 6 degrees across")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["world.tif"]


def test_a_binary_scenario_file_is_one_line_naming_it(run_cli, tmp_path: Path) -> None:
    bad = tmp_path / "scan.yaml"
    bad.write_bytes(bytes(range(200, 256)) * 4)
    code, _out, err = run_cli("run", bad, "--out", tmp_path / "o")
    line = one_error_line(err)
    assert code == 1 and "scan.yaml" in line and "UTF-8" in line
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("date", ["1513-13-45", "1863-02-30"])
def test_an_impossible_date_is_refused_without_a_start_time(
    run_cli, tmp_path: Path, date: str
) -> None:
    from scenario_builder.paths import data_dir

    text = (data_dir() / "scenarios" / "flodden_1513.yaml").read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if not ln.startswith("start_time:")]
    lines = [f'date: "{date}"' if ln.startswith("date:") else ln for ln in lines]
    sc = tmp_path / "bad_date.yaml"
    sc.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _out, err = run_cli("run", sc, "--out", tmp_path / "o")
    line = one_error_line(err)
    assert code == 1 and "bad_date.yaml" in line and "date" in line and date in line
    assert not (tmp_path / "o").exists()


def test_a_data_folder_without_the_data_is_refused(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCENARIO_BUILDER_DATA", str(tmp_path))
    code, _out, err = run_cli("scenarios")
    line = one_error_line(err)
    assert code == 1 and "SCENARIO_BUILDER_DATA" in line and "codes/features.csv" in line


def test_rulesets_piped_is_not_cut_at_80_columns() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "scenario_builder", "rulesets"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    assert "2mm-earth-v0.9 (default)" in out and "…" not in out


def test_a_front_wider_than_the_formation_is_refused(run_cli, tmp_path: Path) -> None:
    from scenario_builder.paths import data_dir

    text = (data_dir() / "scenarios" / "maldon_991.yaml").read_text(encoding="utf-8")
    sc = tmp_path / "wide.yaml"
    sc.write_text(text.replace("bases: 8, frontage: 4,", "bases: 8, frontage: 50,", 1))
    code, _out, err = run_cli("run", sc, "--out", tmp_path / "o")
    line = one_error_line(err)
    assert code == 1 and "wide.yaml" in line and "frontage" in line
    assert "expected at most its 8 bases, got 50" in line


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("odds", "--arming", "abc"), "'--arming'"),
        (("run", "flodden_1513", "--max-bounds", "-3"), "'--max-bounds'"),
        (("run", "--nope"), "'--nope'"),
        (("bogus",), "'bogus'"),
        (("run",), "'SCENARIO'"),
        (("print", "x", "--out", "y", "--max-pages", "0"), "'--max-pages'"),
        (("build", "flodden", "--max-cells", "0"), "'--max-cells'"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(run_cli, args: tuple[str, ...], said: str) -> None:
    # exit 2: the command line itself is wrong (an unknown command or option, a missing
    # argument, a value not of the option's type or outside the range it declares)
    code, _out, err = run_cli(*args)
    line = one_error_line(err)
    assert code == 2 and said in line and "--help" in line


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_a_dead_writers_leftovers_beside_out_are_cleared(run_cli, tmp_path: Path) -> None:
    # a run killed with SIGKILL (or a power cut) leaves its temporary folder; the next run
    # into the same --out removes it
    stale = tmp_path / f".o.{_dead_pid()}.{time.time_ns()}.k3j.tmp"
    (stale / "battlefield").mkdir(parents=True)
    (stale / "battlefield" / "half.tif").write_bytes(b"\0" * 64)
    code, _out, err = run_cli(
        "run", "teutoburg_ad9", "--seed", "3", "--max-bounds", "2", "--out", tmp_path / "o"
    )
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o"]


def test_a_second_writer_of_the_same_out_stops_with_one_line(run_cli, tmp_path: Path) -> None:
    # another command, still running, began writing this --out first
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        theirs = tmp_path / f".o.{other.pid}.{time.time_ns()}.a1b.tmp"
        theirs.mkdir()
        code, _out, err = run_cli(
            "run", "teutoburg_ad9", "--seed", "3", "--max-bounds", "2", "--out", tmp_path / "o"
        )
        line = one_error_line(err)
        assert code == 1 and f"another scenario-builder command (pid {other.pid})" in line
        assert "--out" in line
        # theirs is left alone; nothing of ours is left
        assert sorted(p.name for p in tmp_path.iterdir()) == [theirs.name]
    finally:
        other.kill()
        other.wait()
