"""`map`, `print` and `route` with a chosen ruleset's own terrain classes (through the ruleset
seam): Flodden's shipped ground (data/battlefields/flodden) read through medieval-d10's code
table (data/codes/medieval-d10.csv) and dark-age's, drawn under their names and colours
(maps.palettes), and routed by each ruleset's reading of 9.1 (Ruleset.route_triple)."""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.rulesets import get_ruleset
from maps.colours import HILLSHADE_GREY, cvd_distance
from maps.palettes import palette_for_table, terrain_palette
from scenario_builder.paths import data_dir
from scenario_builder.routing import triple_mask_of

MEDIEVAL = "medieval-d10"


# flodden_dir: the built Flodden saved once (tests/conftest.py)


@pytest.fixture(scope="module")
def medieval_view(built_flodden: Any) -> Any:
    return get_ruleset(MEDIEVAL).ground(built_flodden.battlefield)


def _table(name: str) -> dict[str, dict[str, str]]:
    with (data_dir() / "codes" / f"{name}.csv").open(newline="", encoding="utf-8") as fh:
        return {r["feature"]: r for r in csv.DictReader(fh)}


def _legend_text(page: str) -> str:
    start = page.index('class="sb-legend"')
    return page[start : page.index("</div></div>", start)]


# -- the map --------------------------------------------------------------------------------------


@pytest.mark.slow  # a CLI subprocess end to end: the full run keeps it, the quick lane not
def test_map_legend_names_medieval_d10_classes(
    run_cli: Any, flodden_dir: Path, medieval_view: Any, tmp_path: Path
) -> None:
    out = tmp_path / "map.html"
    code, _, err = run_cli("map", flodden_dir, "--ruleset", MEDIEVAL, "--out", out)
    assert code == 0, err
    legend = _legend_text(out.read_text(encoding="utf-8"))
    assert "Terrain (TERRAIN CHART)" in legend and "Cover (FIRING CHART)" in legend
    assert "Movement (7.3)" not in legend and "impractical" not in legend
    # every TERRAIN CHART class on this ground, by the book's name, and no class that is not
    names = medieval_view.meta["legend"]["move"]
    present = {names[int(c)] for c in np.unique(medieval_view.layer("move"))}
    assert {"marsh", "impassable", "built_up", "road_track"} <= present
    for name in names.values():
        assert (f"</span>{name.replace('_', ' ')}</div>" in legend) == (name in present), name
    # the DEM's gentle and steep slopes at the ruleset's thresholds (3 and 10 degrees)
    assert "gentle slope (3-10°)" in legend and "steep slope (10° and over)" in legend
    # the same ground as built (2mm Earth) is still drawn under 7.3's names: the boggy hollow
    # is Wet there, marsh under medieval-d10
    plain = tmp_path / "plain.html"
    assert run_cli("map", flodden_dir, "--out", plain)[0] == 0
    legend = _legend_text(plain.read_text(encoding="utf-8"))
    assert "Movement (7.3)" in legend and "</span>wet</div>" in legend
    assert "marsh" not in legend and "Slopes" not in legend


@pytest.mark.slow  # a CLI subprocess end to end: the full run keeps it, the quick lane not
def test_map_legend_names_dark_age_classes(run_cli: Any, flodden_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "map.html"
    assert run_cli("map", flodden_dir, "--ruleset", "dark-age", "--out", out)[0] == 0
    legend = _legend_text(out.read_text(encoding="utf-8"))
    table = _table("dark-age")
    # 5.13: the boggy hollow's marsh is difficult ground; 5.14 lakes impassable
    assert table["marsh"]["move"] == "difficult" and "</span>difficult</div>" in legend
    assert "Terrain (5.13, 5.14, 5.20)" in legend and "Cover (7.2)" in legend


def test_map_unknown_ruleset_is_one_line(run_cli: Any, flodden_dir: Path, tmp_path: Path) -> None:
    code, _, err = run_cli("map", flodden_dir, "--ruleset", "nonesuch", "--out", tmp_path / "x")
    assert code != 0 and "unknown ruleset 'nonesuch'" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


# -- the palettes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["2mm-earth-v0.9", MEDIEVAL, "dark-age"])
def test_palette_colours_apart_for_colour_blind_readers_and_off_the_hillshade(name: str) -> None:
    """Each role's drawn classes >= 20 CIE76 apart under every colour-vision deficiency, and as
    far from the hillshade's grey: carto's test of the armies, applied to the terrain."""
    rs = get_ruleset(name)
    legend = {role: dict(enumerate(names)) for role, names in rs.terrain_classes().items()}
    pal = palette_for_table(Path(rs.terrain.path).stem, legend)
    for role in ("move", "cover"):
        drawn = [s for s in pal.classes[role] if s.drawn]
        # every class of the ruleset's table has a colour of its own, not a fallback
        assert len(drawn) == len(rs.terrain_classes()[role]) - 1
        for s in drawn:
            assert cvd_distance(s.colour, HILLSHADE_GREY) >= 20.0, (role, s.name)
        for a, b in itertools.combinations(drawn, 2):
            assert cvd_distance(a.colour, b.colour) >= 20.0, (role, a.name, b.name)
        # print: every drawn move class has a fill and ink; hatches tell them apart in grey
        if role == "move":
            styles = [pal.printed()[s.code].print_style for s in drawn]
            assert all(st is not None for st in styles)
            hatches = [st.hatch for st in styles if st is not None]
            assert len(set(hatches)) == len(hatches)


def test_a_ruleset_the_maps_do_not_know_still_draws() -> None:
    """A toy ruleset's classes (no entry in maps.palettes) get Okabe-Ito colours; its first
    class is open ground."""
    pal = palette_for_table("toy", {"move": {0: "grass", 1: "bog", 2: "lava"}})
    assert [s.drawn for s in pal.classes["move"]] == [False, True, True]
    assert pal.classes["move"][1].colour != pal.classes["move"][2].colour
    assert pal.title("move") == "Move (toy)"


# -- the print ------------------------------------------------------------------------------------

#: lon/lat box over the boggy hollow at the foot of Branxton Hill (the overlay's marsh)
MARSH_BBOX = "-2.195,55.624,-2.185,55.632"


def _index_text(pdf: Path) -> str:
    import pdfplumber

    with pdfplumber.open(pdf) as doc:
        return doc.pages[0].extract_text() or ""


def test_print_legend_names_medieval_d10_classes(
    run_cli: Any, flodden_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "d10.pdf"
    args = ["--scale", "25mm", "--paper", "A2", "--bbox", MARSH_BBOX, "--out", out]
    code, _, err = run_cli("print", flodden_dir, "--ruleset", MEDIEVAL, *args)
    assert code == 0, err
    text = _index_text(out)
    assert "marsh (TERRAIN CHART)" in text and "(7.3)" not in text
    # the DEM's slope bands at the ruleset's thresholds, hatched and in the legend
    assert "gentle slope (3-10°) (TERRAIN CHART, from the DEM)" in text
    # as built, the same ground prints 2mm Earth's classes (the marsh is 7.3 Wet)
    plain = tmp_path / "plain.pdf"
    code, _, err = run_cli(
        "print",
        flodden_dir,
        "--scale",
        "2mm",
        "--paper",
        "A2",
        "--bbox",
        MARSH_BBOX,
        "--out",
        plain,
    )
    assert code == 0, err
    text = _index_text(plain)
    assert "wet (7.3)" in text and "TERRAIN CHART" not in text and "slope" not in text


def test_print_legend_cites_v0_7_charts_under_v0_7(
    run_cli: Any, flodden_dir: Path, tmp_path: Path
) -> None:
    """v0.7 prints 2mm Earth's terrain charts as 8.3 (movement) and 8.2 (cover), where v0.9
    has them as 7.3 and 7.2: the legend cites the book in play (Ruleset.chart_sections)."""
    out = tmp_path / "v07.pdf"
    args = ["--scale", "2mm", "--paper", "A2", "--bbox", MARSH_BBOX, "--out", out]
    code, _, err = run_cli("print", flodden_dir, "--ruleset", "2mm-earth-v0.7", *args)
    assert code == 0, err
    text = _index_text(out)
    assert "wet (8.3)" in text and "(7.3)" not in text


def test_every_ruleset_heads_each_terrain_role_with_its_own_chart() -> None:
    shipped = ["2mm-earth-v0.9", "2mm-earth-v0.7", "2mm-earth-v0.9+wc-morale", MEDIEVAL, "dark-age"]
    for name in shipped:
        rs = get_ruleset(name)
        assert set(rs.chart_sections) == set(rs.terrain.classes), name
        pal = palette_for_table(
            Path(rs.terrain.path).stem, {}, ruleset=rs.name, chart_sections=rs.chart_sections
        )
        assert pal.title("move") == "{} ({})".format(*rs.chart_sections["move"]), name
    assert get_ruleset("2mm-earth-v0.7").chart_sections["cover"] == ("Cover", "8.2")
    assert get_ruleset("2mm-earth-v0.9+wc-morale").chart_sections["move"] == ("Movement", "7.3")


# -- the route ------------------------------------------------------------------------------------


def test_9_1_triple_cells_are_the_tables_sight_blockers_marsh_and_impassable(
    medieval_view: Any, built_flodden: Any
) -> None:
    """Read from data/codes/medieval-d10.csv: a feature counts triple when its row blocks sight
    or its TERRAIN CHART class is marsh or impassable; nothing else does."""
    rs = get_ruleset(MEDIEVAL)
    assert rs.route_triple == {"move": frozenset({"marsh", "impassable"})}
    rows = _table(MEDIEVAL)
    triple_features = {
        f
        for f, r in rows.items()
        if r["blocks_sight"] == "true" or r["move"] in rs.route_triple["move"]
    }
    bf = built_flodden.battlefield
    legend = bf.meta["legend"]["feature"]
    want = np.isin(bf.layer("feature"), [c for c, n in legend.items() if n in triple_features])
    got = triple_mask_of(medieval_view, rs.route_triple)
    assert got.any() and np.array_equal(got, want)
    # marsh is 7.2 Wet for 2mm Earth: once, not triple, on the ground as built
    marsh = medieval_view.layer("move") == 6
    assert marsh.any() and not triple_mask_of(bf)[marsh].any()


def _marsh_metres(view: Any, path: list[list[float]]) -> float:
    """Metres of a route's polyline over marsh cells (sampled every metre)."""
    import shapely

    line = shapely.LineString(path)
    n = max(2, int(line.length))
    pts = [line.interpolate(i * line.length / n) for i in range(n + 1)]
    inv = ~view.transform
    cells = [inv * (p.x, p.y) for p in pts]
    move = view.layer("move")
    return sum(bool(move[int(r), int(c)] == 6) for c, r in cells) * line.length / n


def test_9_1_medieval_route_goes_round_the_marsh_as_its_table_says(
    run_cli: Any, flodden_dir: Path, medieval_view: Any
) -> None:
    """Across the east end of the boggy hollow: under medieval-d10 (marsh: "only on track,
    road or through a gap", read as 9.1's Impractical) the rider goes round it; on the ground as
    built (2mm Earth: marsh is Wet) he rides straight through."""
    move = medieval_view.layer("move")
    _, cols = np.nonzero(move == 6)
    c = int(cols.max()) - 6  # six cells in from the hollow's east end
    across = np.nonzero(move[:, c] == 6)[0]
    a = medieval_view.transform * (c + 0.5, int(across.min()) - 6)
    b = medieval_view.transform * (c + 0.5, int(across.max()) + 7)
    ends = ["--from", f"{a[0]},{a[1]}", "--to", f"{b[0]},{b[1]}", "--json"]
    code, out, err = run_cli("route", flodden_dir, *ends, "--ruleset", MEDIEVAL)
    assert code == 0, err
    d10 = json.loads(out)
    code, out, err = run_cli("route", flodden_dir, *ends)
    assert code == 0, err
    built = json.loads(out)
    straight = float(np.hypot(b[0] - a[0], b[1] - a[1]))
    assert d10["ruleset"] == MEDIEVAL and d10["triple_terrain"] == "move: impassable, marsh"
    assert built["length_m"] == pytest.approx(straight, rel=1e-6)
    assert _marsh_metres(medieval_view, built["path"]) > 150.0
    assert _marsh_metres(medieval_view, d10["path"]) < medieval_view.res  # round, not through
    # going round is dearer than riding through once, cheaper than through at triple
    marsh_once = _marsh_metres(medieval_view, built["path"])
    assert straight < d10["cost_m"] < straight + 2 * marsh_once


def test_route_unknown_ruleset_is_one_line(run_cli: Any, flodden_dir: Path) -> None:
    code, _, err = run_cli(
        "route", flodden_dir, "--from", "0,0", "--to", "1,1", "--ruleset", "nonesuch"
    )
    assert code != 0 and "unknown ruleset 'nonesuch'" in err and "Traceback" not in err


def test_view_names_its_table_and_ruleset(medieval_view: Any) -> None:
    pal = terrain_palette(medieval_view)
    assert (pal.table, pal.ruleset) == (MEDIEVAL, MEDIEVAL)
    assert [s.name for s in pal.classes["move"]] == get_ruleset(MEDIEVAL).terrain_classes()["move"]
