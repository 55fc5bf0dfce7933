"""Check digits of well-formed identifiers: the one place they are computed.

Every ``*_valid`` function takes the identifier as written (spaces, dashes and
slashes are ignored) and returns ``True`` only when its check digit or letter
is right, so a random digit run of the same shape is rejected most of the
time. The ``*_check_digit`` functions make one: the surrogates
(``app.deid.shapes``) and the synthetic notes (``app.synth.identifiers``) use
them so that what they write passes the rule recogniser's checks.
"""
from __future__ import annotations

_MEDICARE_WEIGHTS = (1, 3, 7, 9, 1, 3, 7, 9)
_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
_SEPARATORS = str.maketrans("", "", " -/.")


def _compact(value: str) -> str:
    return value.translate(_SEPARATORS).upper()


def _luhn_sum(digits: str, double_first: bool) -> int:
    """Luhn's sum over ``digits`` read right to left, doubling every other
    digit starting with the rightmost when ``double_first``."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 != double_first:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total


def luhn_valid(value: str) -> bool:
    """Luhn (mod 10) check used by card and many account numbers."""
    digits = _compact(value)
    if not digits.isdigit() or len(digits) < 2:
        return False
    return _luhn_sum(digits, double_first=False) % 10 == 0


def luhn_check_digit(payload: str) -> str:
    """The digit that, appended to the digits ``payload``, passes :func:`luhn_valid`."""
    return str(-_luhn_sum(payload, double_first=True) % 10)


def medicare_check_digit(first8: str) -> int:
    """The ninth digit of an Australian Medicare number: the weighted sum of
    the first eight (weights 1,3,7,9,1,3,7,9) modulo 10."""
    return sum(int(d) * w for d, w in zip(first8, _MEDICARE_WEIGHTS)) % 10


def medicare_valid(value: str) -> bool:
    """Australian Medicare card number: 10 digits (+ optional IRN digit).

    The first digit is 2-6; the ninth digit is the weighted sum of the first
    eight (weights 1,3,7,9,1,3,7,9) modulo 10; the tenth is the issue number.
    """
    digits = _compact(value)
    if not digits.isdigit() or len(digits) not in (10, 11) or digits[0] not in "23456":
        return False
    return medicare_check_digit(digits[:8]) == int(digits[8])


def dni_valid(value: str) -> bool:
    """Spanish DNI/NIF: 8 digits and the letter ``TRWAGMYFPDXBNJZSQVHLCKE[n % 23]``."""
    v = _compact(value)
    if len(v) != 9 or not v[:8].isdigit() or not v[8].isalpha():
        return False
    return _DNI_LETTERS[int(v[:8]) % 23] == v[8]


def nie_valid(value: str) -> bool:
    """Spanish NIE: X/Y/Z (read as 0/1/2), 7 digits and the DNI control letter."""
    v = _compact(value)
    if len(v) != 9 or v[0] not in "XYZ":
        return False
    return dni_valid(str("XYZ".index(v[0])) + v[1:])


def ssn_valid(value: str) -> bool:
    """US Social Security number ``AAA-GG-SSSS`` with the SSA's never-issued
    ranges excluded (area 000, 666, 9xx; group 00; serial 0000)."""
    digits = _compact(value)
    if len(digits) != 9 or not digits.isdigit():
        return False
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return (area not in ("000", "666") and area[0] != "9"
            and group != "00" and serial != "0000")
