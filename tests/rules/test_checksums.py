import pytest

from app.rules.checksums import (dni_valid, luhn_check_digit, luhn_valid, medicare_check_digit,
                                 medicare_valid, nie_valid, ssn_valid)


@pytest.mark.parametrize("value, ok", [
    ("2123 45670 1", True),          # weights 1,3,7,9,1,3,7,9 -> check digit 0
    ("2123456701", True),
    ("21234567011", True),           # with an IRN
    ("2123 45671 1", False),         # wrong check digit
    ("7123 45670 1", False),         # first digit must be 2-6
    ("2123 4567", False),            # too short
])
def test_medicare(value, ok):
    assert medicare_valid(value) is ok


@pytest.mark.parametrize("value, ok", [
    ("4111 1111 1111 1111", True),
    ("4111-1111-1111-1112", False),
    ("79927398713", True),           # the textbook Luhn example
    ("79927398710", False),
    ("abc", False),
])
def test_luhn(value, ok):
    assert luhn_valid(value) is ok


@pytest.mark.parametrize("payload", ["7992739871", "411111111111111", "80840123456789", "0"])
def test_luhn_check_digit_is_the_only_passing_digit(payload):
    passing = [d for d in "0123456789" if luhn_valid(payload + d)]
    assert passing == [luhn_check_digit(payload)]


def test_medicare_check_digit():
    assert medicare_check_digit("21234567") == 0
    assert medicare_valid("21234567" + str(medicare_check_digit("21234567")) + "1")


def test_dni_and_nie_control_letters():
    assert dni_valid("12345678Z") and dni_valid("12345678-z")
    assert not dni_valid("12345678A")
    assert nie_valid("X1234567L") and nie_valid("Y-1234567-X")
    assert not nie_valid("X1234567A") and not nie_valid("A1234567L")


@pytest.mark.parametrize("value, ok", [
    ("123-45-6789", True), ("000-45-6789", False), ("666-45-6789", False),
    ("912-45-6789", False), ("123-00-6789", False), ("123-45-0000", False),
])
def test_ssn(value, ok):
    assert ssn_valid(value) is ok
