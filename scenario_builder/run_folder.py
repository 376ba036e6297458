"""A fought battle written as a run folder: what ``scenario-builder run`` leaves in ``--out``.

``battle_log.json``, ``summary.json``, ``battle.gpkg`` and the QGIS project ``battle.qgs``
(:mod:`maps.battle_gpkg`, :mod:`maps.qgis_project`) and ``battlefield/`` (the built ground, so
``scenario-builder map DIR`` is self-contained). Call it inside ``atomic_dir``: it writes into
a folder nobody else reads yet.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.log import BattleLog
    from engine.scenario import Scenario
    from scenario_builder.battle import BuiltGround

__all__ = ["write_run"]


def write_run(
    directory: Path,
    log: BattleLog,
    summary: dict[str, Any],
    built: BuiltGround,
    *,
    scenario: Scenario | None = None,
    gpkg: bool = True,
) -> None:
    """Write a run directory: ``battle_log.json``, ``summary.json``, ``battle.gpkg`` and the
    QGIS project ``battle.qgs`` (unless ``gpkg`` is False), ``battlefield/``. ``scenario``
    gives the GeoPackage its date when the log has no clock."""
    # the bytes as made (ASCII JSON): no round trip through a str (engine.log)
    (directory / "battle_log.json").write_bytes(log.to_bytes())
    if gpkg:
        from maps.battle_gpkg import GPKG_NAME, Timeline, write_battle_gpkg
        from maps.battlelog import load_battle_log
        from maps.qgis_project import QGS_NAME, write_battle_project

        # read back as every map reads a log: the file is the one source
        read = load_battle_log(directory / "battle_log.json")
        timeline = Timeline.for_log(
            read, getattr(scenario, "date", None), getattr(scenario, "calendar", None)
        )
        write_battle_gpkg(read, directory / GPKG_NAME, timeline=timeline)
        write_battle_project(read, directory / QGS_NAME, timeline, "./battlefield/battlefield.tif")
    (directory / "summary.json").write_text(
        json.dumps(summary, sort_keys=True, indent=2), encoding="utf-8"
    )
    (directory / "battlefield").mkdir()
    built.save(directory / "battlefield")
