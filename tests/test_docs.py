"""The README stays a front page and the docs it points to are there: every relative link in the
README and ``docs/`` resolves, every ``docs/NAME.md`` the code, tests and docs name exists, and
every page in ``docs/`` is reachable from the README."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: a Markdown link's target: [text](target), not an image's data or a web address
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
#: a page named in prose or code, as docs/rules-interpretations.md
NAMED = re.compile(r"\bdocs/([a-z0-9_-]+\.md)\b")


def _without_code_blocks(text: str) -> str:
    return re.sub(r"```.*?```", "", text, flags=re.S)


def test_the_readme_is_a_front_page() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 260, f"README.md has {len(lines)} lines; details belong in docs/"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in LINK.findall(_without_code_blocks(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address or an anchor on the same page
        path = (page.parent / target.split("#", 1)[0]).resolve()
        if not path.exists():
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: links to missing {broken}"


def test_every_docs_page_named_anywhere_exists() -> None:
    sources = [
        *PAGES,
        *ROOT.glob("engine/**/*.py"),
        *ROOT.glob("scenario_builder/**/*.py"),
        *ROOT.glob("maps/**/*.py"),
        *ROOT.glob("tests/*.py"),
        *ROOT.glob("benchmarks/*.py"),
        *ROOT.glob("data/**/*.md"),
    ]
    missing = sorted(
        f"{src.relative_to(ROOT)}: docs/{name}"
        for src in sources
        for name in set(NAMED.findall(src.read_text(encoding="utf-8")))
        if not (ROOT / "docs" / name).exists()
    )
    assert not missing, missing


def test_every_docs_page_is_reachable_from_the_readme() -> None:
    seen: set[Path] = set()
    todo = [ROOT / "README.md"]
    while todo:
        page = todo.pop()
        if page in seen or not page.exists():
            continue
        seen.add(page)
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if target.endswith(".md") or ".md#" in target:
                todo.append((page.parent / target.split("#", 1)[0]).resolve())
    unreached = sorted(p.name for p in PAGES[1:] if p.resolve() not in seen)
    assert not unreached, f"docs pages no page links to from the README: {unreached}"


#: a dotted name of the three packages, as `engine.battle.run_bound` (not a pattern: `build_*`)
DOTTED = re.compile(r"(?<![\w.])((?:engine|scenario_builder|maps)(?:\.[A-Za-z_]\w*)+)(?![\w*])")


def _dotted_names(text: str) -> list[str]:
    """The dotted names written in backticks: inline code and fenced code blocks."""
    blocks = re.findall(r"```.*?```", text, flags=re.S)
    spans = re.findall(r"`[^`\n]+`", _without_code_blocks(text))
    return sorted({m for span in blocks + spans for m in DOTTED.findall(span)})


def test_every_module_path_in_the_architecture_page_imports() -> None:
    # docs/architecture.md names modules (`engine.command.plan`), and names in them
    # (`engine.battle.run_bound`): the longest dotted prefix that is a module must be found,
    # and the name after it, if any, must be defined there, so a module or function moved or
    # renamed fails here rather than leaving the page stale
    import importlib
    import importlib.util

    names = _dotted_names((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert len(names) > 20  # the page names the code it describes
    stale = []
    for name in names:
        parts = name.split(".")
        # the longest prefix that is a module: down through the packages, as import goes
        k = 1
        while k < len(parts):
            spec = importlib.util.find_spec(".".join(parts[:k]))
            if spec is None or spec.submodule_search_locations is None:
                break  # not a package: what follows is a name in it
            if importlib.util.find_spec(".".join(parts[: k + 1])) is None:
                break
            k += 1
        module = ".".join(parts[:k])
        if importlib.util.find_spec(module) is None:
            stale.append(name)
            continue
        rest = parts[k:]
        if rest and not hasattr(importlib.import_module(module), rest[0]):
            stale.append(name)
    assert not stale, f"docs/architecture.md names what the code does not have: {stale}"
