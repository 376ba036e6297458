"""Read YAML keeping each node's line, so validation errors can name the line of the field.

>>> data, lines = load_yaml_with_lines("a: 1\\nb:\\n  - x: 2\\n")
>>> data
{'a': 1, 'b': [{'x': 2}]}
>>> lines[("b", 0, "x")], lines[("b",)]
(3, 2)
>>> line_for(lines, ("b", 0, "nope"))     # a missing field: the line of its parent
3
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from scenario_builder.errors import DataSourceError, ScenarioFileError

Path_ = tuple[str | int, ...]
M = TypeVar("M", bound=BaseModel)


def _walk(node: yaml.Node, path: Path_, lines: dict[Path_, int]) -> None:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            k = key.value
            lines[(*path, k)] = key.start_mark.line + 1
            _walk(value, (*path, k), lines)
            lines[(*path, k)] = key.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, (*path, i), lines)


# libyaml's C parser when PyYAML was built with it (scenario files parse ~10x faster), else the
# pure-Python one; both raise the same MarkedYAMLError with the line.
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml_with_lines(text: str) -> tuple[Any, dict[Path_, int]]:
    """Parse ``text``; return the data and a map from key path to 1-based line.

    One parse: the node tree gives the lines and is then constructed into the data.
    """
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    lines: dict[Path_, int] = {}
    if node is not None:
        _walk(node, (), lines)
    return data, lines


def line_for(lines: dict[Path_, int], path: Sequence[str | int]) -> int | None:
    """The line of ``path`` or of its nearest ancestor present in the file."""
    p = tuple(path)
    while p:
        if p in lines:
            return lines[p]
        p = p[:-1]
    return lines.get(())


#: the files :func:`read_yaml` read, while a :func:`recording_reads` block runs
_reads: ContextVar[list[Path] | None] = ContextVar("yaml_reads", default=None)


@contextlib.contextmanager
def recording_reads() -> Iterator[list[Path]]:
    """Collect the path of every file :func:`read_yaml` reads in the block (scenario, plan files,
    troop lists): what a Monte Carlo worker must be sent to load the same battle."""
    reads: list[Path] = []
    token = _reads.set(reads)
    try:
        yield reads
    finally:
        _reads.reset(token)


def read_yaml(path: Path) -> tuple[Any, dict[Path_, int]]:
    """Read a YAML file; missing files and YAML syntax errors become project errors."""
    reads = _reads.get()
    if reads is not None:
        reads.append(Path(path))
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataSourceError(path, f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ScenarioFileError(
            path,
            f"expected a UTF-8 YAML text file, got a byte 0x{exc.object[exc.start]:02x} "
            f"at offset {exc.start} that is not UTF-8 (a binary file?)",
        ) from None
    try:
        return load_yaml_with_lines(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ScenarioFileError(path, f"{where}invalid YAML: {problem}") from None


def validate(model: type[M], data: Any, path: Path, lines: dict[Path_, int]) -> M:
    """Validate ``data`` as ``model``; the first error names the line and the field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(x for x in err["loc"] if not (isinstance(x, str) and x.startswith("function-")))
        msg = err["msg"]
        cause = err.get("ctx", {}).get("error")
        located = cause is not None and hasattr(cause, "loc") and hasattr(cause, "problem")
        if located and cause is not None:  # a whole-model check that knows the field at fault
            loc, msg = (*loc, *cause.loc), cause.problem
        field = ".".join(str(x) for x in loc) or "(top level)"
        line = line_for(lines, loc)
        where = f"line {line}: " if line else ""
        if not located and err["type"] not in ("missing", "extra_forbidden") and "input" in err:
            got = err["input"]
            if not isinstance(got, dict | list):
                msg = f"{msg}, got {got!r}"
        if err["type"] == "extra_forbidden":
            msg = "unknown field"
        raise ScenarioFileError(path, f"{where}{field}: {msg}") from None
