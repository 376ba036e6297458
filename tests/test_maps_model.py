"""3D-printable terrain (maps.model, ``scenario-builder model``) on the shipped Flodden ground.

The window is a 400 x 300 m piece of Branxton ridge's southern slope (data/battlefields/flodden,
SRTM 3", provenance in data/SOURCES.md), 2 x 2 tiles on a 220 mm bed at 2mm.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import rasterio
import trimesh

from maps.model import (
    ENGRAVE_MM,
    ModelOptions,
    Surface,
    ground_heights,
    heightfield_solid,
    parse_bed,
    plan_model,
    tile_meshes,
    window_cells,
    write_model,
)
from maps.table import TableScale
from scenario_builder.battlefield import Battlefield


@pytest.fixture(scope="module")
def bf(flodden_dir: Path) -> Battlefield:
    return Battlefield.load(flodden_dir)


def _bbox(bf: Battlefield) -> tuple[float, float, float, float]:
    cx, cy = bf.centre
    return (cx - 200.0, cy - 150.0, cx + 200.0, cy + 150.0)


def _opts(bf: Battlefield, **kw: object) -> ModelOptions:
    base: dict[str, object] = dict(
        scale=TableScale.from_text("2mm"),
        bed=parse_bed("220x220mm"),
        bbox=_bbox(bf),
        bbox_crs=bf.crs.to_string(),
    )
    return ModelOptions(**{**base, **kw})  # type: ignore[arg-type]


def one_error_line(err: str) -> str:
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("Error: ") and "Traceback" not in err
    return lines[0]


def _top_z(mesh: trimesh.Trimesh) -> np.ndarray:
    """The top surface's heights: heightfield_solid lays the top vertices first, then the bottom."""
    return np.asarray(mesh.vertices[: len(mesh.vertices) // 2, 2])


@pytest.mark.parametrize("surface", list(Surface))
def test_every_tile_is_a_watertight_volume_on_disk(bf, tmp_path, surface):
    model = write_model(bf, _opts(bf, surface=surface), tmp_path)
    assert [t.label for t in model.tiles] == ["A1", "A2", "B1", "B2"]
    for t in model.tiles:
        mesh = trimesh.load(tmp_path / f"tile_{t.label}.stl")  # as a slicer reads it
        assert mesh.is_watertight and mesh.is_volume and mesh.is_winding_consistent
        assert mesh.volume > 0
        assert mesh.volume == pytest.approx(t.volume_mm3, rel=1e-6)
    assert model.volume_cm3 == pytest.approx(sum(t.volume_mm3 for t in model.tiles) / 1000)


def test_heightfield_solid_is_closed_with_an_uneven_bottom():
    rng = np.random.default_rng(3)
    top = 5 + rng.random((7, 9))
    bottom = np.where(rng.random((7, 9)) > 0.7, 0.6, 0.0)
    mesh = heightfield_solid(top, bottom, 0.5, 0.7)
    assert mesh.is_watertight and mesh.is_volume
    # every edge in exactly two faces, counted by hand (not trusting one library's word)
    edges = np.sort(mesh.faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    _, counts = np.unique(edges, axis=0, return_counts=True)
    assert set(counts.tolist()) == {2}


@pytest.mark.parametrize("scale", ["2mm", "6mm"])
def test_tiles_fit_the_bed_and_the_table_scale(bf, scale):
    opts = _opts(bf, scale=TableScale.from_text(scale), max_tiles=50)
    plan = plan_model(bf, opts)
    minx, miny, maxx, maxy = plan.window
    assert (maxx - minx, maxy - miny) == pytest.approx((400.0, 300.0))
    mm_per_m = opts.scale.mm_per_m
    meshes = list(tile_meshes(bf, plan, opts))
    assert len(meshes) == plan.rows * plan.cols
    widths: dict[int, float] = {}
    heights: dict[int, float] = {}
    for sheet, mesh in meshes:
        w, h, _ = mesh.extents
        assert w <= 220.0 + 1e-9 and h <= 220.0 + 1e-9
        assert mesh.bounds[0] == pytest.approx([0.0, 0.0, 0.0])
        widths[sheet.col], heights[sheet.row] = w, h
    # the tiles add up to the ground at table scale: ground metres x mm per metre
    assert sum(widths.values()) == pytest.approx(400.0 * mm_per_m)
    assert sum(heights.values()) == pytest.approx(300.0 * mm_per_m)


def test_bed_turns_when_that_needs_fewer_tiles(bf):
    plan = plan_model(bf, _opts(bf, bed=parse_bed("410x150mm")))
    assert (plan.cols, plan.rows) == (1, 2)  # 400 x 300 mm: turned, 150 mm wide, it takes 3
    plan = plan_model(bf, _opts(bf, bed=parse_bed("150x410mm")))
    assert plan.count == 2 and plan.tile_mm[0] <= plan.bed.width_mm


@pytest.mark.parametrize("exaggerate", [1.0, 2.5])
def test_terraces_stand_on_whole_level_steps(bf, exaggerate):
    from maps.layout import window_levels

    opts = _opts(bf, surface=Surface.TERRACES, exaggerate=exaggerate, base_mm=2.0)
    plan = plan_model(bf, opts)
    step_mm = bf.step * opts.scale.mm_per_m * exaggerate
    steps: set[int] = set()
    for _, mesh in tile_meshes(bf, plan, opts):
        k = (_top_z(mesh) - 2.0) / step_mm
        assert np.allclose(k, np.round(k), atol=1e-4)
        steps |= set(np.round(k).astype(int).tolist())
    lo, hi = window_levels(bf, plan.window)
    assert hi > lo + 3  # real relief: the window climbs several levels
    assert min(steps) == 0 and max(steps) == hi - lo
    # the outlines lose no level: every step from the lowest to the highest is printed
    assert steps == set(range(hi - lo + 1))


def test_exaggerate_scales_the_relief_not_the_base(bf):
    one = tile_meshes(bf, plan_model(bf, _opts(bf)), _opts(bf))
    two = tile_meshes(bf, plan_model(bf, _opts(bf, exaggerate=2.0)), _opts(bf, exaggerate=2.0))
    for (_, a), (_, b) in zip(one, two, strict=True):
        za, zb = _top_z(a) - 3.0, _top_z(b) - 3.0
        assert za.max() > 5.0  # the relief is real
        np.testing.assert_allclose(zb, 2.0 * za, rtol=1e-5, atol=1e-4)
        assert a.extents[:2] == pytest.approx(b.extents[:2])


def test_smooth_ground_follows_the_dem_at_table_scale(bf):
    opts = _opts(bf)
    plan = plan_model(bf, opts)
    r0, r1, c0, c1 = window_cells(bf, plan.window)
    dem = bf.layer("elevation")[r0:r1, c0:c1]
    relief_mm = max(float(m.bounds[1][2]) for _, m in tile_meshes(bf, plan, opts)) - 3.0
    # bilinear between cell centres stays within the window's cells' range
    assert 0.6 * (dem.max() - dem.min()) < relief_mm <= (dem.max() - dem.min()) + 1e-6


def test_each_tile_has_its_label_engraved_underneath(bf):
    opts = _opts(bf)
    for _, mesh in tile_meshes(bf, plan_model(bf, opts), opts):
        bottom = mesh.vertices[len(mesh.vertices) // 2 :]
        engraved = np.isclose(bottom[:, 2], ENGRAVE_MM)
        assert 30 < engraved.sum() < 0.05 * len(bottom)
        assert set(np.round(bottom[:, 2], 6)) == {0.0, ENGRAVE_MM}
        # in the middle of the tile, away from the walls
        w, h, _ = mesh.extents
        xs, ys = bottom[engraved, 0], bottom[engraved, 1]
        assert xs.min() > 0.2 * w and xs.max() < 0.8 * w
        assert ys.min() > 0.2 * h and ys.max() < 0.8 * h


@pytest.mark.parametrize("surface", list(Surface))
def test_heightmap_is_uint16_on_the_mesh_grid(bf, tmp_path, surface):
    opts = _opts(bf, surface=surface)
    write_model(bf, opts, tmp_path)
    plan = plan_model(bf, opts)
    minx, miny, maxx, maxy = plan.window
    with rasterio.open(tmp_path / "heightmap.tif") as src:
        assert src.dtypes == ("uint16",)
        assert src.crs == bf.crs
        # one pixel per mesh vertex, centred on it: 1 mm of table at 2mm is 1 m of ground
        assert src.res == pytest.approx((1.0, 1.0))
        assert src.xy(0, 0) == pytest.approx((minx, maxy))
        assert src.xy(src.height - 1, src.width - 1) == pytest.approx((maxx, miny))
        units = src.read(1)
        tags = src.tags()
    assert units.min() == 0 and units.max() == 65535
    back = float(tags["z_min_m"]) + units * float(tags["m_per_unit"])
    ground = ground_heights(bf, plan, surface)[::-1]
    # half a unit of rounding, and the tags written to the micrometre
    np.testing.assert_allclose(back, ground, atol=float(tags["m_per_unit"]) / 2 + 1e-5)
    r0, r1, c0, c1 = window_cells(bf, plan.window)
    if surface is Surface.SMOOTH:  # the DEM's range under the window, in metres
        dem = bf.layer("elevation")[r0:r1, c0:c1]
        lo, hi = float(tags["z_min_m"]), float(tags["z_max_m"])
        assert dem.min() - 1e-5 <= lo < hi <= dem.max() + 1e-5
    else:  # whole level steps
        k = back / bf.step
        assert np.allclose(k, np.round(k), atol=0.01)


def test_model_command_writes_tiles_heightmap_and_summary(run_cli, flodden_dir, bf, tmp_path):
    w, s, e, n = _bbox(bf)
    out = tmp_path / "model"
    code, stdout, err = run_cli(
        "model", flodden_dir, "--out", out, "--bbox", f"{w},{s},{e},{n}", "--terraces",
        "--exaggerate", "1.5", "--base", "2",
    )  # fmt: skip
    assert code == 0, err
    names = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert names == [
        "heightmap.tif",
        "model.json",
        "tile_A1.stl",
        "tile_A2.stl",
        "tile_B1.stl",
        "tile_B2.stl",
    ]
    index = json.loads((out / "model.json").read_text())
    assert index["surface"] == "terraces" and index["exaggerate"] == 1.5
    assert "4 tiles (2 x 2) of 200.0 x 150.0 mm for a 220x220mm bed" in stdout
    assert f"print volume {index['volume_cm3']:,.0f} cm³" in stdout
    assert f"max height {index['max_height_mm']:.1f} mm" in stdout


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--bed", "0x10mm"], "Error: --bed: expected 50 to 5000 mm a side, got 0 x 10 mm"),
        (["--bed", "big"], "Error: --bed: expected WxHmm (a printer bed, e.g. 220x220mm)"),
        (["--base", "-1"], "Error: --base: expected a thickness above 0 mm, got -1"),
        (["--base", "0"], "Error: --base: expected a thickness above 0 mm, got 0"),
        (["--exaggerate", "0"], "Error: --exaggerate: expected a factor above 0, got 0"),
        (["--exaggerate", "nan"], "Error: --exaggerate: expected a factor above 0, got nan"),
        (["--mesh-mm", "0"], "Error: --mesh-mm: expected 0.1 to 50 mm, got 0"),
        (["--max-tiles", "3"], "Error: --max-tiles: expected at most 3 tiles, got"),
    ],
)
def test_bad_options_are_one_line_and_write_nothing(run_cli, flodden_dir, tmp_path, args, expected):
    code, _, err = run_cli("model", flodden_dir, "--out", tmp_path / "m", *args)
    assert code == 1
    assert one_error_line(err).startswith(expected)
    assert list(tmp_path.iterdir()) == []


def test_a_run_directory_models_its_battlefield(run_cli, flodden_dir, bf, tmp_path):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(flodden_dir, run / "battlefield")
    (run / "battle_log.json").write_text("{}")  # model reads only the run's battlefield
    w, s, e, n = _bbox(bf)
    code, stdout, err = run_cli(
        "model", run, "--out", tmp_path / "m", "--bbox", f"{w},{s},{e},{n}", "--scale", "1:2000"
    )
    assert code == 0, err
    assert "1 tile (1 x 1) of 200.0 x 150.0 mm" in stdout and "at 1:2000" in stdout
