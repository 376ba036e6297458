"""``battle.gpkg``: the battle as a GeoPackage for QGIS, on real shipped battles.

``teutoburg_run`` (conftest: ``scenario-builder run teutoburg_ad9`` with a scripted wing split,
messengers, routs) has no date: its datetimes are the stand-in clock. Barnet (data/scenarios/
barnet_1471.yaml) has a date and a start time: its datetimes are the battle's own. The file is read
back with pyogrio and GDAL's ``ogrinfo`` as a user would; a real QGIS (Debian's python3-qgis,
under the system Python) reads it in the slow lane when it is installed.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import textwrap
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pyogrio
import pyproj
import pytest

from maps.battle_gpkg import GPKG_NAME, STAND_IN_START, Layer, TimeBasis, Timeline
from maps.battlelog import load_battle_log

SYSTEM_PYTHON = "/usr/bin/python3"


@pytest.fixture(scope="module")
def run(teutoburg_run: Path) -> tuple[Path, dict]:
    return teutoburg_run / GPKG_NAME, load_battle_log(teutoburg_run / "battle_log.json")


def test_layers_fields_and_crs(run: tuple[Path, dict]) -> None:
    gpkg, log = run
    layers = {str(name): kind for name, kind in pyogrio.list_layers(gpkg)}
    assert layers == {
        "bases": "Polygon",
        "events": "Point",
        "messengers": "LineString",
        "layer_styles": None,
    }
    want = {
        "bases": {"bound", "datetime", "formation", "formation_name", "side", "state", "condition"},
        "events": {"bound", "datetime", "type", "words", "formation", "formation_name", "target"},
        "messengers": {"bound", "datetime", "id", "side", "to", "order", "arrival_bound"},
    }
    for layer, fields in want.items():
        info = pyogrio.read_info(gpkg, layer=layer)
        types = dict(zip(info["fields"], info["dtypes"], strict=True))
        assert fields <= set(types), layer
        assert types["datetime"].startswith("datetime64"), layer
        assert pyproj.CRS.from_user_input(info["crs"]) == pyproj.CRS.from_user_input(log["crs"])


def test_one_row_per_base_event_and_messenger_of_each_bound(run: tuple[Path, dict]) -> None:
    gpkg, log = run
    bases = pyogrio.read_dataframe(gpkg, layer="bases")
    events = pyogrio.read_dataframe(gpkg, layer="events")
    messengers = pyogrio.read_dataframe(gpkg, layer="messengers")
    snaps = {b["bound"]: b["snapshot"] for b in log["bounds"]}
    assert Counter(bases["bound"]) == {n: len(s["bases"]) for n, s in snaps.items()}
    said = {b["bound"]: len(b["events"]) for b in log["bounds"]}
    assert Counter(events["bound"]) == {n: k for n, k in said.items() if k}
    flying = {n: len(s.get("messengers", [])) for n, s in snaps.items()}
    assert Counter(messengers["bound"]) == {n: k for n, k in flying.items() if k}
    assert len(messengers) > 0  # this battle's messengers are in flight
    # a base's rectangle is where its snapshot puts it, the true size of its header's base
    last = max(snaps)
    row = bases[(bases["bound"] == last)].iloc[0]
    snap = snaps[last]["bases"][row["base"]]
    assert row.geometry.centroid.x == pytest.approx(snap["x"], abs=0.01)
    assert row.geometry.centroid.y == pytest.approx(snap["y"], abs=0.01)
    head = next(b for b in log["bases"] if b["id"] == row["base"])
    assert row.geometry.area == pytest.approx(head["w"] * head["d"], rel=1e-6)
    # the wing split off in battle is there under its own name; the dead are kept, drawn hollow
    assert bases["formation_name"].str.contains(r"\(wing 2\)").any()
    dead = bases[bases["state"] == "dead"]
    assert len(dead) > 0 and (dead["condition"] == "dead").all()
    assert {"routing", "retreating"} & set(bases["condition"])


def test_events_in_words_and_placed(run: tuple[Path, dict]) -> None:
    gpkg, _ = run
    events = pyogrio.read_dataframe(gpkg, layer="events")
    assert events["words"].str.len().min() > 0
    rout = events[events["type"] == "rout"].iloc[0]
    assert rout["formation_name"] in rout["words"] and rout.geometry is not None
    # every event naming a formation in its bound's snapshot stands somewhere
    shot_or_melee = events[events["type"].isin(["melee", "shot"])]
    assert len(shot_or_melee) > 0
    assert shot_or_melee.geometry.notna().all()
    assert shot_or_melee["target_name"].notna().all()


def test_datetimes_stand_in_clock_one_bound_a_minute(run: tuple[Path, dict]) -> None:
    gpkg, log = run
    bases = pyogrio.read_dataframe(gpkg, layer="bases")
    assert "date" not in log and "clock" not in log  # Teutoburg gives no date: the stand-in
    for bound, when in zip(bases["bound"], bases["datetime"], strict=True):
        assert when.to_pydatetime() == STAND_IN_START + dt.timedelta(minutes=int(bound))
    desc = _contents(gpkg)["bases"]
    assert "stand-in clock" in desc and "1 min" in desc


def test_layer_styles_rows_are_qgis_styles(run: tuple[Path, dict]) -> None:
    gpkg, log = run
    styles = pyogrio.read_dataframe(gpkg, layer="layer_styles")
    cols = [
        "f_table_catalog",
        "f_table_schema",
        "f_table_name",
        "f_geometry_column",
        "styleName",
        "styleQML",
        "styleSLD",
        "useAsDefault",
        "description",
        "owner",
        "ui",
        "update_time",
    ]
    assert cols == [c for c in styles.columns if c != "geometry"]
    assert sorted(styles["f_table_name"]) == sorted(str(x) for x in Layer)
    assert styles["useAsDefault"].all()
    assert (styles["f_table_schema"] == "").all()  # what QGIS's loader asks for
    for _, row in styles.iterrows():
        info = pyogrio.read_info(gpkg, layer=row["f_table_name"])
        assert row["f_geometry_column"] == info["geometry_name"]
        qml = ET.fromstring(row["styleQML"].split("\n", 1)[1])  # after the DOCTYPE line
        temporal = qml.find("temporal")
        assert temporal is not None
        assert temporal.get("enabled") == "1" and temporal.get("startField") == "datetime"
        assert temporal.get("mode") == "1"  # Qgis::VectorTemporalMode::FeatureDateTimeInstant…
        renderer = qml.find("renderer-v2")
        assert renderer is not None
        if row["f_table_name"] == "bases":
            assert renderer.get("type") == "RuleRenderer"
            filters = [r.get("filter") for r in renderer.iter("rule")]
            for side in log["sides"]:
                assert f"\"side\" = '{side['id']}' AND \"condition\" = 'dead'" in filters
        else:
            assert renderer.get("type") == "categorizedSymbol"
            values = {c.get("value") for c in renderer.iter("category")}
            assert {s["id"] for s in log["sides"]} <= values


def test_ogrinfo_describes_every_layer(run: tuple[Path, dict]) -> None:
    if shutil.which("ogrinfo") is None:
        pytest.skip("GDAL's ogrinfo not installed (Debian gdal-bin)")
    gpkg, log = run
    n_bases = sum(len(b["snapshot"]["bases"]) for b in log["bounds"])
    out = subprocess.run(
        ["ogrinfo", "-so", str(gpkg), "bases"], capture_output=True, text=True, check=True
    )
    assert f"Feature Count: {n_bases}" in out.stdout
    assert "datetime: DateTime" in out.stdout
    assert "partially supported" not in out.stderr  # written as a GeoPackage older GDAL reads


def test_clock_of_a_dated_battle(run_cli, tmp_path: Path) -> None:
    """Barnet: 14 April 1471 (Julian) at 04:30, a bound a minute (2mm Earth): bound 1 begins at
    04:30 on 23 April (Gregorian), bound 0 the minute before; years before 1677 fit."""
    out = tmp_path / "barnet"
    code, _, err = run_cli("run", "barnet_1471", "--seed", "1", "--max-bounds", "2", "--out", out)
    assert code == 0, err
    log = json.loads((out / "battle_log.json").read_text())
    tl = Timeline.for_log(log)
    assert tl.basis is TimeBasis.CLOCK
    assert tl.at(1) == dt.datetime(1471, 4, 23, 4, 30)
    bases = pyogrio.read_dataframe(out / GPKG_NAME, layer="bases")
    assert {b: t.to_pydatetime() for b, t in zip(bases["bound"], bases["datetime"])} == {
        0: dt.datetime(1471, 4, 23, 4, 29),
        1: dt.datetime(1471, 4, 23, 4, 30),
        2: dt.datetime(1471, 4, 23, 4, 31),
    }
    assert "local mean solar time" in _contents(out / GPKG_NAME)["bases"]


def test_a_books_own_events_are_placed(run_cli, tmp_path: Path) -> None:
    """Towton under medieval-d10: the book's events (its describe(), its actor) are worded and
    stand at the unit they name, though the playback draws them as words only."""
    out = tmp_path / "towton"
    code, _, err = run_cli("run", "towton_1461", "--seed", "2", "--max-bounds", "4", "--out", out)
    assert code == 0, err
    events = pyogrio.read_dataframe(out / GPKG_NAME, layer="events")
    advances = events[events["type"] == "d10_advance"]
    assert len(advances) > 0
    assert advances.geometry.notna().all()
    assert all(name in words for name, words in zip(advances["formation_name"], advances["words"]))


def test_a_date_without_a_start_time() -> None:
    log = {"ruleset": "2mm-earth-v0.9"}
    tl = Timeline.for_log(log, "1513-09-09", None)  # Flodden: a date only, Julian
    assert (tl.basis, tl.origin, tl.bound_minutes) == (
        TimeBasis.DATE,
        dt.datetime(1513, 9, 19),
        1.0,
    )


def test_qgis_project_beside_the_gpkg(teutoburg_run: Path, run: tuple[Path, dict]) -> None:
    """battle.qgs: every layer by a path relative to the run folder, the layers' temporal
    properties, and the Temporal Controller's range (the battle) and step (one bound)."""
    _, log = run
    root = ET.fromstring((teutoburg_run / "battle.qgs").read_text().split("\n", 1)[1])
    sources = {el.findtext("layername"): el.findtext("datasource") for el in root.iter("maplayer")}
    assert set(sources) == {"bases", "events", "messengers", "battlefield: movement classes"}
    for name, source in sources.items():
        assert source.startswith("./"), name
        assert (teutoburg_run / source.split("|")[0]).is_file(), name
    for el in root.iter("maplayer"):
        if el.get("type") == "vector":
            assert el.find("temporal").get("enabled") == "1"
    ts = root.find("ProjectTimeSettings")
    assert (ts.get("timeStep"), ts.get("timeStepUnit")) == ("1", "min")
    last = log["bounds"][-1]["bound"]
    assert ts.findtext("TemporalRange/start") == STAND_IN_START.isoformat()
    assert (
        ts.findtext("TemporalRange/end")
        == (STAND_IN_START + dt.timedelta(minutes=last + 1)).isoformat()
    )
    assert root.find("projectCrs/spatialrefsys/authid").text == log["crs"]


def test_map_writes_the_gpkg_of_a_run_folder(
    run_cli, teutoburg_run: Path, run: tuple[Path, dict], tmp_path: Path
) -> None:
    """``map RUN --out X.gpkg``: the same layers as the run's own (a run from before it wrote
    one); anything but a run folder is a one-line error and nothing is written."""
    gpkg, _ = run
    out = tmp_path / "again.gpkg"
    code, said, err = run_cli("map", teutoburg_run, "--out", out)
    assert code == 0, err
    assert "battle GeoPackage" in said
    for layer in ("bases", "events", "messengers", "layer_styles"):
        a = pyogrio.read_dataframe(gpkg, layer=layer)
        b = pyogrio.read_dataframe(out, layer=layer)
        assert a.drop(columns="update_time", errors="ignore").equals(
            b.drop(columns="update_time", errors="ignore")
        ), layer
    for source in (teutoburg_run / "battlefield", "teutoburg_ad9"):
        bad = tmp_path / "bad.gpkg"
        code, _, err = run_cli("map", source, "--out", bad)
        assert code != 0 and "needs a run directory" in err and "Traceback" not in err
        assert not bad.exists()


def test_a_failed_write_leaves_no_run(run_cli, tmp_path: Path, monkeypatch) -> None:
    import maps.battle_gpkg

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(maps.battle_gpkg, "battle_layers", broken)
    out = tmp_path / "run"
    code, _, err = run_cli("run", "teutoburg_ad9", "--seed", "3", "--max-bounds", "1", "--out", out)
    assert code != 0
    assert "No space left" in err and "Traceback" not in err
    assert not out.exists() or not any(out.iterdir())


def _contents(gpkg: Path) -> dict[str, str]:
    """gpkg_contents' description per table (what QGIS shows as the layer's abstract)."""
    import sqlite3

    with sqlite3.connect(gpkg) as db:
        return dict(db.execute("SELECT table_name, description FROM gpkg_contents"))


# -- a real QGIS ----------------------------------------------------------------------------------

QGIS_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from qgis.core import (QgsApplication, QgsDateTimeRange, QgsFeatureRequest, QgsMapSettings,
        QgsMapRendererParallelJob, QgsVectorLayer, QgsVectorLayerTemporalContext)
    from qgis.PyQt.QtCore import QDateTime, QSize, Qt
    from qgis.PyQt.QtGui import QColor

    gpkg, begin, end, png = sys.argv[1:5]
    app = QgsApplication([], False)
    app.initQgis()
    out, layers = {}, {}
    for name in ("bases", "events", "messengers"):
        lyr = QgsVectorLayer(f"{gpkg}|layername={name}", name, "ogr")
        styled = lyr.renderer().type() if lyr.isValid() else None
        # QGIS 3.22 loads the stored default style in the constructor, then resets the temporal
        # properties from the provider's (none); loading the default again, as Symbology >
        # Style > Restore Default does, restores them
        message, ok = lyr.loadDefaultStyle()
        tp = lyr.temporalProperties()
        out[name] = {"valid": lyr.isValid(), "renderer": styled, "reloaded": ok,
                     "temporal": tp.isActive(), "mode": int(tp.mode()),
                     "start": tp.startField(), "count": lyr.featureCount()}
        layers[name] = lyr
    bases = layers["bases"]
    s = QgsMapSettings()
    s.setLayers([layers["events"], layers["messengers"], bases])
    s.setDestinationCrs(bases.crs())
    s.setExtent(bases.extent().buffered(50))
    s.setOutputSize(QSize(1400, 500))
    s.setBackgroundColor(QColor("white"))
    s.setIsTemporal(True)
    frame = QgsDateTimeRange(QDateTime.fromString(begin, Qt.ISODate),
                             QDateTime.fromString(end, Qt.ISODate), True, False)
    s.setTemporalRange(frame)
    job = QgsMapRendererParallelJob(s)
    job.start()
    job.waitForFinished()
    job.renderedImage().save(png)
    ctx = QgsVectorLayerTemporalContext()
    ctx.setLayer(bases)
    shown = bases.temporalProperties().createFilterString(ctx, frame)
    request = QgsFeatureRequest().setFilterExpression(shown)
    out["frame"] = sorted({f["bound"] for f in bases.getFeatures(request)})
    print(json.dumps(out), flush=True)
    del job, s, request, ctx, bases, lyr, layers  # before the application that owns them
    app.exitQgis()
    """
)


def _has_qgis() -> bool:
    if not os.path.exists(SYSTEM_PYTHON):
        return False
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import qgis.core"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.slow
def test_qgis_opens_styled_and_plays_one_bound(run: tuple[Path, dict], tmp_path: Path) -> None:
    if not _has_qgis():
        pytest.skip("QGIS's Python bindings not installed (Debian python3-qgis)")
    gpkg, log = run
    bound = 4
    script = tmp_path / "qgis_check.py"
    script.write_text(QGIS_SCRIPT, encoding="utf-8")
    begin = STAND_IN_START + dt.timedelta(minutes=bound)
    end = begin + dt.timedelta(minutes=1)
    png = tmp_path / f"bound{bound}.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_RUNTIME_DIR": str(tmp_path)}
    done = subprocess.run(
        [SYSTEM_PYTHON, script, gpkg, begin.isoformat(), end.isoformat(), png],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    n_bases = sum(len(b["snapshot"]["bases"]) for b in log["bounds"])
    assert got["bases"]["valid"] and got["bases"]["count"] == n_bases
    assert got["bases"]["renderer"] == "RuleRenderer"  # the stored style, not QGIS's default
    assert got["events"]["renderer"] == got["messengers"]["renderer"] == "categorizedSymbol"
    for layer in ("bases", "events", "messengers"):
        assert got[layer]["temporal"] and got[layer]["start"] == "datetime", layer
    assert got["frame"] == [bound]  # one frame a bound long shows that bound alone
    assert png.stat().st_size > 10_000


QGIS_PROJECT_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from qgis.core import (QgsApplication, QgsDateTimeRange, QgsMapRendererParallelJob,
        QgsMapSettings, QgsProject, QgsUnitTypes)
    from qgis.PyQt.QtCore import QDateTime, QSize, Qt
    from qgis.PyQt.QtGui import QColor

    qgs, begin, end, png = sys.argv[1:5]
    app = QgsApplication([], False)
    app.initQgis()
    project = QgsProject.instance()
    out = {"read": project.read(qgs), "layers": {}}
    for layer in project.mapLayers().values():
        out["layers"][layer.name()] = {"valid": layer.isValid(),
                                       "temporal": layer.temporalProperties().isActive(),
                                       "renderer": layer.renderer().type()}
    ts = project.timeSettings()
    out["step"] = [ts.timeStep(), QgsUnitTypes.encodeUnit(ts.timeStepUnit())]
    s = QgsMapSettings()
    ids = ("battle_events", "battle_messengers", "battle_bases", "battlefield_move")
    s.setLayers([project.mapLayer(i) for i in ids])
    s.setDestinationCrs(project.crs())
    s.setExtent(project.mapLayer("battle_bases").extent().buffered(150))
    s.setOutputSize(QSize(1400, 500))
    s.setBackgroundColor(QColor("white"))
    s.setIsTemporal(True)
    s.setTemporalRange(QgsDateTimeRange(QDateTime.fromString(begin, Qt.ISODate),
                                        QDateTime.fromString(end, Qt.ISODate), True, False))
    job = QgsMapRendererParallelJob(s)
    job.start()
    job.waitForFinished()
    job.renderedImage().save(png)
    print(json.dumps(out), flush=True)
    del job, s
    project.clear()
    app.exitQgis()
    """
)


@pytest.mark.slow
def test_qgis_opens_the_moved_project_ready_to_play(teutoburg_run: Path, tmp_path: Path) -> None:
    """The run folder copied elsewhere: QGIS opens battle.qgs with every layer found, styled,
    temporal, and the Temporal Controller stepping one bound."""
    if not _has_qgis():
        pytest.skip("QGIS's Python bindings not installed (Debian python3-qgis)")
    moved = tmp_path / "elsewhere" / "run"
    shutil.copytree(teutoburg_run, moved)
    script = tmp_path / "qgis_project.py"
    script.write_text(QGIS_PROJECT_SCRIPT, encoding="utf-8")
    begin = STAND_IN_START + dt.timedelta(minutes=6)
    end = begin + dt.timedelta(minutes=1)
    png = tmp_path / "bound6.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_RUNTIME_DIR": str(tmp_path)}
    done = subprocess.run(
        [SYSTEM_PYTHON, script, moved / "battle.qgs", begin.isoformat(), end.isoformat(), png],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["read"]
    assert got["step"] == [1.0, "min"]
    layers = got["layers"]
    assert all(v["valid"] for v in layers.values()), layers
    assert layers["battlefield: movement classes"]["renderer"] == "paletted"
    for name in ("bases", "events", "messengers"):
        assert layers[name]["temporal"], name
    assert layers["bases"]["renderer"] == "RuleRenderer"
    assert png.stat().st_size > 10_000
