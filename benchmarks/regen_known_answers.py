"""Rewrite tests/known_answers/*.json after a deliberate rules change (see known_answers.py).

python benchmarks/regen_known_answers.py [CASE ...]
"""

from __future__ import annotations

import sys
import time

from known_answers import cases, differences, path_of, to_text

from scenario_builder.atomic import atomic_path


def main(argv: list[str]) -> int:
    todo = cases()
    names = argv or sorted(todo)
    unknown = [n for n in names if n not in todo]
    if unknown:
        print(f"unknown case(s) {unknown}; expected some of {sorted(todo)}", file=sys.stderr)
        return 1
    path_of(names[0]).parent.mkdir(parents=True, exist_ok=True)
    import json

    for name in names:
        t0 = time.perf_counter()
        answer = todo[name]()
        path = path_of(name)
        old = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
        with atomic_path(path) as tmp:
            tmp.write_text(to_text(answer), encoding="utf-8")
        change = "new" if old is None else ("; ".join(differences(old, answer)) or "unchanged")
        print(
            f"{name}: {time.perf_counter() - t0:.1f} s, {answer['winner']} after "
            f"{answer['bounds']} bounds, {answer['losses']} -> {change}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
