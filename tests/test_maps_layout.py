"""Printed layout and cut layers on a real built battlefield (Bayreuth DEM + OSM land cover).

True scale is measured the way a player would check it: the PDF is rasterised at a known
resolution (poppler's pdftoppm) and the printed table frame is measured in pixels.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely

from maps.layout import LayoutOptions, plan_layout
from maps.table import Paper, TableScale
from maps.testing import right_angle_turns

POPPLER = shutil.which("pdftoppm") is not None and shutil.which("pdfinfo") is not None
needs_poppler = pytest.mark.skipif(not POPPLER, reason="poppler-utils not installed")


@pytest.fixture(scope="module")
def bf_dir(built_bayreuth, tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("bayreuth") / "battlefield"
    built_bayreuth.save(d)
    return d


def _pages(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    return int(re.search(r"Pages:\s+(\d+)", info.stdout).group(1))


def _raster(pdf: Path, page: int, dpi: int, tmp: Path) -> np.ndarray:
    from PIL import Image

    stem = tmp / f"p{page}"
    subprocess.run(
        [
            "pdftoppm",
            "-r",
            str(dpi),
            "-f",
            str(page),
            "-l",
            str(page),
            "-png",
            "-singlefile",
            str(pdf),
            str(stem),
        ],
        check=True,
    )
    return np.asarray(Image.open(f"{stem}.png").convert("RGB"))


@needs_poppler
@pytest.mark.slow  # prints and rasterises many sheets: 8-19 s
def test_layout_pages_follow_the_tiling_formula(run_cli, bf_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "layout.pdf"
    code, stdout, err = run_cli(
        "print",
        bf_dir,
        "--scale",
        "1:20000",
        "--paper",
        "A4",
        "--overlap",
        "10",
        "--margin",
        "10",
        "--out",
        out,
    )
    assert code == 0, err
    from scenario_builder.battlefield import Battlefield

    bf = Battlefield.load(bf_dir)
    minx, miny, maxx, maxy = bf.bounds
    w, h = (maxx - minx) / 20, (maxy - miny) / 20  # table mm at 1:20000
    best = None
    for pw, ph in ((190.0, 277.0), (277.0, 190.0)):
        n = math.ceil((w - 10) / (pw - 10)) * math.ceil((h - 10) / (ph - 10))
        best = n if best is None else min(best, n)
    assert _pages(out) == best + 1  # + the index page
    assert f"{best} sheets" in stdout


@needs_poppler
@pytest.mark.slow  # prints and rasterises many sheets: 8-19 s
def test_printed_table_is_true_scale_within_half_a_millimetre(
    run_cli, bf_dir: Path, tmp_path: Path
) -> None:
    from scenario_builder.battlefield import Battlefield

    bf = Battlefield.load(bf_dir)
    w, s, _e, _n = bf.bounds_lonlat()
    bbox = f"{w + 0.02},{s + 0.02},{w + 0.045},{s + 0.035}"  # ~1.8 x 1.7 km, one A4 sheet
    out = tmp_path / "one.pdf"
    code, _, err = run_cli(
        "print", bf_dir, "--scale", "1:20000", "--paper", "A4", "--bbox", bbox, "--out", out
    )
    assert code == 0, err
    lay = plan_layout(
        bf,
        LayoutOptions(
            TableScale.from_text("1:20000"),
            Paper.from_text("A4"),
            bbox=tuple(float(v) for v in bbox.split(",")),
        ),
    )
    assert lay.tiling.count == 1 and _pages(out) == 2
    tw, th = lay.table_mm
    assert tw == pytest.approx((lay.window[2] - lay.window[0]) / 20)
    img = _raster(out, 2, 254, tmp_path)  # 10 px per mm
    black = img.max(axis=2) < 40
    margin_px = 10 * 10
    # the table's frame: a black line all round the ground; scan across its middle
    row = black[margin_px + int(th * 10 / 2)]
    cols = np.flatnonzero(row)
    col = black[:, margin_px + int(tw * 10 / 2)]
    rows = np.flatnonzero(col[margin_px - 5 : margin_px + int(th * 10) + 20]) + margin_px - 5
    measured_w = (cols.max() - cols.min()) / 10
    measured_h = (rows.max() - rows.min()) / 10
    assert measured_w == pytest.approx(tw, abs=0.5)
    assert measured_h == pytest.approx(th, abs=0.5)


@needs_poppler
@pytest.mark.slow  # prints and rasterises many sheets: 8-19 s
def test_layout_looks_like_a_map(run_cli, bf_dir: Path, tmp_path: Path) -> None:
    """Index page and a sheet carry ink in the places a person expects (not blank, not black)."""
    out = tmp_path / "layout.pdf"
    assert run_cli("print", bf_dir, "--scale", "1:25000", "--paper", "A3", "--out", out)[0] == 0
    index = _raster(out, 1, 40, tmp_path)
    sheet = _raster(out, 2, 40, tmp_path)
    for img in (index, sheet):
        ink = (img.mean(axis=2) < 200).mean()
        assert 0.02 < ink < 0.8
    # woods are printed green-tinted with hatching somewhere on the sheet
    g = sheet.astype(int)
    assert ((g[..., 1] - g[..., 0] > 10) & (g[..., 1] - g[..., 2] > 10)).any()


def test_cut_layers_one_per_step_with_thickness(run_cli, bf_dir: Path, tmp_path: Path) -> None:
    from scenario_builder.battlefield import Battlefield

    bf = Battlefield.load(bf_dir)
    layers = tmp_path / "layers"
    code, _, err = run_cli(
        "print",
        bf_dir,
        "--scale",
        "2mm",
        "--paper",
        "A4",
        "--bbox",
        _small_bbox(bf),
        "--out",
        tmp_path / "l.pdf",
        "--layers",
        layers,
    )
    assert code == 0, err
    index = json.loads((layers / "layers.json").read_text())
    assert index["layers"], "expected some layers in a hilly window"
    assert index["board_mm"] == bf.step * 1.0  # 2 m -> 2 mm
    for lay in index["layers"]:  # identical boards are one entry cut ``copies`` times
        assert lay["thickness_mm"] == pytest.approx(bf.step * lay["copies"])
    levels = [lay["level"] for lay in index["layers"]]
    assert levels == sorted(levels) and len(set(levels)) == len(levels)
    areas = [lay["area_m2"] for lay in index["layers"]]
    assert all(a >= b for a, b in itertools.pairwise(areas))  # each layer sits on the one below
    first = layers / index["layers"][0]["svg"]
    root = ET.parse(first).getroot()
    w_mm, h_mm = index["table_mm"]
    assert (
        root.get("width") == f"{w_mm:.2f}mm" and root.get("viewBox") == f"0 0 {w_mm:.2f} {h_mm:.2f}"
    )
    text = first.read_text()
    assert f"cut from {bf.step:g} mm board" in text
    ns = "{http://www.w3.org/2000/svg}"
    marks = [(float(c.get("cx")), float(c.get("cy"))) for c in root.iter(f"{ns}circle")]
    for lay in index["layers"][1:]:
        other = ET.parse(layers / lay["svg"]).getroot()
        assert [
            (float(c.get("cx")), float(c.get("cy"))) for c in other.iter(f"{ns}circle")
        ] == marks
    assert (layers / index["layers"][0]["pdf"]).stat().st_size > 1000
    # 6.2: the boards as cut from the SVGs stack, each on the one below (to the SVG's 0.01 mm)
    grounds = [_svg_ground(layers / lay["svg"]) for lay in index["layers"]]
    for lower, upper in itertools.pairwise(grounds):
        assert upper.difference(lower).area <= 0.01 * upper.length


def _svg_ground(svg: Path) -> Any:
    """The ground a layer's cut line encloses (even-odd rings, table millimetres)."""
    import shapely

    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(svg).getroot()
    d = next(g for g in root.iter(f"{ns}g") if g.get("id") == "cut").find(f"{ns}path").get("d")
    rings = [
        shapely.Polygon([tuple(map(float, p.split(","))) for p in ring.split()])
        for ring in re.findall(r"M([^MZ]+)Z", d)
    ]
    ground = shapely.Polygon()
    for ring in rings:
        ground = ground.symmetric_difference(ring.buffer(0))
    return ground


@needs_poppler
@pytest.mark.slow  # prints and rasterises many sheets: 8-19 s
def test_printed_cut_line_has_no_cell_staircase(run_cli, bf_dir: Path, tmp_path: Path) -> None:
    """The cut lines follow the smoothed outlines: almost no right-angle corners off the table's
    edge (the raw cell outline is nothing but right angles)."""
    layers = tmp_path / "layers"
    code, _, err = run_cli(
        "print",
        bf_dir,
        "--scale",
        "1:5000",
        "--paper",
        "A3",
        "--out",
        tmp_path / "l.pdf",
        "--layers",
        layers,
    )
    assert code == 0, err
    index = json.loads((layers / "layers.json").read_text())
    w, h = index["table_mm"]
    frame = shapely.box(0, 0, w, h).boundary.buffer(0.05)  # the table edge's own corners
    right = turns = 0
    for lay in index["layers"]:
        r, t = right_angle_turns(_svg_ground(layers / lay["svg"]), frame)
        right, turns = right + r, turns + t
    assert turns > 100
    assert right / turns < 0.02, (right, turns)


def _small_bbox(bf) -> str:
    w, s, e, n = bf.bounds_lonlat()
    cx, cy = (w + e) / 2, (s + n) / 2
    return f"{cx - 0.0015},{cy - 0.001},{cx + 0.0015},{cy + 0.001}"  # ~200 x 220 m


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scale", "3mm"], "--scale: expected 2mm, 6mm or 1:N"),
        (["--paper", "A9"], "--paper: expected one of A4"),
        (["--overlap", "300"], "--overlap"),
        (["--margin", "1"], "--margin: expected at least"),
        (["--bbox", "1,2,3"], "--bbox: expected W,S,E,N"),
        (["--bbox", "0,0,1,1"], "--bbox: expected an area overlapping"),
        (["--scale", "2mm", "--max-pages", "5"], "expected at most 5 sheets"),
    ],
)
def test_bad_print_options_fail_in_one_line_writing_nothing(
    run_cli, bf_dir: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "x.pdf"
    code, _stdout, err = run_cli("print", bf_dir, *args, "--out", out, "--layers", tmp_path / "L")
    assert code != 0
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["missing", "empty", "file"])
def test_print_of_a_non_battlefield_fails_cleanly(run_cli, tmp_path: Path, kind: str) -> None:
    target = tmp_path / "bf"
    if kind == "empty":
        target.mkdir()
    elif kind == "file":
        target.write_text("not a battlefield")
    out = tmp_path / "out" / "x.pdf"
    code, _, err = run_cli("print", target, "--out", out)
    assert code == 1 and err.startswith("Error: ") and err.count("\n") == 1
    assert not out.exists() and not out.parent.exists()
