"""Is ``montecarlo --scheduler ADDRESS`` a Dask scheduler? Asked before any work, in bounded time.

``distributed.Client`` on an address that is something else fails badly: a web server never
answers its handshake (the client waits past its own timeout), a server that accepts and closes
makes it read a length out of nothing and fail with ``MemoryError``, and a string that is no
address raises ``ValueError`` from deep inside. This asks the address who it is (the
scheduler's ``identity`` call) with one deadline over connecting, writing and reading, and turns
every failure into one :class:`~scenario_builder.errors.ScenarioError` line.

>>> check_scheduler("not a url")
Traceback (most recent call last):
...
scenario_builder.errors.ScenarioError: not a url: expected a Dask scheduler address like tcp://HOST:8786
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from scenario_builder.errors import ScenarioError

#: seconds the whole question may take (a scheduler on a LAN answers in milliseconds)
CHECK_TIMEOUT_S = 8.0


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """distributed logs each failed connection attempt; the user gets one line instead."""
    loggers = [logging.getLogger(n) for n in ("distributed", "tornado", "asyncio")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


async def _identity(address: str, timeout: float) -> Any:
    from distributed.comm import connect
    from distributed.security import Security

    # the client's TLS files from Dask's configuration (distributed.comm.tls.*), as the
    # Client that follows reads them: a tls:// scheduler is asked the same way
    args = Security().get_connection_args("client")
    comm = await connect(address, timeout=timeout, **args)
    try:
        await comm.write({"op": "identity", "reply": True})
        return await comm.read()
    finally:
        comm.abort()


def check_scheduler(address: str, timeout: float = CHECK_TIMEOUT_S) -> None:
    """Raise :class:`ScenarioError` (one line, naming ``address``) unless a Dask scheduler
    answers there within ``timeout`` seconds."""
    from distributed.comm.addressing import parse_address

    expected = "expected a Dask scheduler address like tcp://HOST:8786"
    try:
        scheme, loc = parse_address(address, strict=False)
    except (ValueError, TypeError):
        raise ScenarioError(address, expected) from None
    if not loc or " " in address:
        raise ScenarioError(address, expected)
    if scheme == "tls":
        from distributed.security import Security

        if Security().get_connection_args("client").get("ssl_context") is None:
            raise ScenarioError(
                address,
                "tls:// needs the client's TLS files: --tls-ca-file, --tls-cert and --tls-key, "
                "or Dask's configuration (DASK_DISTRIBUTED__COMM__TLS__CA_FILE, "
                "..._CLIENT__CERT, ..._CLIENT__KEY)",
            )
    try:
        with _quiet():
            reply = asyncio.run(asyncio.wait_for(_identity(address, timeout), timeout))
    except TimeoutError:
        raise ScenarioError(
            address, f"no Dask scheduler answered within {timeout:g} s (is it one?)"
        ) from None
    except Exception as exc:  # a server speaking another protocol (MemoryError included)
        # distributed reads a frame length from whatever bytes come back (or none): any
        # failure here means the far end is not a scheduler, whatever the exception says
        from distributed.comm import CommClosedError

        if isinstance(exc, CommClosedError):
            why = "it closed the connection without an answer"
            if scheme == "tcp":  # what a TLS scheduler does to a plain connection
                why += "; a TLS scheduler needs tls://"
        elif isinstance(exc, OSError):
            why = f"cannot connect: {exc}"
        else:
            why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise ScenarioError(address, f"not a Dask scheduler ({why[:200]})") from None
    kind = reply.get("type") if isinstance(reply, dict) else None
    if kind != "Scheduler":
        got = f"a Dask {kind.lower()}" if isinstance(kind, str) else "something else"
        raise ScenarioError(address, f"expected a Dask scheduler, got {got}")
