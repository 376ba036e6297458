"""Reading ``scenario-builder odds`` options in a ruleset's ``Ruleset.odds_report``.

The options arrive as the command gives them (a mapping of option name -> value, ``None`` or
the default when not given); each ruleset's report checks the ones it reads with these and
answers with JSON values (exact odds as ``"n/d"`` fractions beside floats).

>>> frac(Fraction(1, 6)), frac(Fraction(2)), flag("half_range")
('1/6', '2', '--half-range')
>>> reject({"arming": 3}, {"arming": None}, "--panic")
Traceback (most recent call last):
...
scenario_builder.errors.OddsInputError: odds: --arming does not apply to --panic
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from scenario_builder.errors import OddsInputError

__all__ = ["OddsOptions", "fail", "flag", "frac", "reject"]

#: the ``odds`` command's options by name
OddsOptions = Mapping[str, Any]


def fail(problem: str, command: str = "odds") -> OddsInputError:
    """The one-line error for a bad option (``command`` names the command and ruleset)."""
    return OddsInputError(None, f"{command}: {problem}")


def frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}" if x.denominator != 1 else str(x.numerator)


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def reject(opts: OddsOptions, defaults: Mapping[str, Any], mode: str) -> None:
    """An error for the first option in ``defaults`` given another value: it is not ``mode``'s."""
    for name, default in defaults.items():
        if opts[name] != default:
            raise fail(f"{flag(name)} does not apply to {mode}")
