"""The one CLI, ``scenario-builder``: a click group, one module per subcommand (like ``rio``).

Subcommands are imported lazily so ``scenario-builder --help`` stays fast and a heavy library
(folium, dask) is only imported by the command that needs it. Every :class:`ScenarioError` becomes
a one-line ``Error: <file>: <problem>`` on stderr and exit status 1, never a traceback.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator
from typing import Any

import click

from scenario_builder.errors import ScenarioError, ScenarioWarning

# name -> "module:attribute"; each module holds one click command.
COMMANDS: dict[str, str] = {
    "build": "scenario_builder.cli.build:build",
    "run": "scenario_builder.cli.run:run",
    "odds": "scenario_builder.cli.odds:odds",
    "route": "scenario_builder.cli.route:route",
    "map": "scenario_builder.cli.map:map_cmd",
    "print": "scenario_builder.cli.print_cmd:print_cmd",
    "model": "scenario_builder.cli.model:model",
    "demo": "scenario_builder.cli.demo:demo",
    "montecarlo": "scenario_builder.cli.montecarlo:montecarlo",
    "validate": "scenario_builder.cli.validate:validate",
    "sites": "scenario_builder.cli.sites:sites",
    "scenarios": "scenario_builder.cli.scenarios:scenarios",
    "schema": "scenario_builder.cli.schema:schema",
    "rulesets": "scenario_builder.cli.rulesets:rulesets",
}


class LazyGroup(click.Group):
    """A group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name in COMMANDS if self._load(name) is not None)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self._load(cmd_name)

    @staticmethod
    def _load(name: str) -> click.Command | None:
        spec = COMMANDS.get(name)
        if spec is None:
            return None
        module_name, attr = spec.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # the subcommand is not part of this build yet
                return None
            raise
        return getattr(module, attr)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    if issubclass(category, ScenarioWarning):
        click.echo(f"Warning: {message}", err=True)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="scenario-builder")
def cli() -> None:
    """Historical battle scenario builder: real ground, Battle for 2mm Earth rules, maps, print."""


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``timeout``, a cancelled job) raised as an interrupt, so every
    clean-up a Ctrl-C runs (temporary folders beside ``--out``, workers) runs for it too."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise Terminated()


def main(argv: list[str] | None = None) -> None:
    """Console entry point: run the CLI, turning project errors into one-line messages.

    SIGTERM ends a command as Ctrl-C does, with exit status 143 (128 + 15) and one line,
    ``Terminated.``, after the same clean-up (docs/errors.md)."""
    warnings.showwarning = _show_warning
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        cli.main(args=argv, prog_name="scenario-builder", standalone_mode=False)
    except ScenarioError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(1)
    except click.exceptions.Abort as exc:
        _quiet_exit()
        if _terminated(exc):
            click.echo("Terminated.", err=True)
            sys.exit(143)
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.UsageError as exc:
        # a mistyped option, command or value: one line like every other error, with where to
        # look, and click's (and POSIX's) usage status 2 (docs/errors.md)
        where = exc.ctx.command_path if exc.ctx is not None else "scenario-builder"
        click.echo(f"Error: {exc.format_message()} (see '{where} --help')", err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt as exc:
        _quiet_exit()
        if _terminated(exc):
            click.echo("Terminated.", err=True)
            sys.exit(143)
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except BrokenPipeError:  # `scenario-builder sites | head`: the reader left; say nothing
        # Python would report the pipe again when flushing stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
    except OSError as exc:  # permissions, full disk, a missing parent: one line naming the path
        click.echo(f"Error: {os_error_line(exc)}", err=True)
        sys.exit(1)
    except Exception as exc:
        if interrupted(exc):  # Ctrl-C inside a library that wrapped it: still an abort
            _quiet_exit()
            if _terminated(exc):
                click.echo("Terminated.", err=True)
                sys.exit(143)
            click.echo("Aborted.", err=True)
            sys.exit(130)
        # A bug, not bad input: still one line (and exit 1); the traceback on request.
        if os.environ.get("SCENARIO_BUILDER_DEBUG"):
            raise
        click.echo(
            f"Error: internal error ({type(exc).__name__}: {exc}); "
            "run with SCENARIO_BUILDER_DEBUG=1 for the traceback and report it",
            err=True,
        )
        sys.exit(1)


def interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is a Ctrl-C (or SIGTERM) that a library caught and wrapped: a
    KeyboardInterrupt in its chain of causes, or an error of a C extension (:data:`_WRAPPERS`)
    with the interrupt's name in its message and no cause: pydantic-core's SchemaError, when a
    Ctrl-C comes while a model's validator is being built (seen in ``montecarlo`` interrupted
    1.5 s in), reportlab's RuntimeError while a PDF's text is measured (``demo``).

    >>> interrupted(RuntimeError("x"))
    False
    >>> try:
    ...     try:
    ...         raise KeyboardInterrupt
    ...     except KeyboardInterrupt as inner:
    ...         raise RuntimeError("wrapped") from inner
    ... except RuntimeError as outer:
    ...     interrupted(outer)
    True
    >>> interrupted(RuntimeError("codec failed (KeyboardInterrupt: )"))
    True
    """
    return any(
        isinstance(e, KeyboardInterrupt)
        or (type(e).__name__ in _WRAPPERS and bool(_INTERRUPT_NAMES & set(_words(str(e)))))
        for e in _chain(exc)
    )


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and its causes (or, without one, the exception it was raised while handling)."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        yield e
        e = e.__cause__ or e.__context__


#: errors a C extension raises with an interrupt it caught named only in the message:
#: pydantic-core's SchemaError, and reportlab's _rl_accel RuntimeError ("encoding with
#: 'WinAnsiEncoding' codec failed (KeyboardInterrupt: )", seen in `demo` interrupted while it
#: prints)
_WRAPPERS = frozenset({"SchemaError", "RuntimeError"})
_INTERRUPT_NAMES = frozenset({"KeyboardInterrupt", "Terminated"})


def _words(text: str) -> list[str]:
    return "".join(c if c.isalnum() or c == "_" else " " for c in text).split()


def _terminated(exc: BaseException) -> bool:
    """Whether ``exc`` is (or was caused by) a SIGTERM (:class:`Terminated`).

    >>> _terminated(RuntimeError("x")), _terminated(Terminated())
    (False, True)
    >>> _terminated(RuntimeError("codec failed (Terminated: )"))
    True
    """
    return any(
        isinstance(e, Terminated)
        or (type(e).__name__ in _WRAPPERS and "Terminated" in _words(str(e)))
        for e in _chain(exc)
    )


def _quiet_exit() -> None:
    """After an interrupt, library clean-up at exit (a Dask cluster interrupted while starting,
    closed by distributed's atexit hook) may fail; the user has had the one line already.

    The exit status must then be 130 every time. CPython 3.11 notes a KeyboardInterrupt that
    leaves an ``exec()`` of source text (dataclasses, namedtuples and pydantic build methods
    that way while a module imports) in a process-wide flag, and at the exit of ``python -m``
    it kills itself with SIGINT when the flag is up, even though the interrupt was caught:
    about one `montecarlo` in five interrupted 1.5 s in exited -2 on a loaded machine. The next
    ``exec()`` of text lowers the flag, hence the empty one. Later SIGINTs are ignored, so a
    second Ctrl-C cannot break the clean-up either (finalisation would have put SIGINT back to
    the default)."""
    sys.unraisablehook = lambda _info: None
    exec("")  # lowers CPython's "unhandled KeyboardInterrupt" flag (see above)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # nor a second kill


def os_error_line(exc: OSError) -> str:
    """``<path>: <reason>`` for an OSError, naming the file it was about when it says.

    >>> os_error_line(PermissionError(13, "Permission denied", "/x/out"))
    '/x/out: Permission denied'
    >>> os_error_line(OSError(28, "No space left on device"))
    'No space left on device'
    """
    reason = exc.strerror or str(exc)
    # (not map(): the subcommand module scenario_builder.cli.map shadows it in this namespace)
    paths = [str(p) for p in (exc.filename, exc.filename2) if p is not None]
    return ": ".join([*paths[:1], reason])
