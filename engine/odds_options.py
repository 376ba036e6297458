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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

from scenario_builder.errors import OddsInputError

__all__ = [
    "OddsOption",
    "OddsOptions",
    "OddsTable",
    "OptionKind",
    "check_bounds",
    "defaults",
    "fail",
    "flag",
    "frac",
    "pct",
    "reject",
]

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


class OptionKind(StrEnum):
    """What an ``odds`` option takes on the command line."""

    FLAG = "flag"
    INT = "int"
    FLOAT = "float"
    TEXT = "text"


@dataclass(frozen=True, slots=True)
class OddsOption:
    """One ``scenario-builder odds`` option a ruleset's questions read: the CLI builds its
    options from every registered ruleset's :attr:`~engine.rulesets.Ruleset.odds_flags`, so a
    book (a plug-in too) brings its own.

    ``name`` is the key the report reads in its options mapping; ``flags`` the spellings on the
    command line (the first is shown in errors); ``bounds`` the whole numbers it accepts,
    checked before any work (:func:`check_bounds`).

    >>> o = OddsOption("arming", ("--arming",), "Attack dice.", OptionKind.INT, bounds=(1, 20))
    >>> o.flag, o.value_when_absent
    ('--arming', None)
    >>> OddsOption("moving", ("--moving",), "Moves.", OptionKind.FLAG).value_when_absent
    False
    """

    name: str
    flags: tuple[str, ...]
    help: str
    kind: OptionKind = OptionKind.TEXT
    default: Any = None
    metavar: str | None = None
    multiple: bool = False
    bounds: tuple[int, int] | None = None
    show_default: bool = False

    @property
    def flag(self) -> str:
        return self.flags[0]

    @property
    def value_when_absent(self) -> Any:
        """What the report sees when the option is not given."""
        if self.multiple:
            return ()
        if self.kind is OptionKind.FLAG:
            return False
        return self.default


def defaults(options: tuple[OddsOption, ...]) -> dict[str, Any]:
    """Each option's value when it is not given, by name."""
    return {o.name: o.value_when_absent for o in options}


def check_bounds(opts: OddsOptions, options: Iterable[OddsOption]) -> None:
    """A one-line error for the first whole-number option outside its bounds.

    >>> arming = OddsOption("arming", ("--arming",), "", OptionKind.INT, bounds=(1, 20))
    >>> check_bounds({"arming": 3}, [arming])
    >>> check_bounds({"arming": 200}, [arming])
    Traceback (most recent call last):
    ...
    scenario_builder.errors.OddsInputError: odds: expected --arming 1..20, got 200
    """
    for option in options:
        value = opts.get(option.name)
        if option.bounds is not None and value is not None:
            low, high = option.bounds
            if not low <= value <= high:
                raise fail(f"expected {option.flag} {low}..{high}, got {value}")


@dataclass(frozen=True, slots=True)
class OddsTable:
    """How ``scenario-builder odds`` prints a report (``Ruleset.odds_table``): a title, a table
    (each column's heading and whether its cells align right) and a closing line. The command
    draws it; the book decides what it says.

    >>> OddsTable("t", (("hits", True),), (("0",),)).headings
    ('hits',)
    """

    title: str
    columns: tuple[tuple[str, bool], ...]
    rows: tuple[tuple[str, ...], ...]
    footer: str = ""

    @property
    def headings(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.columns)


def pct(p: float) -> str:
    """A probability as a table prints it.

    >>> pct(0.125)
    '12.50%'
    """
    return f"{100 * p:.2f}%"
