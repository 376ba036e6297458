"""What ``montecarlo`` and ``validate`` share: the checks before a cluster starts, and the
replays fought on it (scenario_builder.montecarlo) with a progress bar.

Both commands check everything a replay could trip on first (the scenario, the ``--out``
folder, the ground, the deployment), then save the battlefield inside the atomic ``--out``
folder, pack it with the files the loader read (scenario_builder.mc_bundle) and fight the
replays on a local cluster or a ``--scheduler``. One copy of that chain, so the two commands
fight the same replays for the same seeds.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .options import parse_plans

if TYPE_CHECKING:
    from rich.console import Console

    from engine.scenario import Scenario
    from scenario_builder.battle import BuiltGround

#: the options both commands take for the cluster, defined once
runs_help = "Number of replays."
workers_option = click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes of the local Dask cluster (default and cap: the smaller of "
    "--runs and the CPU count).",
)
scheduler_option = click.option(
    "--scheduler",
    default=None,
    help="Address of a running dask.distributed scheduler (instead of a local cluster); its "
    "workers need only the same package version (docs/montecarlo.md). Checked first: not a "
    "scheduler is one error line and exit 1.",
)
seed0_option = click.option(
    "--seed",
    "seed0",
    type=int,
    default=1,
    show_default=True,
    help="Seed of the first replay; replay i uses seed + i.",
)
dashboard_option = click.option(
    "--dashboard",
    is_flag=True,
    help="Serve the Dask dashboard of the local cluster (on a free port).",
)
_PEM = click.Path(exists=True, dir_okay=False, readable=True, path_type=Path)


def tls_options(f: Any) -> Any:
    """``--tls-ca-file``, ``--tls-cert``, ``--tls-key``: the client's side of Dask's TLS for a
    ``tls://`` scheduler (docs/montecarlo.md, "Security")."""
    for option in reversed(
        [
            click.option(
                "--tls-ca-file",
                type=_PEM,
                help="CA certificate (PEM) the tls:// scheduler's certificate is checked against.",
            ),
            click.option("--tls-cert", type=_PEM, help="This client's certificate (PEM)."),
            click.option(
                "--tls-key",
                type=_PEM,
                help="This client's private key (PEM), unless in --tls-cert.",
            ),
        ]
    ):
        f = option(f)
    return f


@contextlib.contextmanager
def client_tls(
    scheduler: str | None, ca_file: Path | None, cert: Path | None, key: Path | None
) -> Iterator[None]:
    """Dask's client TLS settings (``distributed.comm.tls.*``) from the ``--tls-*`` options for
    the block: what the address check and the Client read. Without the options, Dask's own
    configuration (its files or ``DASK_DISTRIBUTED__COMM__TLS__*``) stands."""
    if ca_file is None and cert is None and key is None:
        yield
        return
    if scheduler is None or not scheduler.startswith("tls://"):
        raise click.UsageError(
            "--tls-ca-file, --tls-cert and --tls-key are for a tls:// --scheduler"
        )
    if ca_file is None or cert is None:
        raise click.UsageError(
            "a tls:// client needs --tls-ca-file and --tls-cert (and --tls-key unless the "
            "certificate file holds the key)"
        )
    import dask
    import distributed  # noqa: F401  (its defaults in dask.config first: see below)

    # dask.config.set undoes what it set on leaving, so a key it created (the whole
    # "distributed" section, were it not loaded yet) would be dropped with its defaults
    settings = {
        "distributed.comm.tls.ca-file": str(ca_file),
        "distributed.comm.tls.client.cert": str(cert),
        "distributed.comm.tls.client.key": str(key) if key is not None else None,
    }
    with dask.config.set(settings):
        yield


@dataclass
class Prepared:
    """A battle checked and built on the head, ready to be replayed."""

    scenario: Scenario
    built: BuiltGround
    #: the files the loader read (sent to the workers)
    reads: Any
    plan_files: tuple[tuple[str, str], ...]
    #: the ``--ruleset`` by its registered name, or None for the scenario's own
    ruleset: str | None
    stamp: dict[str, Any]
    #: worker processes of the local cluster (0 with a ``--scheduler``)
    workers: int


def prepare(
    command: str,
    scenario: str,
    *,
    runs: int,
    workers: int | None,
    scheduler: str | None,
    dashboard: bool,
    seed0: int,
    ruleset: str | None,
    plans: tuple[str, ...],
    out: str,
    force: bool,
    console: Console,
    check: Callable[[Scenario], None] | None = None,
) -> Prepared:
    """Every check before a cluster starts, in the order a user's mistake is cheapest to
    report: the options, the scheduler's address, the scenario, ``--out``, the ground and
    the deployment (bound 0: units on the map, every side's troop list). ``check`` is the
    command's own check of the scenario, run as soon as it is loaded."""
    from engine.scenario import load_scenario
    from engine.yamlio import recording_reads
    from scenario_builder import montecarlo as mc
    from scenario_builder.atomic import claim_out_dir
    from scenario_builder.battle import build_battlefield, fight

    if workers is not None and scheduler is not None:
        raise click.UsageError("give --workers or --scheduler, not both")
    if dashboard and scheduler is not None:
        raise click.UsageError("--dashboard is for the local cluster; a --scheduler has its own")
    if scheduler is None:
        # the local workers' imports start now, in the background (fixed cost)
        mc.start_worker_server()
    else:
        # first: a wrong address is one line in seconds, before anything is built or written
        from scenario_builder.mc_scheduler import check_scheduler

        check_scheduler(scheduler)
    # The files read meanwhile are the ones the workers are sent (mc_bundle).
    with recording_reads() as reads:
        sc = load_scenario(scenario)
        if check is not None:
            check(sc)
        plan_files = tuple((side, str(Path(f).resolve())) for side, f in parse_plans(plans))
        sc.use_plan_files(plan_files)  # read and checked here; every worker reads them again
        if ruleset is not None:
            from engine.rulesets import get_ruleset

            ruleset = get_ruleset(ruleset).name  # an unknown name is a one-line error first
            sc.army(sc.sides[0].id, get_ruleset(ruleset))  # its troop lists exist for it
        stamp = {"command": command, "scenario": sc.id}
        claim_out_dir(out, stamp, force=force)
        built = build_battlefield(sc)
        fight(sc, built, seed0, ruleset=ruleset, max_bounds=0)  # every side's troop list
    n_workers = 0
    if scheduler is None:
        cores = os.cpu_count() or 1
        n_workers = min(runs, cores, workers or cores)
        if workers is not None and workers > n_workers:
            console.print(
                f"--workers {workers}: using {n_workers} (no more than --runs {runs} "
                f"and the {cores} CPU cores; give --scheduler for a larger cluster)"
            )
    return Prepared(sc, built, reads, plan_files, ruleset, stamp, n_workers)


def fight_replays(
    prep: Prepared,
    tmp: Path,
    *,
    runs: int,
    seed0: int,
    scheduler: str | None,
    dashboard: bool,
    quiet: bool,
    console: Console,
) -> tuple[list[dict[str, Any]], int, float]:
    """Save the battlefield under ``tmp`` (the atomic ``--out``), send it and the scenario to
    the workers and fight seeds ``seed0 .. seed0 + runs - 1``: (results by seed, workers,
    wall seconds), as :func:`scenario_builder.montecarlo.run_replays`."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from scenario_builder import montecarlo as mc
    from scenario_builder.errors import ScenarioError
    from scenario_builder.mc_bundle import pack

    assert prep.scenario.path is not None  # loaded from a file
    bf_dir = tmp / "battlefield"
    prep.built.save(bf_dir)
    bundle = pack(prep.scenario.path, prep.reads, prep.plan_files, bf_dir)
    progress = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=quiet or not console.is_terminal,
    )
    with progress:
        task = progress.add_task("replays", total=runs)
        try:
            return mc.run_replays(
                bundle,
                range(seed0, seed0 + runs),
                workers=prep.workers,
                scheduler=scheduler,
                progress=lambda done, total: progress.update(task, completed=done),
                dashboard=(lambda link: console.print(f"Dask dashboard: {link}"))
                if dashboard
                else None,
                ruleset=prep.ruleset,
            )
        except OSError as exc:  # a scheduler that cannot be reached
            raise ScenarioError(scheduler or "dask", f"cannot run replays ({exc})") from None
