"""``scenario-builder map DIR --out FILE.html``: a battlefield map, or a battle's playback.

DIR is either a built battlefield (``battlefield.tif`` + ``battlefield.json``) or a run directory
(``battle_log.json`` + ``battlefield/``, as written by ``scenario-builder run``). Given a scenario
instead (a ``.yaml`` file or a shipped scenario id), the page previews its deployment on the built
ground without fighting: bound 0 of the playback, every base where the scenario puts it, so an
author can check positions and facings before running. Given a run directory and an ``--out``
ending in ``.gpkg``, it writes the battle as a GeoPackage for QGIS (as ``run`` does beside the log;
for a run written before that).
"""

from __future__ import annotations

from pathlib import Path

import click

from scenario_builder.atomic import check_writable
from scenario_builder.errors import DataSourceError, ScenarioError

from .options import drawable_ground, ruleset_option


@click.command("map")
@click.argument(
    "directory",
    metavar="SOURCE",
    type=click.Path(file_okay=True, dir_okay=True, path_type=Path),
)
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="HTML file to write (atomically). For a run folder, a .gpkg name writes the battle as a "
    "GeoPackage for QGIS instead (docs/qgis.md), as `run` does.",
)
@click.option(
    "--offline/--online",
    default=True,
    show_default=True,
    help="Leaflet is always inlined (the page works with no network); --online adds "
    "OpenStreetMap/OpenTopoMap tiles as optional base layers.",
)
@click.option(
    "--fog/--no-fog",
    default=True,
    show_default=True,
    help="Playback: compute what each side could see, for the per-side view (6.2).",
)
@ruleset_option
def map_cmd(directory: Path, out: Path, offline: bool, fog: bool, ruleset: str | None) -> None:
    """Draw SOURCE as an HTML map: a built battlefield folder (terrain, levels, contours), a run
    folder (playback of the battle), or a scenario file or shipped id (deployment preview)."""
    if ruleset is not None:
        from engine.rulesets import get_ruleset

        get_ruleset(ruleset)  # an unknown name is a one-line error
    if out.suffix.lower() == ".gpkg":
        check_writable(out, "--out")
        path = _write_gpkg(directory, out)
        click.echo(f"wrote battle GeoPackage {path} ({path.stat().st_size / 1e6:.1f} MB)")
        return
    if _is_scenario(directory):
        check_writable(out, "--out")
        path = _write_deployment(directory, out, offline=offline, fog=fog, ruleset=ruleset)
        click.echo(
            f"wrote deployment preview {path} ({path.stat().st_size / 1e6:.1f} MB"
            f"{'' if offline else ', with online tiles'})"
        )
        return
    if not directory.exists():
        raise DataSourceError(
            directory, "does not exist (expected a battlefield or run directory, or a scenario)"
        )
    if not directory.is_dir():
        raise DataSourceError(directory, "is a file (expected a battlefield or run directory)")
    if out.exists() and out.is_dir():
        raise ScenarioError(out, "is a directory (expected an HTML file name for --out)")
    check_writable(out, "--out")
    if (directory / "battle_log.json").exists():
        from maps.playback import write_playback

        if ruleset is not None:
            _check_run_ruleset(directory, ruleset)

        path = write_playback(directory, out, offline=offline, fog=fog)
        what = "playback"
    elif (directory / "battlefield.tif").exists() or (directory / "battlefield.json").exists():
        from maps.battlefield_map import write_battlefield_map

        path = write_battlefield_map(
            directory, out, offline=offline, ground=lambda bf: drawable_ground(bf, ruleset)
        )
        what = "battlefield map"
    else:
        raise DataSourceError(
            directory,
            "expected a built battlefield (battlefield.tif, battlefield.json) or a run directory "
            "(battle_log.json), found neither",
        )
    size = path.stat().st_size
    tiles = "" if offline else ", with online tiles"
    click.echo(f"wrote {what} {path} ({size / 1e6:.1f} MB{tiles})")


def _write_gpkg(run_dir: Path, out: Path) -> Path:
    """A run folder's battle as a GeoPackage (a run written before ``run`` wrote one); its date
    from the shipped scenario the log names, when there is one."""
    from maps.battle_gpkg import write_battle_gpkg
    from maps.battlelog import load_battle_log

    if not (run_dir.is_dir() and (run_dir / "battle_log.json").exists()):
        raise DataSourceError(
            run_dir, "a .gpkg --out needs a run directory (battle_log.json), found none"
        )
    log = load_battle_log(run_dir / "battle_log.json")
    date, calendar = None, None
    if _is_scenario(Path(str(log.get("scenario", "")))):
        from engine.scenario import load_scenario

        sc = load_scenario(str(log["scenario"]))
        date, calendar = sc.date, sc.calendar
    return write_battle_gpkg(log, out, date=date, calendar=calendar)


def _is_scenario(path: Path) -> bool:
    """A scenario file, or the id of a shipped scenario (``flodden_1513``)."""
    if path.suffix.lower() in (".yaml", ".yml"):
        return True
    if path.exists() or len(path.parts) != 1:
        return False
    from engine.scenario import scenario_path

    return scenario_path(str(path)).is_file()


def _check_run_ruleset(run_dir: Path, ruleset: str) -> None:
    """A run's playback is of the ruleset it was fought under: a different --ruleset is an
    error, not a silent redraw."""
    import json

    from engine.rulesets import get_ruleset
    from scenario_builder.errors import RulesetError

    with (run_dir / "battle_log.json").open(encoding="utf-8") as fh:
        fought = json.load(fh).get("ruleset")
    if fought != get_ruleset(ruleset).name:
        raise RulesetError(
            run_dir / "battle_log.json", f"this battle was fought under {fought}, not {ruleset}"
        )


def _write_deployment(
    scenario: Path, out: Path, *, offline: bool, fog: bool, ruleset: str | None = None
) -> Path:
    """Build the scenario's ground, deploy its armies, and draw bound 0 as a playback page."""
    import tempfile

    from engine.scenario import load_scenario
    from maps.playback import write_playback
    from scenario_builder.battle import build_battlefield, fight
    from scenario_builder.run_folder import write_run

    sc = load_scenario(scenario)
    built = build_battlefield(sc)
    # deployment only (no die is rolled), with the ruleset's troop lists and base sizes
    log, summary = fight(sc, built, seed=0, max_bounds=0, ruleset=ruleset)
    with tempfile.TemporaryDirectory(prefix="sb-deploy-") as tmp:
        write_run(Path(tmp), log, summary, built, gpkg=False)  # only the page is kept
        return write_playback(tmp, out, offline=offline, fog=fog)
