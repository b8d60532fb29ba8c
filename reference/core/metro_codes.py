"""IATA metropolitan-area (city) codes and the airports each one stands for, as flight searches use them.

airports.py takes membership from here, not from the installed `airportsdata` release, so no behaviour and
no test depends on which release is installed (airportsdata still names the airports).

Retrieved 2026-11-30. Sources, by the tag used in the comments below:

[IATA] IATA's "Multi Airport Cities" list (City Code Directory), IATA Resolution 011c, adopted at the
       Passenger Standards Conference (PSC) in October 2021, in force since 3 October 2022, "for the purpose of
       pricing, fare construction and mileage creation". IATA does not publish it as a public file; it is
       reproduced in full in airportsdata's README_IATA.rst:
       https://github.com/mborsetti/airportsdata/blob/main/README_IATA.rst
       (commit 6882656a3e616584f74e8b273f7d2cf837e9ca93). Single codes can be checked by hand at
       https://www.iata.org/en/publications/directories/code-search/ .
[OPTD] OpenTravelData, optd_por_best_known_so_far.csv, column city_code (the IATA city code each airport
       serves), commit c17743aa4eb171bcb87c0493e81f1ff36d36dd93 (2026-08-21):
       https://github.com/opentraveldata/opentraveldata/blob/master/opentraveldata/optd_por_best_known_so_far.csv
       Scheduled service was checked in ref_airport_pageranked.csv (same commit), which lists airports by
       their weight in flight schedules.
[TPG]  "No, EWR isn't really being excluded from 'NYC' airfare searches", The Points Guy (September 2022):
       https://thepointsguy.com/news/iata-ewr-airport-code-nyc . An IATA spokesperson said the October 2022 change
       applies to fares, not to searching flight availability. See also AeroTime,
       https://www.aerotime.aero/articles/32201-newark-lose-nyc-city-code-iata (EWR left NYC on 3 October 2022).

IATA's fare list is narrower than what a flight search returns: since 3 October 2022 NYC is only JFK and LGA for
pricing, but a search for NYC still returns Newark [TPG]. Flight searches are what this kit canonicalises, so
METRO_AREAS is IATA's list, plus SEARCH_EXTRAS (five passenger airports that [OPTD] assigns to the same city),
plus OTHER_CITY_CODES (YMQ, DTT, YEA, which are not on IATA's list). metro_of(code, iata_only=True) uses IATA's
list alone.
NOT_INCLUDED lists other airports [OPTD] assigns to these cities and why they were left out. The list is not
complete: the small fields OPTD puts under DFW, HOU, DXB, MEL and JNB are not named there.

Not included here: BER is Berlin Brandenburg's airport code and Berlin's city code. SXF and TXL closed in 2020,
so Berlin has a single airport. BJX is Del Bajio (Leon/Silao, Mexico), not Beijing.
"""
from __future__ import annotations

from typing import Optional

# [IATA] Resolution 011c Multi Airport Cities, complete (41 cities), in the order IATA's list gives them.
IATA_MULTI_AIRPORT_CITIES: dict[str, tuple[str, ...]] = {
    "DXB": ("DWC", "DXB"),                # Dubai, AE
    "BUE": ("AEP", "EZE"),                # Buenos Aires, AR
    "MEL": ("AVV", "MEL"),                # Melbourne, AU
    "BRU": ("BRU", "CRL"),                # Brussels, BE
    "BHZ": ("CNF", "PLU"),                # Belo Horizonte, BR
    "RIO": ("GIG", "SDU"),                # Rio de Janeiro, BR
    "SAO": ("CGH", "GRU", "VCP"),         # Sao Paulo, BR
    "YTO": ("YTZ", "YYZ"),                # Toronto, CA
    "BJS": ("PEK", "PKX"),                # Beijing, CN
    "SHA": ("PVG", "SHA"),                # Shanghai, CN (SHA is also Hongqiao's airport code)
    "TCI": ("TFN", "TFS"),                # Tenerife, ES
    "PAR": ("CDG", "ORY"),                # Paris, FR
    "BFS": ("BFS", "BHD"),                # Belfast, GB
    "LON": ("LCY", "LGW", "LHR", "LTN", "STN"),  # London, GB
    "JKT": ("CGK", "HLP"),                # Jakarta, ID
    "JOG": ("JOG", "YIA"),                # Yogyakarta, ID
    "THR": ("IKA", "THR"),                # Tehran, IR
    "REK": ("KEF", "RKV"),                # Reykjavik, IS
    "MIL": ("BGY", "LIN", "MXP"),         # Milan, IT
    "ROM": ("CIA", "FCO"),                # Rome, IT
    "NGO": ("NGO", "NKM"),                # Nagoya, JP
    "OSA": ("ITM", "KIX", "UKB"),         # Osaka, JP
    "SPK": ("CTS", "OKD"),                # Sapporo, JP
    "TYO": ("HND", "NRT"),                # Tokyo, JP
    "SEL": ("GMP", "ICN"),                # Seoul, KR
    "SLU": ("SLU", "UVF"),                # St Lucia, LC (IATA's list gives the country as "SL")
    "OSL": ("OSL", "TRF"),                # Oslo, NO
    "MOW": ("DME", "SVO", "VKO"),         # Moscow, RU
    "STO": ("ARN", "BMA"),                # Stockholm, SE
    "DKR": ("DKR", "DSS"),                # Dakar, SN
    "BKK": ("BKK", "DMK"),                # Bangkok, TH
    "ANK": ("ANK", "ESB"),                # Ankara, TR
    "IST": ("ISL", "IST", "SAW"),         # Istanbul, TR
    "TPE": ("TPE", "TSA"),                # Taipei, TW
    "IEV": ("IEV", "KBP"),                # Kyiv, UA
    "CHI": ("MDW", "ORD"),                # Chicago, US
    "DFW": ("DAL", "DFW"),                # Dallas, US
    "HOU": ("HOU", "IAH"),                # Houston, US
    "NYC": ("JFK", "LGA"),                # New York, US (EWR left NYC for pricing on 2022-10-03)
    "WAS": ("DCA", "IAD"),                # Washington, US
    "JNB": ("HLA", "JNB"),                # Johannesburg, ZA
}

# Passenger airports IATA's fare list leaves out but [OPTD] assigns to the city; each has scheduled service (it is
# in OPTD's schedule-based page rank). For EWR, IATA says NYC searches still return it [TPG]. For the other four,
# adding them is an editorial choice (each is sold under the city's name), not something a source states.
SEARCH_EXTRAS: dict[str, tuple[str, ...]] = {
    "NYC": ("EWR",),  # Newark: OPTD city codes "NYC,EWR"; still returned by NYC searches [TPG]
    "WAS": ("BWI",),  # Baltimore/Washington: OPTD "WAS,BWI"
    "LON": ("SEN",),  # London Southend: OPTD "LON"
    "PAR": ("BVA",),  # Paris Beauvais: OPTD "PAR"
    "STO": ("NYO",),  # Stockholm Skavsta: OPTD "STO"
}

# IATA city codes that are not on IATA's multi-airport list but do cover more than one airport code [OPTD].
OTHER_CITY_CODES: dict[str, tuple[str, ...]] = {
    "YMQ": ("YHU", "YMX", "YUL"),  # Montreal: Trudeau, Saint-Hubert, Mirabel
    "DTT": ("DET", "DTW", "YIP"),  # Detroit: Metro Wayne County, Coleman A. Young, Willow Run
    "YEA": ("YEG",),               # Edmonton: OPTD also lists YXD (City Centre), which closed in 2013
}

METRO_AREAS: dict[str, tuple[str, ...]] = {
    code: tuple(sorted(set(IATA_MULTI_AIRPORT_CITIES.get(code, ()) + SEARCH_EXTRAS.get(code, ())
                           + OTHER_CITY_CODES.get(code, ()))))
    for code in {**IATA_MULTI_AIRPORT_CITIES, **OTHER_CITY_CODES}
}

# Country of each metropolitan area (ISO 3166-1 alpha-2). Every member must be in the same country, which
# catches a typo that happens to be a real code somewhere else.
COUNTRY: dict[str, str] = {
    "DXB": "AE", "BUE": "AR", "MEL": "AU", "BRU": "BE", "BHZ": "BR", "RIO": "BR", "SAO": "BR", "YTO": "CA",
    "YMQ": "CA", "YEA": "CA", "BJS": "CN", "SHA": "CN", "TCI": "ES", "PAR": "FR", "BFS": "GB", "LON": "GB",
    "JKT": "ID", "JOG": "ID", "THR": "IR", "REK": "IS", "MIL": "IT", "ROM": "IT", "NGO": "JP", "OSA": "JP",
    "SPK": "JP", "TYO": "JP", "SEL": "KR", "SLU": "LC", "OSL": "NO", "MOW": "RU", "STO": "SE", "DKR": "SN",
    "BKK": "TH", "ANK": "TR", "IST": "TR", "TPE": "TW", "IEV": "UA", "CHI": "US", "DFW": "US", "HOU": "US",
    "NYC": "US", "WAS": "US", "DTT": "US", "JNB": "ZA",
}

# The name of each area, as the user would write it (IATA's list; [OPTD] for the three others).
NAMES: dict[str, str] = {
    "DXB": "Dubai", "BUE": "Buenos Aires", "MEL": "Melbourne", "BRU": "Brussels", "BHZ": "Belo Horizonte",
    "RIO": "Rio de Janeiro", "SAO": "Sao Paulo", "YTO": "Toronto", "YMQ": "Montreal", "YEA": "Edmonton",
    "BJS": "Beijing", "SHA": "Shanghai", "TCI": "Tenerife", "PAR": "Paris", "BFS": "Belfast", "LON": "London",
    "JKT": "Jakarta", "JOG": "Yogyakarta", "THR": "Tehran", "REK": "Reykjavik", "MIL": "Milan", "ROM": "Rome",
    "NGO": "Nagoya", "OSA": "Osaka", "SPK": "Sapporo", "TYO": "Tokyo", "SEL": "Seoul", "SLU": "St Lucia",
    "OSL": "Oslo", "MOW": "Moscow", "STO": "Stockholm", "DKR": "Dakar", "BKK": "Bangkok", "ANK": "Ankara",
    "IST": "Istanbul", "TPE": "Taipei", "IEV": "Kyiv", "CHI": "Chicago", "DFW": "Dallas", "HOU": "Houston",
    "NYC": "New York", "WAS": "Washington", "DTT": "Detroit", "JNB": "Johannesburg",
}

# Airports that [OPTD] assigns to one of these cities but that are deliberately not members: code -> (city, why).
NOT_INCLUDED: dict[str, tuple[str, str]] = {
    "NAY": ("BJS", "Beijing Nanyuan, closed to airline traffic in 2019 (Daxing replaced it)"),
    "SWF": ("NYC", "Stewart, about 90 km north of Manhattan; outside IATA's NYC"),
    "NYS": ("NYC", "Skyports seaplane base, no airline service"),
    "MTN": ("WAS", "Martin State, general aviation"),
    "RFD": ("CHI", "Rockford, about 130 km away"),
    "PWK": ("CHI", "general aviation"), "DPA": ("CHI", "general aviation"),
    "BQH": ("LON", "Biggin Hill, business aviation"),
    "LBG": ("PAR", "Le Bourget, business aviation"), "POX": ("PAR", "general aviation"),
    "TNF": ("PAR", "general aviation"), "VIY": ("PAR", "Villacoublay, military"),
    "PMF": ("MIL", "Parma, about 120 km from Milan"),
    "VST": ("STO", "Vasteras: no scheduled service in OPTD's schedule-based page rank"),
    "ZIA": ("MOW", "Zhukovsky: outside IATA's MOW"),
    "OKO": ("TYO", "Yokota Air Base"), "SSN": ("SEL", "Seoul Air Base"),
    "RTE": ("SAO", "Campo de Marte, general aviation"),
    "RRJ": ("RIO", "Jacarepagua, general aviation"), "SNZ": ("RIO", "Santa Cruz Air Force Base"),
    "YHM": ("YTO", "Hamilton, about 70 km away and outside IATA's YTO"),
    "YKF": ("YTO", "Waterloo, about 100 km away and outside IATA's YTO"),
    "YKZ": ("YTO", "Buttonville, closed"),
    "YXD": ("YEA", "Edmonton City Centre, closed in 2013"),
    "RYG": ("OSL", "Rygge: outside IATA's OSL"),
    "SXF": ("BER", "Berlin Schoenefeld, its code was merged into BER in 2020"),
    "TXL": ("BER", "Berlin Tegel, closed in 2020"),
}

# Airports allowed in two metropolitan areas, each with its source. No source used here puts one airport in two.
ALLOWED_IN_TWO: dict[str, str] = {}


def _index(areas: dict[str, tuple[str, ...]]) -> dict[str, str]:
    return {airport: metro for metro, airports in areas.items() for airport in airports}


_MEMBER_OF = _index(METRO_AREAS)
_IATA_MEMBER_OF = _index(IATA_MULTI_AIRPORT_CITIES)


def metro_of(code: str, *, iata_only: bool = False) -> Optional[str]:
    """The metropolitan-area code an airport belongs to, or None.

    A metropolitan code maps to itself, so SHA (the metro area, and also Hongqiao airport) is "SHA". Use
    iata_only=True for IATA's fare list alone, where EWR is not in NYC."""
    code = code.strip().upper()
    areas = IATA_MULTI_AIRPORT_CITIES if iata_only else METRO_AREAS
    if code in areas:
        return code
    return (_IATA_MEMBER_OF if iata_only else _MEMBER_OF).get(code)
