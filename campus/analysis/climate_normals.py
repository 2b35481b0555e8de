"""Monthly climate normals of the shipped reference years, one station per climate, with their sources.

Each station gives, for January to December, the mean daily maximum and minimum dry-bulb temperature and
one humidity figure: the mean dew point or the mean relative humidity, in the unit its source publishes
(°F for the NOAA tables, °C and % elsewhere); ``campus.analysis.weather`` converts. The diurnal model that
turns these twelve months into 8,760 hours is documented in docs/model.md ("Weather").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StationNormals:
    climate: str  # the climate id a campus chooses
    label: str  # human-readable place
    station: str  # the observing station and its identifier
    source: str  # the publication the monthly figures come from
    period: str  # the normals period
    latitude_deg: float
    elevation_m: float  # station elevation: sets the air pressure of the psychrometrics
    unit: str  # "F" or "C": the unit of the temperature rows below
    tmax: tuple[float, ...]  # mean daily maximum dry bulb, Jan..Dec
    tmin: tuple[float, ...]  # mean daily minimum dry bulb, Jan..Dec
    dew_point: tuple[float, ...] | None = None  # mean dew point, Jan..Dec (same unit)
    relative_humidity_pct: tuple[float, ...] | None = None  # mean relative humidity %, Jan..Dec
    # the station's time zone (IANA tz database name): the year's hours are its local standard time
    time_zone: str = ""


STATIONS: tuple[StationNormals, ...] = (
    StationNormals(
        climate="memphis-us",
        time_zone="America/Chicago",
        label="Memphis, Tennessee, United States",
        station="Memphis International Airport (GHCN-D USW00013893, WBAN 13893)",
        source=(
            "NOAA NCEI, 1991-2020 U.S. Climate Normals (temperature); dew point: NOAA NCEI "
            "Comparative Climatic Data (1961-1990 station means). https://www.ncei.noaa.gov/products/land-based-station/us-climate-normals"
        ),
        period="1991-2020",
        latitude_deg=35.06,
        elevation_m=77.0,
        unit="F",
        tmax=(51.0, 55.7, 64.7, 73.8, 81.9, 89.1, 91.7, 91.3, 85.5, 75.0, 62.8, 53.7),
        tmin=(33.4, 37.0, 45.0, 53.6, 62.9, 70.6, 73.9, 72.5, 65.3, 53.9, 42.6, 35.9),
        dew_point=(30.6, 33.8, 41.0, 49.1, 59.0, 66.6, 70.0, 69.1, 62.6, 50.4, 41.0, 33.1),
    ),
    StationNormals(
        climate="phoenix-us",
        time_zone="America/Phoenix",
        label="Phoenix, Arizona, United States",
        station="Phoenix Sky Harbor International Airport (GHCN-D USW00023183, WBAN 23183)",
        source=(
            "NOAA NCEI, 1991-2020 U.S. Climate Normals (temperature); dew point: NOAA NCEI "
            "Comparative Climatic Data (1961-1990 station means). https://www.ncei.noaa.gov/products/land-based-station/us-climate-normals"
        ),
        period="1991-2020",
        latitude_deg=33.43,
        elevation_m=337.0,
        unit="F",
        tmax=(67.6, 71.0, 77.5, 85.2, 94.8, 104.2, 106.5, 105.1, 100.4, 89.2, 76.5, 66.2),
        tmin=(46.1, 49.6, 54.5, 60.8, 69.9, 79.4, 85.2, 84.3, 78.8, 66.9, 54.0, 45.3),
        dew_point=(32.4, 32.7, 33.1, 32.0, 35.8, 39.4, 56.5, 59.4, 53.6, 41.6, 35.6, 32.5),
    ),
    StationNormals(
        climate="ashburn-us",
        time_zone="America/New_York",
        label="Ashburn, Virginia, United States (Northern Virginia)",
        station="Washington Dulles International Airport (GHCN-D USW00093738, WBAN 93738)",
        source=(
            "NOAA NCEI, 1991-2020 U.S. Climate Normals (temperature); dew point: NOAA NCEI "
            "Comparative Climatic Data (station means). https://www.ncei.noaa.gov/products/land-based-station/us-climate-normals"
        ),
        period="1991-2020",
        latitude_deg=38.94,
        elevation_m=95.0,
        unit="F",
        tmax=(42.5, 46.4, 55.3, 67.5, 76.1, 84.4, 88.8, 86.9, 80.0, 68.5, 56.8, 46.5),
        tmin=(24.2, 26.1, 32.7, 42.4, 51.9, 61.2, 65.9, 64.3, 57.2, 44.8, 34.6, 28.1),
        dew_point=(20.5, 22.1, 29.1, 38.3, 50.2, 59.7, 63.8, 63.1, 57.0, 45.0, 34.0, 25.5),
    ),
    StationNormals(
        climate="dublin-ie",
        time_zone="Europe/Dublin",
        label="Dublin, Ireland",
        station="Dublin Airport (Met Éireann synoptic station 3969)",
        source=(
            "Met Éireann, 1991-2020 climate averages for Dublin Airport (mean daily maximum and minimum "
            "air temperature, mean relative humidity). https://www.met.ie/climate/30-year-averages"
        ),
        period="1991-2020",
        latitude_deg=53.43,
        elevation_m=71.0,
        unit="C",
        tmax=(8.3, 8.8, 10.3, 12.4, 15.1, 17.9, 19.7, 19.4, 17.4, 14.1, 10.7, 8.7),
        tmin=(2.6, 2.6, 3.5, 4.7, 7.1, 9.9, 11.9, 11.7, 10.1, 7.6, 4.8, 3.2),
        relative_humidity_pct=(87.0, 85.0, 82.0, 78.0, 77.0, 78.0, 79.0, 80.0, 82.0, 85.0, 87.0, 88.0),
    ),
    StationNormals(
        climate="singapore-sg",
        time_zone="Asia/Singapore",
        label="Singapore",
        station="Changi climate station (WMO 48698)",
        source=(
            "Meteorological Service Singapore, climate of Singapore: 1991-2020 long-term means at Changi "
            "(mean daily maximum and minimum temperature, mean relative humidity). "
            "http://www.weather.gov.sg/climate-climate-of-singapore/"
        ),
        period="1991-2020",
        latitude_deg=1.37,
        elevation_m=15.0,
        unit="C",
        tmax=(30.6, 31.5, 32.0, 32.4, 32.3, 31.8, 31.3, 31.3, 31.4, 31.7, 31.1, 30.4),
        tmin=(24.0, 24.3, 24.6, 25.1, 25.6, 25.6, 25.3, 25.2, 24.9, 24.8, 24.3, 24.0),
        relative_humidity_pct=(81.8, 79.6, 80.9, 82.1, 81.6, 80.1, 79.9, 80.2, 80.4, 81.4, 85.0, 85.4),
    ),
    StationNormals(
        climate="ulanqab-cn",
        time_zone="Asia/Shanghai",
        label="Ulanqab, Inner Mongolia, China",
        station="Jining, Ulanqab (CMA / WMO 53480)",
        source=(
            "China Meteorological Administration, 1991-2020 surface climate normals of China, station 53480 "
            "Jining (also in the WMO climatological standard normals 1991-2020). "
            "https://www.ncei.noaa.gov/products/wmo-climate-normals"
        ),
        period="1991-2020",
        latitude_deg=41.03,
        elevation_m=1419.0,
        unit="C",
        tmax=(-4.9, -0.6, 6.4, 14.6, 20.9, 25.4, 27.3, 25.4, 20.1, 12.8, 3.8, -3.4),
        tmin=(-18.0, -14.3, -7.4, -0.4, 5.8, 11.2, 14.6, 13.0, 6.6, -0.6, -8.9, -15.9),
        relative_humidity_pct=(55.0, 48.0, 40.0, 34.0, 36.0, 46.0, 61.0, 66.0, 60.0, 53.0, 54.0, 57.0),
    ),
)

STATIONS = STATIONS + (
    StationNormals(
        climate="abilene-us",
        time_zone="America/Chicago",
        label="Abilene, Texas, United States",
        station="Abilene Regional Airport (GHCN-D USW00013962, WBAN 13962)",
        source=(
            "NOAA NCEI, 1991-2020 U.S. Climate Normals (temperature); dew point: NOAA NCEI "
            "Comparative Climatic Data (station means). https://www.ncei.noaa.gov/products/land-based-station/us-climate-normals"
        ),
        period="1991-2020",
        latitude_deg=32.41,
        elevation_m=534.0,
        unit="F",
        tmax=(57.6, 61.6, 70.0, 78.2, 85.7, 92.2, 95.6, 95.2, 88.0, 78.4, 66.5, 58.0),
        tmin=(33.5, 37.3, 44.8, 52.5, 62.1, 69.8, 72.9, 72.3, 65.3, 54.6, 42.9, 35.2),
        dew_point=(27.0, 30.0, 36.0, 44.0, 55.0, 61.0, 60.0, 60.0, 58.0, 48.0, 37.0, 29.0),
    ),
    StationNormals(
        climate="columbus-us",
        time_zone="America/New_York",
        label="Columbus, Ohio, United States",
        station="John Glenn Columbus International Airport (GHCN-D USW00014821, WBAN 14821)",
        source=(
            "NOAA NCEI, 1991-2020 U.S. Climate Normals (temperature); dew point: NOAA NCEI "
            "Comparative Climatic Data (station means). https://www.ncei.noaa.gov/products/land-based-station/us-climate-normals"
        ),
        period="1991-2020",
        latitude_deg=39.99,
        elevation_m=247.0,
        unit="F",
        tmax=(37.0, 41.1, 51.3, 64.3, 73.7, 81.7, 85.2, 83.7, 77.3, 65.4, 52.6, 41.3),
        tmin=(22.6, 24.8, 32.6, 42.6, 52.9, 61.6, 65.6, 63.9, 56.9, 45.4, 35.5, 27.4),
        dew_point=(18.9, 21.0, 28.3, 36.9, 48.6, 58.1, 62.2, 61.2, 54.5, 42.7, 32.6, 23.8),
    ),
)

STATION_BY_CLIMATE: dict[str, StationNormals] = {s.climate: s for s in STATIONS}
