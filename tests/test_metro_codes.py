"""Metropolitan-area codes, both directions (each member maps to its area, each area to itself); no
airport in two areas unless a source says so; the guard's canonicaliser uses them. No test here depends on the
installed airportsdata release: a member the release lacks is skipped, not failed."""
from collections import Counter

import pytest

from reference.core import airports
from reference.core import metro_codes as m

MEMBERS = sorted((metro, code) for metro, codes in m.METRO_AREAS.items() for code in codes)

@pytest.fixture(scope="module")
def records():
    return airports.tables().airports


@pytest.mark.parametrize("metro, code", MEMBERS)
def test_each_member_maps_to_its_metro(metro, code):
    if code in m.METRO_AREAS and code != metro:  # an airport whose code is another area's code: never here
        pytest.fail(f"{code} is both a member of {metro} and a metropolitan code")
    assert m.metro_of(code) == metro


@pytest.mark.parametrize("metro", sorted(m.METRO_AREAS))
def test_each_metro_code_maps_to_itself(metro):
    assert m.metro_of(metro) == metro
    assert m.metro_of(metro.lower()) == metro


def test_known_cases():
    assert m.metro_of("PEK") == m.metro_of("PKX") == m.metro_of("BJS") == "BJS"
    assert m.metro_of("SHA") == m.metro_of("PVG") == "SHA"  # SHA: Shanghai metro code and Hongqiao airport
    assert m.metro_of("BJX") is None  # Del Bajio, Mexico: not Beijing
    assert m.metro_of("EWR") == "NYC" and m.metro_of("EWR", iata_only=True) is None
    assert m.metro_of("BWI") == "WAS" and m.metro_of("BWI", iata_only=True) is None
    assert m.metro_of("JFK", iata_only=True) == "NYC"
    assert m.metro_of("BER") is None  # Berlin has one airport


def test_iata_list_is_contained_in_metro_areas():
    for metro, codes in m.IATA_MULTI_AIRPORT_CITIES.items():
        assert set(codes) <= set(m.METRO_AREAS[metro])


def test_no_airport_in_two_metro_areas_unless_allowed():
    counts = Counter(code for codes in m.METRO_AREAS.values() for code in codes)
    twice = {code for code, n in counts.items() if n > 1}
    assert twice <= set(m.ALLOWED_IN_TWO), f"in two metropolitan areas: {sorted(twice - set(m.ALLOWED_IN_TWO))}"
    assert all(reason.strip() for reason in m.ALLOWED_IN_TWO.values())  # each exception names its source


def test_excluded_airports_are_not_members():
    members = {code for codes in m.METRO_AREAS.values() for code in codes}
    assert not set(m.NOT_INCLUDED) & members
    assert all(m.metro_of(code) is None for code in m.NOT_INCLUDED)


def test_every_area_has_a_country():
    assert set(m.COUNTRY) == set(m.METRO_AREAS)


@pytest.mark.parametrize("metro, code", MEMBERS)
def test_member_is_a_real_airport_in_the_right_country(metro, code, records):
    record = records.get(code)
    if record is None:  # this airportsdata release lacks the code: the country table still says where it is
        pytest.skip(f"{code} is not in the installed airportsdata release")
    assert record["country"] == m.COUNTRY[metro], f"{code} is {record['name']} ({record['country']}), not in {metro}"


def test_every_member_has_a_name_and_country():
    assert set(m.NAMES) == set(m.COUNTRY) == set(m.METRO_AREAS)


@pytest.mark.parametrize("metro, code", MEMBERS)
def test_the_guard_canonicalises_each_member_to_its_area(metro, code):
    assert airports.metro(code) == metro
    assert airports.metro(metro) == metro


def test_searches_use_the_wider_areas():
    assert airports.metro("EWR") == "NYC" and airports.metro("BWI") == "WAS"
    assert airports.request_problem("EWR", "Fly me from New York to Boston", ["BOS"]) is None
