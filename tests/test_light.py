"""Time and light (engine.light) against published astronomy.

The reference values do not come from astral itself:
- London, 20 June 2024: sunrise 04:43 BST, sunset 21:21 BST (HM Nautical Almanac Office /
  timeanddate.com tables for London);
- Flodden, 9 September 1513 (Julian) = 19 September (Gregorian), 55.615 N: near the equinox
  sunset is at 18:00 apparent solar time, plus the 0.833 degree of refraction and semidiameter
  (0.833 / (15 cos 55.6) h = 6 min), plus the sun's declination of about +1 degree (tan 55.6 x
  tan 1 = 0.0255 rad = 6 min), less the equation of time (+6 min that week): about 18:06 local
  mean time;
- the moon was full at the lunar eclipse Columbus foretold in Jamaica on 29 February 1504
  (Julian) and new at "King Henry's" total solar eclipse of 2 August 1133 (Julian).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.light import Clock, Light, gregorian_date, parse_start, twilight_sight_limit
from engine.orders import InstantDelivery
from engine.rulesets import get_ruleset
from engine.scenario import load_scenario
from engine.testing import flat_origin, make_scenario
from scenario_builder.errors import ScenarioFileError

ARMIES = (
    str(Path(__file__).parent / "data" / "troops" / "rules_red.yaml"),
    str(Path(__file__).parent / "data" / "troops" / "rules_blue.yaml"),
)


def _minutes(a: dt.datetime, b: dt.datetime) -> float:
    return abs((a - b).total_seconds()) / 60.0


def test_london_midsummer_sunrise_and_sunset_match_the_almanac() -> None:
    lon = -0.1278
    c = Clock(lon, 51.5074, parse_start("2024-06-20", "12:00", "gregorian"), 1.0)
    t = c.sun_times()
    bst_to_lmt = dt.timedelta(hours=-1) + dt.timedelta(hours=lon / 15.0)
    assert _minutes(t["sunrise"], dt.datetime(2024, 6, 20, 4, 43) + bst_to_lmt) <= 2.0
    assert _minutes(t["sunset"], dt.datetime(2024, 6, 20, 21, 21) + bst_to_lmt) <= 2.0


def test_flodden_sunset_and_light_bound_by_bound() -> None:
    c = Clock(-2.165, 55.615, parse_start("1513-09-09", "16:00", None), bound_minutes=1.0)
    t = c.sun_times()
    assert _minutes(t["sunset"], dt.datetime(1513, 9, 19, 18, 6)) <= 6.0
    assert dt.timedelta(minutes=30) < t["dusk"] - t["sunset"] < dt.timedelta(minutes=45)
    # the light each bound: day until sunset, civil twilight until dusk, then night
    first_twilight = next(n for n in range(1, 400) if c.at_bound(n).light is Light.TWILIGHT)
    first_night = next(n for n in range(1, 400) if c.at_bound(n).light is Light.NIGHT)
    assert c.bound_start(first_twilight - 1) <= t["sunset"] < c.bound_start(first_twilight)
    # astral's dusk refracts the -6 degrees a little: within a bound of the geometric crossing
    assert _minutes(c.bound_start(first_night), t["dusk"]) <= c.bound_minutes


@pytest.mark.parametrize(
    ("julian", "full"),
    [("1504-02-29", True), ("1133-08-02", False)],  # Columbus's lunar, Henry I's solar eclipse
)
def test_moon_age_at_historical_eclipses(julian: str, full: bool) -> None:
    c = Clock(0.0, 51.5, parse_start(julian, "12:00", None), 1.0)
    phase = c.at_bound(1).moon_phase  # astral's scale: 0 (and 28) new, 14 full
    if full:
        assert 13.0 <= phase <= 15.0
    else:
        assert phase <= 1.0 or phase >= 27.0


def test_julian_dates_are_converted_before_the_reform_or_when_stated() -> None:
    assert gregorian_date("1066-10-14", None) == dt.date(1066, 10, 20)  # Hastings
    assert gregorian_date("1582-10-04", None) == dt.date(1582, 10, 14)  # the day before the reform
    assert gregorian_date("1582-10-15", None) == dt.date(1582, 10, 15)
    assert gregorian_date("1746-04-16", "julian") == dt.date(1746, 4, 27)  # Culloden, Old Style
    with pytest.raises(ValueError, match="Julian calendar"):
        gregorian_date("1513-02-30", None)


def test_6_3_twilight_reading() -> None:
    limit = twilight_sight_limit(get_ruleset().sight_limit_m)
    assert limit("clear", "day", False) is None
    assert limit("clear", "twilight", False) == 1500.0
    assert limit("rain", "twilight", False) == 1000.0
    assert limit("clear", "night", False) == 1000.0
    assert limit("fog", "twilight", True) is None  # locals know the ground (6.3)


# -- in a battle --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def minden(built_minden):
    bf = built_minden.battlefield
    return bf, flat_origin(bf)


def _quiet_battle(bf, origin, **fields) -> Battle:
    sc = make_scenario(
        [{"id": "r", "profile": "inf", "bases": 2, "at": (0, -600), "facing": 0}],
        [{"id": "b", "profile": "inf", "bases": 2, "at": (0, 600), "facing": 180}],
        armies=ARMIES,
        origin=origin,
        **fields,
    )
    return Battle(bf, sc, Dice(1), delivery=InstantDelivery())


def test_dusk_falls_during_the_battle_and_cuts_sight(minden) -> None:
    bf, origin = minden
    # Minden, 1 August 1759 (Gregorian: Prussia and Hanover used it): start 19:30 local mean time
    b = _quiet_battle(bf, origin, date="1759-08-01", start_time="19:30", max_bounds=150)
    sunset = b.sky.clock.sun_times()["sunset"]
    assert b.log.header["clock"]["sun_local_mean_time"]["sunset"] == sunset.strftime("%H:%M")
    seen: dict[int, str] = {}
    limits: dict[str, float | None] = {}
    while b.state.bound < 150:
        b.step()
        for e in b.log.bounds[-1].events:
            if e.type == "sky":
                seen[b.state.bound] = e.light
        limits[b.sight.time] = b.sight.limit_m(b.state.formations["r"])
    assert list(seen.values()) == ["day", "twilight", "night"]
    twilight_at = next(n for n, v in seen.items() if v == "twilight")
    assert b.sky.clock.bound_start(twilight_at - 1) <= sunset < b.sky.clock.bound_start(twilight_at)
    assert limits == {"day": None, "twilight": 1500.0, "night": 1000.0}


def test_weather_changes_at_the_given_bound(minden) -> None:
    bf, origin = minden
    b = _quiet_battle(
        bf, origin, weather="clear", weather_changes=[{"bound": 3, "weather": "fog"}], max_bounds=4
    )
    weathers = []
    for _ in range(4):
        b.step()
        weathers.append(b.sight.weather)
    assert weathers == ["clear", "clear", "fog", "fog"]
    sky = [(r.bound, e.weather) for r in b.log.bounds for e in r.events if e.type == "sky"]
    assert sky == [(1, "clear"), (3, "fog")]


def test_a_scenario_without_a_clock_logs_no_sky(minden) -> None:
    bf, origin = minden
    b = _quiet_battle(bf, origin, max_bounds=2)
    b.run()
    assert b.sky is None and "clock" not in b.log.header
    assert not [e for r in b.log.bounds for e in r.events if e.type == "sky"]


def test_start_time_needs_a_date_and_a_real_day(tmp_path: Path) -> None:
    src = Path(load_scenario("flodden_1513").path)
    text = src.read_text()
    bad = tmp_path / "flodden.yaml"
    bad.write_text(text.replace('date: "1513-09-09"', 'date: "1513-02-30"\nstart_time: "16:00"'))
    with pytest.raises(ScenarioFileError, match=r"line \d+: date: expected a day of the Julian"):
        load_scenario(bad, check_armies=False)
    bad.write_text(text.replace('date: "1513-09-09"\n', 'start_time: "16:00"\n'))
    with pytest.raises(ScenarioFileError, match=r"start_time: expected a date YYYY-MM-DD"):
        load_scenario(bad, check_armies=False)
