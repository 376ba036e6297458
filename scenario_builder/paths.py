"""Where the shipped data lives.

The project ships its data in the top-level ``data/`` folder (real DEMs, overlays, code tables,
troop lists, scenarios). ``SCENARIO_BUILDER_DATA`` overrides the location.
"""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """The shipped ``data/`` folder."""
    env = os.environ.get("SCENARIO_BUILDER_DATA")
    return Path(env) if env else Path(__file__).resolve().parent.parent / "data"
