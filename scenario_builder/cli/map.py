"""``scenario-builder map DIR --out FILE.html``: a battlefield map, or a battle's playback.

DIR is either a built battlefield (``battlefield.tif`` + ``battlefield.json``) or a run directory
(``battle_log.json`` + ``battlefield/``, as written by ``scenario-builder run``).
"""

from __future__ import annotations

from pathlib import Path

import click

from scenario_builder.errors import DataSourceError, ScenarioError


@click.command("map")
@click.argument("directory", type=click.Path(file_okay=True, dir_okay=True, path_type=Path))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="HTML file to write (atomically).",
)
@click.option(
    "--offline/--online",
    default=False,
    show_default=True,
    help="Offline: no tiles, no CDN, Leaflet inlined (opens with no network).",
)
@click.option(
    "--fog/--no-fog",
    default=True,
    show_default=True,
    help="Playback: compute what each side could see, for the per-side view (6.2).",
)
def map_cmd(directory: Path, out: Path, offline: bool, fog: bool) -> None:
    """Draw a battlefield (terrain, levels, contours) or play back a battle, as an HTML map."""
    if not directory.exists():
        raise DataSourceError(directory, "does not exist (expected a battlefield or run directory)")
    if not directory.is_dir():
        raise DataSourceError(directory, "is a file (expected a battlefield or run directory)")
    if out.exists() and out.is_dir():
        raise ScenarioError(out, "is a directory (expected an HTML file name for --out)")
    if (directory / "battle_log.json").exists():
        from maps.playback import write_playback

        path = write_playback(directory, out, offline=offline, fog=fog)
        what = "playback"
    elif (directory / "battlefield.tif").exists() or (directory / "battlefield.json").exists():
        from maps.battlefield_map import write_battlefield_map

        path = write_battlefield_map(directory, out, offline=offline)
        what = "battlefield map"
    else:
        raise DataSourceError(
            directory,
            "expected a built battlefield (battlefield.tif, battlefield.json) or a run directory "
            "(battle_log.json), found neither",
        )
    size = path.stat().st_size
    click.echo(f"wrote {what} {path} ({size / 1e6:.1f} MB{', offline' if offline else ''})")
