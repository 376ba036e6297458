"""Time and light: the clock of a battle, the sun and the moon, bound by bound.

A scenario with an ISO ``date``, a ``start_time`` (local mean solar time: the hours a source
gives, on a sundial's clock) and ground (the battlefield's centre) gets a :class:`Clock`. Bound
``n`` starts ``(n - 1) * bound_minutes`` after the start; the ruleset states how long a bound is
(``Ruleset.bound_minutes``). The sun's geometric elevation at that moment decides the light
(astral, NOAA solar equations; no hand-made formulas, nothing downloaded):

- **day**: the sun's upper limb above the horizon (elevation above -0.833 degrees: astral's and
  the almanacs' sunrise and sunset, with refraction);
- **twilight**: civil twilight, the sun 0.833 to 6 degrees below the horizon (astral's dawn and
  dusk with the civil depression);
- **night**: the sun lower than that.

Dates before the Gregorian reform are written, as the sources write them, in the Julian calendar
(``calendar: julian``; the default before 15 October 1582) and converted with convertdate. The
moon's phase and elevation are reported with the light (astral).

>>> c = Clock(-2.165, 55.615, parse_start("1513-09-09", "16:00", None), bound_minutes=1.0)
>>> c.start.date().isoformat()            # Flodden, 9 September 1513 (Julian) = 19 September
'1513-09-19'
>>> c.at_bound(1).light, c.at_bound(150).light, c.at_bound(200).light
(<Light.DAY: 'day'>, <Light.TWILIGHT: 'twilight'>, <Light.NIGHT: 'night'>)
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from astral import Observer, moon, sun
from convertdate import julian

if TYPE_CHECKING:
    from engine.context import BoundContext

__all__ = [
    "CIVIL_TWILIGHT_DEG",
    "GREGORIAN_REFORM",
    "SUNRISE_DEG",
    "Clock",
    "Light",
    "Sky",
    "SkyWatch",
    "gregorian_date",
    "parse_start",
    "sky_for",
    "twilight_sight_limit",
]

#: the sun's geometric elevation at sunrise and sunset: 34' of refraction + 16' semidiameter
SUNRISE_DEG = -0.833
#: the end of civil twilight: the sun 6 degrees below the horizon
CIVIL_TWILIGHT_DEG = -6.0
#: the first Gregorian day (Inter gravissimas): dates before it are Julian unless stated
GREGORIAN_REFORM = dt.date(1582, 10, 15)


class Light(StrEnum):
    DAY = "day"
    TWILIGHT = "twilight"
    NIGHT = "night"


def gregorian_date(iso: str, calendar: str | None) -> dt.date:
    """``YYYY-MM-DD`` as written in ``calendar`` ("julian" or "gregorian"; None: Julian before
    the reform) -> the proleptic Gregorian date astral works in. ValueError if malformed.

    >>> gregorian_date("1504-02-29", None)   # Columbus's lunar eclipse, Jamaica (Julian)
    datetime.date(1504, 3, 10)
    >>> gregorian_date("1863-07-02", None), gregorian_date("1690-07-01", "julian")
    (datetime.date(1863, 7, 2), datetime.date(1690, 7, 11))
    """
    parts = iso.strip().split("-")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"expected a date YYYY-MM-DD, got {iso!r}")
    y, m, d = (int(p) for p in parts)
    if calendar is None:
        calendar = "julian" if (y, m, d) < (1582, 10, 15) else "gregorian"
    if calendar == "gregorian":
        return dt.date(y, m, d)
    if calendar != "julian":
        raise ValueError(f"expected calendar julian or gregorian, got {calendar!r}")
    if not (1 <= m <= 12 and 1 <= d <= julian.month_length(y, m)):
        raise ValueError(f"expected a day of the Julian calendar, got {iso!r}")
    return dt.date(*julian.to_gregorian(y, m, d))


def parse_start(date: str, start_time: str, calendar: str | None) -> dt.datetime:
    """The battle's start as a naive datetime in local mean solar time (Gregorian)."""
    parts = start_time.strip().split(":")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ValueError(f"expected a time HH:MM, got {start_time!r}")
    hh, mm = int(parts[0]), int(parts[1])
    if not (0 <= hh < 24 and 0 <= mm < 60):
        raise ValueError(f"expected a time HH:MM, got {start_time!r}")
    return dt.datetime.combine(gregorian_date(date, calendar), dt.time(hh, mm))


@dataclass(frozen=True)
class Sky:
    """The sky at one moment: the light, the sun's and the moon's elevation (degrees) and the
    moon's phase on astral's scale (0 new, 7 first quarter, 14 full, 21 last quarter, to 28)."""

    local: dt.datetime
    light: Light
    sun_elevation: float
    moon_elevation: float
    moon_phase: float


class Clock:
    """Local mean solar time at a place, bound by bound."""

    def __init__(self, lon: float, lat: float, start: dt.datetime, bound_minutes: float) -> None:
        if not bound_minutes > 0:
            raise ValueError(f"expected a positive bound duration, got {bound_minutes}")
        self.lon, self.lat = float(lon), float(lat)
        self.start = start
        self.bound_minutes = float(bound_minutes)
        self.observer = Observer(latitude=self.lat, longitude=self.lon)
        # local mean time = UTC + longitude / 15 degrees an hour
        self._offset = dt.timedelta(hours=self.lon / 15.0)

    def utc(self, local: dt.datetime) -> dt.datetime:
        return (local - self._offset).replace(tzinfo=dt.UTC)

    def local(self, utc: dt.datetime) -> dt.datetime:
        return utc.astimezone(dt.UTC).replace(tzinfo=None) + self._offset

    def at(self, local: dt.datetime) -> Sky:
        when = self.utc(local)
        # geometric elevation: the -0.833 and -6 degree thresholds are defined without refraction
        el = float(sun.elevation(self.observer, when, with_refraction=False))
        if el > SUNRISE_DEG:
            light = Light.DAY
        elif el > CIVIL_TWILIGHT_DEG:
            light = Light.TWILIGHT
        else:
            light = Light.NIGHT
        return Sky(
            local,
            light,
            el,
            float(moon.elevation(self.observer, when)),
            float(moon.phase(when.date())),
        )

    def bound_start(self, n: int) -> dt.datetime:
        return self.start + dt.timedelta(minutes=(n - 1) * self.bound_minutes)

    def at_bound(self, n: int) -> Sky:
        """The sky as bound ``n`` (1, 2, ...) begins."""
        return self.at(self.bound_start(n))

    def sun_times(self) -> dict[str, dt.datetime | None]:
        """Dawn, sunrise, sunset and dusk (civil) of the start's day, local mean time (None
        where the sun does not reach that elevation that day)."""
        day = self.start.date()
        out: dict[str, dt.datetime | None] = {}
        for name, fn in (
            ("dawn", sun.dawn),
            ("sunrise", sun.sunrise),
            ("sunset", sun.sunset),
            ("dusk", sun.dusk),
        ):
            try:
                # the day in UTC that holds the local day's event (|offset| < 12 h)
                out[name] = self.local(fn(self.observer, day, tzinfo=dt.UTC))
            except ValueError:
                out[name] = None
        return out


def twilight_sight_limit(base: Any) -> Any:
    """6.3 with twilight: ``base(weather, time, local)`` is the ruleset's 6.3 (day or night);
    twilight, where the book is silent, is one step darker than day: non-local troops see
    1500 m (as in fog, rain or bright sun), and 1000 m in twilight with fog or rain (as at
    night). docs/rules-interpretations.md, "6.3 twilight"."""

    def limit(weather: str, time: str, local: bool) -> float | None:
        if time != Light.TWILIGHT:
            return base(weather, time, local)
        if weather in ("fog", "rain"):
            return base("clear", "night", local)
        return base("fog", "day", local)

    return limit


class SkyWatch:
    """The bound-start hook (``BoundContext.on_bound_start``) that sets the light and weather
    :class:`engine.sight.Sight` uses for 6.3, and logs a ``sky`` event when either changes.

    ``clock`` None keeps the scenario's fixed ``time`` (day or night); ``weather_changes``
    maps a bound to the weather from that bound on."""

    def __init__(
        self, clock: Clock | None, time: str, weather: str, weather_changes: dict[int, str]
    ) -> None:
        self.clock = clock
        self.time = time
        self.weather = weather
        self.changes = dict(sorted(weather_changes.items()))
        self.last: tuple[str, str] | None = None

    def weather_at(self, bound: int) -> str:
        w = self.weather
        for b, new in self.changes.items():
            if b <= bound:
                w = new
        return w

    def __call__(self, ctx: BoundContext) -> None:
        from engine.log import SkyChanged

        n = ctx.state.bound
        sky = self.clock.at_bound(n) if self.clock is not None else None
        light = str(sky.light) if sky is not None else self.time
        weather = self.weather_at(n)
        if (light, weather) == self.last:
            return
        self.last = (light, weather)
        sight = ctx.sight
        if (sight.time, sight.weather) != (light, weather):
            sight.time, sight.weather = light, weather
            sight._version = -1  # the cached answers were for the old light
        ctx.emit(
            SkyChanged(
                "orders",
                light,
                weather,
                sky.local.strftime("%H:%M") if sky is not None else None,
                sky.sun_elevation if sky is not None else None,
                sky.moon_elevation if sky is not None else None,
                sky.moon_phase if sky is not None else None,
            )
        )


def sky_for(scenario: Any, battlefield: Any, ruleset: Any) -> SkyWatch | None:
    """The bound-start hook for a scenario (None when its light and weather never change:
    no ``start_time``, no ``weather_changes``)."""
    changes = {c.bound: c.weather for c in scenario.weather_changes}
    if scenario.start_time is None and not changes:
        return None
    clock = None
    if scenario.start_time is not None:
        minutes = getattr(ruleset, "bound_minutes", None)
        if minutes is None:
            from scenario_builder.errors import ScenarioFileError

            raise ScenarioFileError(
                scenario.path or scenario.id,
                f"start_time: expected a ruleset that states a bound duration, got "
                f"{ruleset.name} (none)",
            )
        lon, lat = battlefield.to_lonlat(*battlefield.centre)
        start = parse_start(scenario.date, scenario.start_time, scenario.calendar)
        clock = Clock(float(lon), float(lat), start, minutes)
    return SkyWatch(clock, scenario.time, scenario.weather, changes)
