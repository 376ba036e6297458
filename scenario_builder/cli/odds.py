"""``scenario-builder odds``: exact (and simulated) odds of an attack or a panic test.

Attack: the hits of ``--arming`` dice (plus 3.1 outnumbering / 8.1 ordnance ranks) against
``--resilience`` after chart 7.2 cover, with the 1.1 / 8.1 die penalties. Panic: the outcomes of
one 10.5 panic test (or v0.7's rout test with ``--ruleset 2mm-earth-v0.7``). ``--simulate N``
runs the engine's own procedures N times with the seeded dice beside the exact figures.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import click

from engine.odds_options import OddsOption, OptionKind
from engine.odds_options import check_bounds as _check_bounds
from engine.odds_options import fail as _fail
from engine.odds_options import reject as _reject
from scenario_builder.cli.options import json_option, ruleset_option, seed_option
from scenario_builder.errors import OddsInputError, RulesetError

if TYPE_CHECKING:
    from engine.seam import Ruleset

__all__ = ["OddsCommand", "OddsInputError", "book_options", "check_bounds", "odds"]

#: the command's own options, not any book's
OWN_BOUNDS = (OddsOption("simulate", ("--simulate",), "", OptionKind.INT, bounds=(1, 1_000_000)),)
_CLICK_TYPES: dict[OptionKind, Any] = {
    OptionKind.INT: int,
    OptionKind.FLOAT: float,
    OptionKind.TEXT: str,
}


def book_options(books: Iterable[Ruleset]) -> list[OddsOption]:
    """Every option the books' ``odds`` questions read (``Ruleset.odds_flags``), each once, in
    the order the books give them. Two books may share an option only as the same option: one
    name with two meanings (or one flag for two names) is a ruleset's mistake, refused here.

    >>> from engine.rulesets import get_ruleset
    >>> names = [o.name for o in book_options([get_ruleset("2mm-earth-v0.9")])]
    >>> names[:3], len(names)
    (['attack', 'panic', 'arming'], 15)
    """
    by_name: dict[str, OddsOption] = {}
    by_flag: dict[str, str] = {}
    for book in books:
        for option in book.odds_flags:
            known = by_name.get(option.name)
            if known is not None and known != option:
                raise RuntimeError(
                    f"{book.name}: odds option {option.name!r} differs from another book's"
                )
            for spelling in option.flags:
                if by_flag.setdefault(spelling, option.name) != option.name:
                    raise RuntimeError(
                        f"{book.name}: odds flag {spelling} is another book's option"
                    )
            by_name.setdefault(option.name, option)
    return list(by_name.values())


def _click_option(option: OddsOption) -> click.Option:
    decls = [*option.flags, option.name]
    if option.kind is OptionKind.FLAG:
        return click.Option(decls, is_flag=True, help=option.help)
    return click.Option(
        decls,
        type=_CLICK_TYPES[option.kind],
        default=option.default,
        metavar=option.metavar,
        multiple=option.multiple,
        show_default=option.show_default,
        help=option.help,
    )


def _books() -> list[Ruleset]:
    from engine.rulesets import DEFAULT_RULESET, odds_rulesets

    # the default book's options first: they are the command's everyday vocabulary
    books = odds_rulesets()
    return sorted(books, key=lambda b: b.name != DEFAULT_RULESET)


class OddsCommand(click.Command):
    """``odds`` with the options of every registered ruleset, read from the registry the first
    time the command parses or prints its help (so ``scenario-builder --help`` imports no
    ruleset)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._books_added = False

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        if not self._books_added:
            self._books_added = True
            self.params[:0] = [_click_option(o) for o in book_options(_books())]
        return super().get_params(ctx)


def check_bounds(opts: dict[str, Any]) -> None:
    """A one-line error for the first whole-number option outside its bounds (each book's
    ``OddsOption.bounds``; ``--simulate`` runs ~400 k trials a second, so a million is a few
    seconds).

    >>> check_bounds({"arming": 3, "simulate": None})
    >>> check_bounds({"arming": 200})
    Traceback (most recent call last):
    ...
    scenario_builder.errors.OddsInputError: odds: expected --arming 1..20, got 200
    """
    _check_bounds(opts, [*book_options(_books()), *OWN_BOUNDS])


@click.command("odds", cls=OddsCommand)
@ruleset_option
@click.option(
    "--simulate", type=int, metavar="N", help="Also roll it N times with the dice, 1..1000000."
)
@seed_option
@json_option
def odds(**opts: Any) -> None:
    """Odds of an attack (hits) or a panic test (no effect / retreat / rout), exact and simulated.

    \b
    scenario-builder odds --attack melee --arming 3 --resilience 4
    scenario-builder odds --attack ranged --arming 2 -r 4 --half-range --cover debris \\
        --unit-type infantry
    scenario-builder odds --panic -r 4 -l 1 --simulate 100000 --seed 7
    scenario-builder odds --wc-morale 7
    scenario-builder odds --flee-pursuit
    scenario-builder odds --dark-age-move heavy_infantry --grade A --formation shieldwall
    scenario-builder odds --ruleset medieval-d10 --attack ranged --weapon longbow \\
        --figures 20 --armour heavy --range-band medium --factor shields
    scenario-builder odds --ruleset medieval-d10 --morale receiving_charge --class D
    """
    from engine.rulesets import get_ruleset

    check_bounds(opts)
    # each ruleset answers its own questions (Ruleset.odds_questions, odds_report) and says
    # how they print (odds_table); the everyday vocabulary is the default book's
    named = get_ruleset(opts["ruleset"])
    if named.odds_options:  # a book with its own options answers every question itself
        _answer(named, named.odds_report(opts), opts["as_json"])
        return
    books = _books()
    for other in books:
        if other.odds_options:
            _reject(opts, other.odds_options, f"2mm Earth odds (use --ruleset {other.name})")
    shared = [b for b in books if not b.odds_options]
    questions = list(dict.fromkeys(q for b in shared for q in b.odds_questions))
    asked = [q for q in questions if opts[q] not in (None, False, ())]
    if len(asked) != 1:
        raise _fail(f"expected exactly one of {_questions_in_words(questions, shared)}")
    question = asked[0]
    everyday = books[0].odds_questions if books else ()
    if question in named.odds_questions:
        book = named
    elif question in everyday:
        raise RulesetError(
            None, f"ruleset {named.name} has no 2mm Earth odds (2.3 attack dice, 10.5 panic test)"
        )
    else:  # a composed book's own test: answered whichever ruleset is named
        book = next(b for b in shared if question in b.odds_questions)
    _answer(book, book.odds_report(opts), opts["as_json"])


def _questions_in_words(questions: list[str], books: list[Ruleset]) -> str:
    """``--attack melee|ranged, --panic ... or --dark-age-move TROOP``."""
    spelled = {o.name: o for b in books for o in b.odds_flags}
    words = []
    for q in questions:
        option = spelled.get(q)
        flag = option.flag if option else "--" + q.replace("_", "-")
        words.append(f"{flag} {option.metavar}" if option and option.metavar else flag)
    return ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else "".join(words)


def _answer(book: Ruleset, report: dict[str, Any], as_json: bool) -> None:
    table = None if as_json else book.odds_table(report)
    if table is None:
        click.echo(json.dumps(report, sort_keys=True, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    drawn = Table()
    for heading, right in table.columns:
        drawn.add_column(heading, justify="right" if right else "left")
    for row in table.rows:
        drawn.add_row(*row)
    console = Console(highlight=False)
    console.print(table.title, markup=False, soft_wrap=True)
    console.print(drawn)
    if table.footer:
        console.print(table.footer, markup=False)
