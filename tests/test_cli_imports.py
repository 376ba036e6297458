"""The CLI's start-up stays light: ``--help``, every subcommand's ``--help`` and a usage error
load no GIS, plotting, cluster or graph library (the CLI's lazy commands and the commands'
imports inside their bodies, docs/performance.md "CLI start-up").

This checks what is imported, not how long it takes: a heavy import that creeps back into a
command's module fails here on any machine (timings live in ``benchmarks/bench_build.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from scenario_builder.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[1]

#: libraries a command imports when it runs, never to show its help (0.1-0.4 s each)
HEAVY = (
    "dask",
    "distributed",
    "folium",
    "geopandas",
    "matplotlib",
    "networkx",
    "pandas",
    "pyogrio",
    "rasterio",
    "reportlab",
    "scipy",
    "skimage",
    "trimesh",
)

# One child imports the CLI, then forks once per step, so each step starts from the same light
# process and a failure names the step that pulled the library in.
CHILD = r"""
import json, os, sys
from scenario_builder.cli import COMMANDS, main
heavy = sys.argv[1].split(",")
steps = [("--help", ["--help"]), ("build usage error", ["build"])]
steps += [(name + " --help", [name, "--help"]) for name in sorted(COMMANDS)]
out = {}
for name, argv in steps:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        sys.stdout = sys.stderr = open(os.devnull, "w")
        try:
            main(argv)
        except SystemExit:
            pass
        os.write(w, json.dumps(sorted(h for h in heavy if h in sys.modules)).encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as fh:
        out[name] = json.loads(fh.read())
    os.waitpid(pid, 0)
print(json.dumps(out))
"""

#: ``odds --help`` lists every book's options, which it reads from the ruleset registry: that
#: imports the engine, whose movement reads the ground (rasterio, scipy); nothing else may come
ALLOWED = {"odds --help": {"rasterio", "scipy"}}


def _loaded_after_each_step() -> dict[str, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SCENARIO_BUILDER_DEBUG", None)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, ",".join(HEAVY)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
        timeout=120,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_help_and_every_commands_help_import_no_heavy_library() -> None:
    loaded = _loaded_after_each_step()
    assert set(loaded) == {"--help", "build usage error"} | {f"{n} --help" for n in COMMANDS}
    extra = {
        step: sorted(set(libs) - ALLOWED.get(step, set()))
        for step, libs in loaded.items()
        if set(libs) - ALLOWED.get(step, set())
    }
    assert not extra, f"heavy libraries imported by: {extra}"


def test_build_module_alone_imports_no_heavy_library() -> None:
    """``import scenario_builder.cli.build`` is what ``build --help`` pays: its defaults come
    from ``scenario_builder.build_defaults``, the pipeline is imported when the command runs."""
    code = (
        "import sys, json; import scenario_builder.cli.build, scenario_builder.cli.route; "
        f"print(json.dumps(sorted(h for h in {list(HEAVY)!r} if h in sys.modules)))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert json.loads(done.stdout) == []
    # and the pipeline really is what brings them: the check above can fail
    code_pipeline = code.replace("scenario_builder.cli.build,", "scenario_builder.build,")
    done = subprocess.run(
        [sys.executable, "-c", code_pipeline], capture_output=True, text=True, env=env, check=True
    )
    assert {"geopandas", "scipy", "rasterio"} <= set(json.loads(done.stdout))
