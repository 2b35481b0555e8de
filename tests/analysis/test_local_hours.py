"""A weather year's hours are the site's local standard time (docs/model.md, "Weather"): a moment measured in
UTC is read against the hour it falls in at the site, so a site far from UTC is compared in phase.

Truth from outside the code: the shipped years put the day's maximum in hour 15 local standard time, the hour
ending at 15:00 (ASHRAE Handbook-Fundamentals ch. 14, the fraction of the daily range), so the measurements
from 14:00 to 15:00 local read it; Phoenix keeps Mountain Standard Time all year (UTC−7, no daylight saving:
the tz database's America/Phoenix), so that is 21:00-22:00 UTC."""

from datetime import UTC, datetime

import numpy as np
import pytest

from campus.analysis.measured_model import modelled_figures, wet_bulb_estimate_c
from campus.analysis.measurements import Bucket
from campus.analysis.power import rollup
from campus.analysis.weather import hour_of_year, reference_year, weather_of
from campus.epw import EPWError, parse_epw
from tests.analysis.builders import campus, rack
from tests.epw_text import HEADER, epw_bytes, epw_lines

JULY_15 = [datetime(2027, 7, 15, h, tzinfo=UTC) for h in range(24)]


@pytest.mark.parametrize(
    ("climate", "offset_h"),
    [("phoenix-us", -7), ("ashburn-us", -5), ("dublin-ie", 0), ("singapore-sg", 8), ("ulanqab-cn", 8)],
)
def test_a_shipped_year_is_read_in_its_stations_standard_time(climate, offset_h):
    year = reference_year(climate)
    assert year.utc_offset_h == offset_h
    hottest_utc = int(np.argmax([year.dry_bulb_c[hour_of_year(t, year.utc_offset_h)] for t in JULY_15]))
    assert hottest_utc == (14 - offset_h) % 24


def test_the_modelled_outdoor_temperature_of_an_arizona_site_peaks_in_the_local_afternoon():
    snap = campus(climate="phoenix-us", racks=(rack(1),))
    bucket = Bucket(mean=30.0, max=30.0, samples=1)
    series = {("campus", snap.name, "dry_bulb_c"): dict.fromkeys(JULY_15, bucket)}
    figure = modelled_figures(snap, rollup(snap), {1: 10.0}, series)[("campus", snap.id, "dry_bulb_c")]
    hottest = max(figure, key=figure.get)
    assert hottest.hour == 21  # 14:00 MST, in the hour ending 15:00
    # 21:00 UTC on 15 July is 14:00 MST, index 14 of day 196 (181 days to 30 June, then 14 more + 1)
    assert figure[hottest] == weather_of(snap).dry_bulb_c[(181 + 14) * 24 + 14]
    # the wet bulb estimate reads the same local hours: at the hottest hour the year's depression is largest
    depression = np.asarray([30.0]) - wet_bulb_estimate_c(snap, np.asarray([30.0]), [hottest])
    w = weather_of(snap)
    local = hour_of_year(hottest, -7)
    assert depression[0] == pytest.approx(w.dry_bulb_c[local] - w.wet_bulb_c[local])


def test_an_epw_years_hours_are_its_location_time_zone():
    hours = np.full(8760, 20.0)
    epw = parse_epw(epw_bytes(epw_lines(hours, hours - 5, np.full(8760, 70.0))))
    assert epw.utc_offset_h == -6.0  # the test file's LOCATION: a Tennessee site on Central Standard Time
    lines = epw_lines(hours, hours - 5, np.full(8760, 70.0))
    lines[0] = HEADER[0].replace(",-6.0,", ",-15.0,")
    with pytest.raises(EPWError, match="time zone") as err:
        parse_epw(epw_bytes(lines))
    assert err.value.line == 1
