"""Playback of ~500 bases x 30 bounds: build time, HTML size, and time to open in Chromium.

Run: ``python benchmarks/bench_playback.py`` (needs Debian chromium). The battlefield is the real
Bayreuth build; the battle log is ``maps.testing.synthetic_battle_log`` (a drawing fixture).
Targets: the offline page opens (load event + first bound drawn) in under 3 s; the page is
written with fog of war in under 5 s. The synthetic log stays here only because no shipped
scenario has 500 bases; the tests play back a real run (tests/conftest.py ``teutoburg_run``).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from maps.playback import write_playback
from maps.testing import write_run_dir
from scenario_builder.build import build_site

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


DRAWN = "window.sbPlayback && document.querySelectorAll('path.sb-base').length > 400"


def main() -> None:
    from playwright.sync_api import sync_playwright

    bf = build_site("north_bayreuth_pair").battlefield
    tmp = Path(tempfile.mkdtemp())
    run = write_run_dir(bf, tmp / "run", bases_per_side=250, bounds=30)
    for fog in (True, False):
        t0 = time.perf_counter()
        out = write_playback(run, tmp / f"pb_{fog}.html", offline=True, fog=fog)
        print(
            f"write playback (fog={fog}): {time.perf_counter() - t0:.2f} s, "
            f"{out.stat().st_size / 1e6:.2f} MB"
        )
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
        times = []
        for _ in range(3):
            page = b.new_page(viewport={"width": 1200, "height": 850})
            t0 = time.perf_counter()
            page.goto((tmp / "pb_True.html").as_uri())
            page.wait_for_function(DRAWN)
            times.append(time.perf_counter() - t0)
            t1 = time.perf_counter()
            for _ in range(29):
                page.locator("#sb-next").click(force=True)
            step = (time.perf_counter() - t1) / 29
            page.close()
        runs = ", ".join(f"{t:.2f}" for t in times)
        print(
            f"open in chromium: median {sorted(times)[1]:.2f} s (runs {runs}); "
            f"one step incl. click round trip {step * 1000:.0f} ms"
        )
        b.close()


if __name__ == "__main__":
    main()
