"""The printed table as a wargamer uses it, on Flodden (SRTM + overlay, the demo's battle):
every word on the paper inside the margins on A4, Letter and a 150 mm square; no two printed
characters overlapping (contour labels never collide); names and deployments on the sheets;
a buildable cut-layer stack (6.2 steps) with registration marks on every sheet.

Text and marks are read back from the PDFs with pdfplumber (pdfminer.six).
"""

from __future__ import annotations

import itertools
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import shapely

pdfplumber = pytest.importorskip("pdfplumber")

MM = 72 / 25.4


@pytest.fixture(scope="module")
def flodden_fight(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any, Any]:
    """``scenario-builder run flodden_1513 --max-bounds 0``: the shipped deployment on its
    ground (run directory, BattleLog, Battlefield)."""
    from engine.scenario import load_scenario
    from scenario_builder.battle import build_battlefield, fight
    from scenario_builder.run_folder import write_run

    sc = load_scenario("flodden_1513")
    built = build_battlefield(sc)
    log, summary = fight(sc, built, seed=0, max_bounds=0)
    run = tmp_path_factory.mktemp("flodden_run") / "run"
    run.mkdir()
    write_run(run, log, summary, built)
    return run, log, built.battlefield


@pytest.fixture(scope="module")
def flodden_run(flodden_fight: tuple[Path, Any, Any]) -> Path:
    return flodden_fight[0]


@pytest.fixture(scope="module")
def battle_bbox(flodden_fight: tuple[Path, Any, Any]) -> str:
    """The battle area: every deployed base with 250 m round it (as the demo prints)."""
    from scenario_builder.cli.demo import battle_bbox as bbox

    _, log, bf = flodden_fight
    return ",".join(f"{v:.5f}" for v in bbox(log, bf))


def _chars_outside(page: Any, inset_mm: float) -> list[str]:
    bad = []
    inset = inset_mm * MM
    w, h = float(page.width), float(page.height)
    for ch in page.chars:
        if (
            ch["x0"] < inset - 0.01
            or ch["x1"] > w - inset + 0.01
            or ch["top"] < inset - 0.01
            or ch["bottom"] > h - inset + 0.01
        ):
            bad.append(f"page {page.page_number}: {ch['text']!r} at {ch['x0']:.1f},{ch['top']:.1f}")
    return bad


def _overlapping_chars(page: Any) -> list[tuple[str, str]]:
    """Pairs of characters whose boxes overlap by more than a fifth of the smaller one."""
    chars = [c for c in page.chars if c["text"].strip()]
    boxes = [shapely.box(c["x0"], c["top"], c["x1"], c["bottom"]) for c in chars]
    tree = shapely.STRtree(boxes)
    out = []
    for i, j in zip(*tree.query(boxes, predicate="intersects"), strict=True):
        if i >= j:
            continue
        inter = boxes[i].intersection(boxes[j]).area
        if inter > 0.2 * min(boxes[i].area, boxes[j].area):
            out.append((chars[i]["text"], chars[j]["text"]))
    return out


@pytest.mark.parametrize(
    "paper",
    # A4 in the quick lane; the other papers (a whole print read back page by page each) in the
    # full run
    [
        "A4",
        pytest.param("Letter", marks=pytest.mark.slow),
        pytest.param("150x150mm", marks=pytest.mark.slow),
    ],
)
def test_every_word_inside_the_margins(
    run_cli, flodden_run: Path, battle_bbox: str, tmp_path: Path, paper: str
) -> None:
    """The index page keeps every word inside its 12 mm margin, the sheets inside the 4 mm
    every printer can print (their labels and scale bars sit in the 9-10 mm margin strip)."""
    from maps.layout import INDEX_MARGIN_MM, SAFE_MM

    out = tmp_path / "layout.pdf"
    code, _, err = run_cli(
        "print",
        flodden_run,
        "--scale",
        "1:10000",
        "--paper",
        paper,
        "--bbox",
        battle_bbox,
        "--out",
        out,
    )
    assert code == 0, err
    with pdfplumber.open(out) as doc:  # parsed once: pdfminer reads each page's paths slowly
        assert len(doc.pages) >= 2
        for i, page in enumerate(doc.pages):
            assert _chars_outside(page, INDEX_MARGIN_MM if i == 0 else SAFE_MM) == []
            assert _overlapping_chars(page) == []


@pytest.mark.slow  # the battle area printed at 2mm on A3 and read back sheet by sheet
def test_names_deployments_and_labels_on_the_sheets(
    run_cli, flodden_run: Path, battle_bbox: str, tmp_path: Path
) -> None:
    """Place names from the overlay, the formations' names (the log's header) and contour
    labels print; contour labels are level numbers in the window's range, none colliding."""
    from scenario_builder.battlefield import Battlefield

    out = tmp_path / "layout.pdf"
    code, _, err = run_cli(
        "print",
        flodden_run,
        "--scale",
        "2mm",
        "--paper",
        "A3",
        "--bbox",
        battle_bbox,
        "--out",
        out,
    )
    assert code == 0, err
    log = json.loads((flodden_run / "battle_log.json").read_text())
    lv = Battlefield.load(flodden_run / "battlefield").layer("level")
    text = []
    contour_labels = 0
    with pdfplumber.open(out) as doc:
        for page in doc.pages:
            assert _overlapping_chars(page) == []
            words = page.extract_words(extra_attrs=["non_stroking_color"])
            # the page's words in reading order (pdfplumber's extract_text lays out a text map
            # of the page first, several times the cost of the words themselves)
            text.append(" ".join(w["text"] for w in words))
            for word in words:
                colour = tuple(round(v, 2) for v in word["non_stroking_color"] or ())
                if colour == (0.45, 0.28, 0.15):  # maps.layout.CONTOUR_INK
                    assert re.fullmatch(r"\d+", word["text"]), word["text"]
                    assert int(lv.min()) <= int(word["text"]) <= int(lv.max())
                    contour_labels += 1
    every = "\n".join(text)
    assert contour_labels > 50
    from maps.features import ground_features, short_name
    from maps.layout import LayoutOptions, plan_layout
    from maps.table import Paper, TableScale

    bf = Battlefield.load(flodden_run / "battlefield")
    bbox = tuple(float(v) for v in battle_bbox.split(","))
    lay = plan_layout(
        bf, LayoutOptions(TableScale.from_text("2mm"), Paper.from_text("A3"), bbox=bbox)
    )
    window = shapely.box(*lay.window)
    named = {
        short_name(f.name) for f in ground_features(bf) if f.name and f.geometry.intersects(window)
    }
    assert {"Branxton Hill", "Piper Hill"} <= named  # the overlay's names in the battle area
    assert all(name in every for name in named), [n for n in named if n not in every]
    names = [f["name"] for f in log["formations"]]
    assert sum(n in every for n in names) >= len(names) - 1, names
    assert "bases at bound 0" in text[0]  # the legend says what the rectangles are


def _circles(page: Any) -> list[tuple[float, float]]:
    """Registration marks: circles 3 mm across (``maps.layout._registration_mark``)."""
    out = []
    for cv in page.curves:
        w, h = cv["x1"] - cv["x0"], cv["bottom"] - cv["top"]
        if abs(w - 3 * MM) < 0.5 and abs(h - 3 * MM) < 0.5:
            out.append(((cv["x0"] + cv["x1"]) / 2, (cv["top"] + cv["bottom"]) / 2))
    return out


@pytest.mark.slow  # every level of Flodden cut and nested: the full run keeps it
def test_flodden_battle_area_cut_stack_is_buildable(
    run_cli, flodden_run: Path, battle_bbox: str, tmp_path: Path
) -> None:
    """6.2 steps as boards: a base board at the window's lowest level, each board inside the
    one below and never identical to it, totals that add up, marks on every sheet."""
    layers = tmp_path / "layers"
    code, stdout, err = run_cli(
        "print",
        flodden_run,
        "--scale",
        "2mm",
        "--paper",
        "A3",
        "--bbox",
        battle_bbox,
        "--out",
        tmp_path / "l.pdf",
        "--layers",
        layers,
        "--levels-per-board",
        "2",
    )
    assert code == 0, err
    idx = json.loads((layers / "layers.json").read_text())
    boards = idx["layers"]
    assert idx["levels_per_board"] == 2 and idx["board_mm"] == 4.0  # 2 levels of 2 m at 2mm
    assert idx["boards"] == idx["base"]["copies"] + sum(b["copies"] for b in boards)
    assert idx["total_thickness_mm"] == pytest.approx(idx["boards"] * idx["board_mm"])
    m = re.search(r"(\d+) boards .*?, (\d+) template sheets .*, ([\d.]+) mm thick", stdout)
    assert m and int(m.group(1)) == idx["boards"] and int(m.group(2)) == idx["sheets"]
    assert "2 levels a board (4 m steps) (--levels-per-board)" in stdout
    window_area = (idx["window"][2] - idx["window"][0]) * (idx["window"][3] - idx["window"][1])
    assert idx["base"]["area_m2"] == pytest.approx(window_area, rel=1e-6)
    areas = [idx["base"]["area_m2"]] + [b["area_m2"] for b in boards]
    assert all(a > b for a, b in itertools.pairwise(areas))  # nested and never identical
    levels = [b["level"] for b in boards]
    assert all(b - a >= 2 for a, b in itertools.pairwise(levels))  # two levels per board
    # every sheet of a sample of boards (low, middle, top) carries >= 4 registration marks
    for b in (boards[0], boards[len(boards) // 2], boards[-1]):
        with pdfplumber.open(layers / b["pdf"]) as doc:
            assert len(doc.pages) == len(b["sheets"]) + 1  # an index page first
            for page in doc.pages[1:]:
                assert len(_circles(page)) >= 4
                words = page.extract_text()
                assert "neighbours:" in words and "cut from 4 mm board" in words


def _battle_window(flodden_fight: tuple[Path, Any, Any]) -> tuple[Any, Any]:
    """The demo's print: the battle area at 2mm on A3 (its Battlefield and Layout)."""
    from maps.layout import LayoutOptions, plan_layout
    from maps.table import Paper, TableScale
    from scenario_builder.cli.demo import battle_bbox as bbox

    _, log, bf = flodden_fight
    opts = LayoutOptions(TableScale.from_text("2mm"), Paper.from_text("A3"), bbox=bbox(log, bf))
    return bf, plan_layout(bf, opts)


def test_default_stack_on_the_battle_area_stays_buildable(
    flodden_fight: tuple[Path, Any, Any],
) -> None:
    """By default the fewest levels a board that keep the stack within TARGET_BOARDS (the demo's
    window: 70 boards at one level a board); ``--levels-per-board`` still overrides."""
    from maps.cutlayers import TARGET_BOARDS, CutOptions, plan_stack

    bf, lay = _battle_window(flodden_fight)
    stack = plan_stack(bf, lay, CutOptions())
    n = stack.levels_per_board
    assert n > 1 and stack.board_count <= TARGET_BOARDS
    assert plan_stack(bf, lay, CutOptions(levels_per_board=n - 1)).board_count > TARGET_BOARDS
    assert stack.board_mm == n * bf.step  # 2mm: a 2 m level is 2 mm of board
    assert f"{n} levels a board" in stack.why and f"within {TARGET_BOARDS} boards" in stack.why
    one = plan_stack(bf, lay, CutOptions(levels_per_board=1))
    assert one.levels_per_board == 1 and one.board_count > TARGET_BOARDS
    assert "(--levels-per-board)" in one.why


def _cut_line_on_page(page: Any, table_mm: tuple[float, float], inset_mm: float) -> float:
    """Length (pt) of red stroke more than ``inset_mm`` inside the sheet's printed area and off
    the table's edge, which the sheet places by its "at X, Y mm from the table's NW corner"."""
    m = 10 * MM
    w, h = float(page.width), float(page.height)
    at = re.search(r"at (\d+), (\d+) mm from the table", page.extract_text())
    assert at, "the sheet says where it lies on the table"
    x, y = float(at.group(1)) * MM, float(at.group(2)) * MM
    edge = shapely.box(m - x, m - y, m - x + table_mm[0] * MM, m - y + table_mm[1] * MM)
    inner = shapely.box(
        m + inset_mm * MM, m + inset_mm * MM, w - m - inset_mm * MM, h - m - inset_mm * MM
    )
    length = 0.0
    for obj in page.curves + page.lines:
        if obj.get("stroking_color") == (1.0, 0.0, 0.0) and len(obj["pts"]) > 1:
            line = shapely.LineString(obj["pts"]).difference(edge.boundary.buffer(1.0))
            length += line.intersection(inner).length
    return length


def test_template_sheets_only_where_a_cut_line_runs(
    run_cli, flodden_fight: tuple[Path, Any, Any], battle_bbox: str, tmp_path: Path
) -> None:
    """The demo's print: a board's template holds exactly the sheets whose own part of the table
    (less half of each overlap) a cut line crosses, read back from the board's SVG; the base
    board, a plain rectangle, has none; the summary's totals are layers.json's."""
    run, _, _ = flodden_fight
    _, lay = _battle_window(flodden_fight)
    layers = tmp_path / "layers"
    code, stdout, err = run_cli(
        "print", run, "--scale", "2mm", "--paper", "A3", "--bbox", battle_bbox,
        "--out", tmp_path / "l.pdf", "--layers", layers,
    )  # fmt: skip
    assert code == 0, err
    idx = json.loads((layers / "layers.json").read_text())
    assert idx["boards"] <= idx["target_boards"] and idx["sheets"] <= 400
    assert idx["base"]["pdf"] is None and idx["base"]["sheets"] == []
    t = lay.tiling
    w, h = idx["table_mm"]
    frame = shapely.box(0, 0, w, h).boundary.buffer(0.01)
    half = t.overlap / 2
    for b in idx["layers"]:
        line = _svg_ground(ET.parse(layers / b["svg"]).getroot()).boundary.difference(frame)
        want = []
        for sh in t.sheets():
            x0, y0, x1, y1 = sh.window
            last_col, last_row = sh.col == t.cols - 1, sh.row == t.rows - 1
            own = shapely.box(
                x0 + (half if sh.col else 0), y0 + (half if sh.row else 0),
                x1 - (0 if last_col else half), y1 - (0 if last_row else half),
            )  # fmt: skip
            if line.intersection(own).length > 0.05:  # the SVG's 0.01 mm rounding aside
                want.append(sh.label)
        assert b["sheets"] == want, b["pdf"]
        assert b["sheets_skipped"] == t.count - len(want)
    assert idx["sheets"] == sum(len(b["sheets"]) for b in idx["layers"])
    assert idx["sheets_skipped"] == t.count * (len(idx["layers"]) + 1) - idx["sheets"]
    m = re.search(
        r"(\d+) boards .*?, (\d+) template sheets \((\d+) with no cut line left out; .*?\), "
        r"([\d.]+) m2 of board, ([\d.]+) m of cut line",
        stdout,
    )
    assert m, stdout
    assert [int(m.group(i)) for i in (1, 2, 3)] == [
        idx["boards"], idx["sheets"], idx["sheets_skipped"]
    ]  # fmt: skip
    assert float(m.group(4)) == pytest.approx(idx["board_area_m2"], rel=0.01)
    assert float(m.group(5)) == pytest.approx(idx["cut_length_m"], rel=0.01)
    assert idx["levels_per_board_why"] in stdout
    # and on paper: every page of a sample of boards draws cut line inside its printed area
    for b in (idx["layers"][0], idx["layers"][len(idx["layers"]) // 2]):
        with pdfplumber.open(layers / b["pdf"]) as doc:
            assert len(doc.pages) == len(b["sheets"]) + 1
            index = doc.pages[0].extract_text()
            assert f"index: {len(b['sheets'])} template sheets of the layout's {t.count}" in index
            for page, label in zip(doc.pages[1:], b["sheets"], strict=True):
                assert page.extract_text().split()[0] == label
                assert _cut_line_on_page(page, (w, h), 2.0) > 0, (b["pdf"], label)


def test_layers_split_to_a_cutter_bed(run_cli, flodden_run: Path, tmp_path: Path) -> None:
    """``--bed 300x200mm``: every SVG fits the bed, and a board's pieces together are the board
    (their cut areas add up to the whole board's, in table mm)."""
    from scenario_builder.battlefield import Battlefield

    bf = Battlefield.load(flodden_run / "battlefield")
    w, s, e, n = bf.bounds_lonlat()
    cx, cy = (w + e) / 2, (s + n) / 2
    bbox = f"{cx - 0.004},{cy - 0.003},{cx + 0.004},{cy + 0.003}"  # ~500 x 670 m
    layers = tmp_path / "layers"
    code, _, err = run_cli(
        "print",
        flodden_run,
        "--scale",
        "1:1000",
        "--paper",
        "A4",
        "--bbox",
        bbox,
        "--out",
        tmp_path / "l.pdf",
        "--layers",
        layers,
        "--bed",
        "300x200mm",
    )
    assert code == 0, err
    idx = json.loads((layers / "layers.json").read_text())
    assert idx["bed"] == "300x200mm"
    for b in idx["layers"]:
        total = 0.0
        for name in b["svgs"]:
            root = ET.parse(layers / name).getroot()
            pw, ph = (float(root.get(k)[:-2]) for k in ("width", "height"))
            assert max(pw, ph) <= 300.0 + 1e-6 and min(pw, ph) <= 200.0 + 1e-6
            total += _svg_area(root)
        assert total == pytest.approx(b["area_m2"], rel=0.01)  # 1:1000: 1 m2 = 1 mm2


def _svg_ground(root: Any) -> Any:
    """The ground a layer's cut line encloses (even-odd rings, table millimetres)."""
    ns = "{http://www.w3.org/2000/svg}"
    d = next(g for g in root.iter(f"{ns}g") if g.get("id") == "cut").find(f"{ns}path").get("d")
    ground = shapely.Polygon()
    for ring in re.findall(r"M([^MZ]+)Z", d):
        poly = shapely.Polygon([tuple(map(float, p.split(","))) for p in ring.split()])
        ground = ground.symmetric_difference(poly.buffer(0))
    return ground


def _svg_area(root: Any) -> float:
    return float(_svg_ground(root).area)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--levels-per-board", "0"], "--levels-per-board: expected 1 or more"),
        (["--board-mm", "-2"], "--board-mm: expected a thickness above 0 mm"),
        (["--bed", "big"], "--bed: expected WxHmm"),
    ],
)
def test_bad_board_options_fail_in_one_line_writing_nothing(
    run_cli, flodden_run: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "x.pdf"
    code, _, err = run_cli(
        "print",
        flodden_run / "battlefield",
        "--scale",
        "1:25000",
        "--out",
        out,
        "--layers",
        tmp_path / "L",
        *args,
    )
    assert code == 1
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and not (tmp_path / "L").exists()


def test_neighbouring_level_tints_are_told_apart() -> None:
    """Relief without labels (6.2): neighbouring levels' tints differ by at least 3 CIE76
    units (about the smallest step a reader tells on paper) over an 80-level window."""
    import numpy as np
    from colorspacious import cspace_convert

    from maps.layout import _tint

    lab = [cspace_convert(_tint(k, 10, 90), "sRGB1", "CIELab") for k in range(10, 91)]
    d = [float(np.linalg.norm(np.subtract(a, b))) for a, b in itertools.pairwise(lab)]
    assert min(d) >= 3.0, min(d)
    assert lab[0][0] - lab[-1][0] > 20  # and high ground darker overall


@pytest.mark.parametrize("paper", ["A3", "A4", "Letter"])
def test_index_page_names_every_formation(
    flodden_fight: tuple[Path, Any, Any], tmp_path: Path, paper: str
) -> None:
    """The index page is where a table is set up from: each of Flodden's 17 formations is
    named on it, on the map (beside its bases or on a leader line) or, where the sheet grid
    leaves no room (A4: 143 sheet labels), by a number on a leader and a key under the map;
    no name, number or leader covers a sheet's label."""
    from reportlab.pdfgen import canvas as rl_canvas

    from maps.deployment import deployment
    from maps.layout import (
        PT_PER_MM,
        LayoutOptions,
        _convergence,
        _index_page,
        _rgb,
        plan_layout,
        prepare_shapes,
    )
    from maps.table import Paper, TableScale
    from scenario_builder.cli.demo import battle_bbox as bbox

    _, log, bf = flodden_fight
    log_dict = log.to_dict()
    deployed = deployment(log_dict)
    opts = LayoutOptions(  # as the demo prints: the battle area
        scale=TableScale.from_text("2mm"),
        paper=Paper.from_text(paper),
        bbox=bbox(log_dict, bf),
    )
    lay = plan_layout(bf, opts)
    shapes = prepare_shapes(bf, lay.window, deployed)
    pdf = tmp_path / "index.pdf"
    c = rl_canvas.Canvas(
        str(pdf), pagesize=(lay.paper.width_mm * PT_PER_MM, lay.paper.height_mm * PT_PER_MM)
    )
    _index_page(c, bf, lay, shapes, "flodden", _convergence(bf))
    c.save()
    with pdfplumber.open(pdf) as doc:
        page = doc.pages[0]
        text = " ".join(page.extract_text().split())
        overlapping = _overlapping_chars(page)
        sheet_chars = [  # the sheet labels: maps.layout draws them in this blue
            shapely.box(ch["x0"], ch["top"], ch["x1"], ch["bottom"])
            for ch in page.chars
            if tuple(round(v, 2) for v in ch["non_stroking_color"] or ()) == (0.1, 0.2, 0.7)
        ]
        sides = {tuple(round(v, 2) for v in _rgb(d.colour)) for d in deployed}
        leaders = [
            shapely.LineString([(ln["x0"], ln["top"]), (ln["x1"], ln["bottom"])])
            for ln in page.lines
            if tuple(round(v, 2) for v in ln["stroking_color"] or ()) in sides
        ]
    names = {d.name for d in deployed}
    assert len(names) == 17
    assert sorted(n for n in names if n not in text) == []
    assert len(sheet_chars) >= 2 * lay.tiling.count
    assert overlapping == []
    covered = shapely.STRtree(sheet_chars)
    assert [ln for ln in leaders if covered.query(ln, predicate="intersects").size] == []
