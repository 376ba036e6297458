"""A command's progress on the terminal: one transient bar on stderr, shown only when stderr is
a terminal (rich), so piped and captured output stays as it was.

The library's long functions take a ``progress`` callback (``build_site(progress=...)``,
``fight(progress=...)``, ``write_layout_pdf(progress=...)``); a command turns the bar into such
callbacks with :meth:`Bar.stage` (a named step) and :meth:`Bar.count` (N of a total).

>>> with progress_bar("testing") as bar:  # a doctest's stderr is no terminal: nothing drawn
...     bar.stage("one")
...     tell = bar.count("bound")
...     tell(3, 10)
>>> bar.said
['one', 'bound 3 of 10']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

__all__ = ["Bar", "Count", "progress_bar"]

#: ``tell(done, total)``: how far a counted step has got
Count = Callable[[int, int], None]


class Bar:
    """What a command tells its bar: a stage's name, or a count of a total."""

    def __init__(self, progress: Progress, task: TaskID, what: str) -> None:
        self._progress, self._task, self._what = progress, task, what
        #: every line told, in order (what a test of the command reads)
        self.said: list[str] = []

    def stage(self, name: str, done: int = 0, total: int | None = None) -> None:
        """A named step; with ``total``, ``done`` of the steps are behind it."""
        self.said.append(name)
        # drawn at once: a stage or bound shorter than the bar's refresh would otherwise be
        # skipped, and a terminal line a bound costs nothing beside the bound
        self._progress.update(
            self._task,
            description=f"{self._what}: {name}",
            total=total,
            completed=done,
            refresh=True,
        )

    def count(self, unit: str) -> Count:
        def tell(done: int, total: int) -> None:
            self.said.append(f"{unit} {done} of {total}")
            self._progress.update(
                self._task,
                description=f"{self._what}: {unit} {done} of {total}",
                total=max(total, 1),
                completed=done,
                refresh=True,
            )

        return tell


@contextmanager
def progress_bar(what: str) -> Iterator[Bar]:
    """A transient bar for ``what`` (the command's verb), cleared when the block ends."""
    err = Console(stderr=True)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    ) as progress:
        yield Bar(progress, progress.add_task(what, total=None), what)
