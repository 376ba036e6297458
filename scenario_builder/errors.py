"""One exception root for the whole project, with specific subclasses (rasterio's ``errors.py``).

Every error a user can cause derives from :class:`ScenarioError`; the CLI turns any of them into a
one-line message and a non-zero exit. Messages name the file and say "expected X, got Y".

>>> issubclass(DataSourceError, OSError) and issubclass(DataSourceError, ScenarioError)
True
>>> str(DataSourceError("dem.tif", "not a raster"))
'dem.tif: not a raster'
"""

from __future__ import annotations

from os import PathLike


class ScenarioError(Exception):
    """Root of every error the project raises on purpose."""

    def __init__(self, source: str | PathLike[str] | None, problem: str | None = None) -> None:
        if problem is None:
            source, problem = None, str(source)
        self.source = None if source is None else str(source)
        self.problem = problem
        super().__init__(self.__str__())

    def __str__(self) -> str:
        return f"{self.source}: {self.problem}" if self.source else str(self.problem)


class DataSourceError(ScenarioError, OSError):
    """A file is missing, empty, corrupt, or not the kind of data expected."""


class CRSError(ScenarioError, ValueError):
    """A dataset has no coordinate reference system, or one that cannot be used."""


class NoOverlapError(ScenarioError, ValueError):
    """Two inputs (DEM and land cover, DEM and bbox) do not overlap, or a window is all nodata."""


class ScenarioFileError(ScenarioError, ValueError):
    """A scenario, troop list or code table does not validate."""


class OffMapError(ScenarioError, ValueError):
    """A unit, point or route end lies outside the battlefield."""


class IllegalOrderError(ScenarioError, ValueError):
    """An order a rule forbids (e.g. a wing order out of the General's reach, 4.2)."""


class NoRouteError(ScenarioError):
    """No path exists between two points (networkx's ``NetworkXNoPath`` analogue)."""


class LayoutError(ScenarioError, ValueError):
    """An unknown paper size or table scale, or a print layout that cannot be made."""


class TooLargeError(ScenarioError, ValueError):
    """A job that would need more cells (memory, time) than its limit allows."""


class RulesetError(ScenarioError, KeyError):
    """An unknown ruleset name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return ScenarioError.__str__(self)


class OddsInputError(ScenarioError, ValueError):
    """A bad combination of ``scenario-builder odds`` options."""


class ScenarioWarning(UserWarning):
    """Root of the project's warnings: something was not fatal but the user should know."""


class UnknownCodeWarning(ScenarioWarning):
    """Land-cover codes not in the code table were mapped to the documented default."""


class CRSMismatchWarning(ScenarioWarning):
    """Inputs were in different CRSs and were reprojected."""
