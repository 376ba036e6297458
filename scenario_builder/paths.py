"""Where the shipped data lives.

The repository keeps its data in the top-level ``data/`` folder (real DEMs, overlays, code tables,
troop lists, scenarios, their SOURCES and licence notices). The distribution ships that folder as
the package ``scenario_builder_data`` (``pyproject.toml`` maps the package onto ``data/``), so an
installed wheel reads it through :mod:`importlib.resources` from any working directory.

Order of precedence:

1. ``SCENARIO_BUILDER_DATA`` (a folder laid out like ``data/``: ``battlefields/``, ``codes/``,
   ``scenarios/``, ``troops/``), for users' own data;
2. the checkout's ``data/`` when this package runs from a source tree (``PYTHONPATH=.`` or an
   editable install), so work on the data is seen without reinstalling;
3. the installed ``scenario_builder_data`` package.

>>> (data_dir() / "codes" / "worldcover.csv").is_file()
True
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from scenario_builder.errors import DataSourceError

ENV_VAR = "SCENARIO_BUILDER_DATA"
DATA_PACKAGE = "scenario_builder_data"


def _checkout_data() -> Path | None:
    """``data/`` of the source tree this package was imported from, if it was."""
    root = Path(__file__).resolve().parent.parent
    # pyproject.toml beside the package: a checkout, not site-packages (where a stray "data"
    # folder of another distribution could sit).
    if (root / "pyproject.toml").is_file() and (root / "data" / "__init__.py").is_file():
        return root / "data"
    return None


def data_dir() -> Path:
    """The data folder: ``$SCENARIO_BUILDER_DATA``, the checkout's ``data/``, or the installed one.

    Raises :class:`DataSourceError` naming the folder when none can be found.
    """
    env = os.environ.get(ENV_VAR)
    if env:
        path = Path(env).expanduser()
        if not path.is_dir():
            raise DataSourceError(path, f"{ENV_VAR} is not a folder")
        if not (path / "codes" / "features.csv").is_file():
            # an empty or wrong folder would list no scenarios and exit 0
            raise DataSourceError(
                path, f"{ENV_VAR}: expected a data folder with codes/features.csv, got none"
            )
        return path
    checkout = _checkout_data()
    if checkout is not None:
        return checkout
    try:
        root = resources.files(DATA_PACKAGE)
    except ModuleNotFoundError:
        raise DataSourceError(
            DATA_PACKAGE, f"the shipped data is not installed; set {ENV_VAR} to a data folder"
        ) from None
    if not isinstance(root, Path):  # a zipped install: rasterio and GDAL need real files
        raise DataSourceError(
            str(root), f"the shipped data is not on the file system; set {ENV_VAR}"
        )
    return root
