"""Shape-preserving replacements: IDs, phone numbers and unknown labels.

Every digit becomes a digit and every letter a letter of the same case;
everything else (spaces, dashes, brackets, dots) stays where it was, so
``(02) 9876-5432`` keeps its exact layout. The replacement characters are
drawn from the *normalised* original (its letters and digits only), so
``0412 345 678`` and ``0412345678`` get the same surrogate digits. When the
original's digits pass the AU Medicare check or the Luhn check, the
surrogate's check digit is recomputed so that it passes too.
"""
from __future__ import annotations

from app.deid.keyed import KeyedDraw
from app.rules.checksums import luhn_check_digit, luhn_valid, medicare_check_digit, medicare_valid


def _fresh_alnum(norm: str, draw: KeyedDraw) -> str:
    out = []
    for ch in norm:
        if ch.isdigit():
            out.append(draw.digit())
        else:
            out.append(draw.letter(upper=ch.isupper()))
    return "".join(out)


def _place(original: str, chars: str, letters: bool = True) -> str:
    """Put ``chars`` into the letter/digit positions of ``original``."""
    it = iter(chars)
    slot = str.isalnum if letters else str.isdigit
    return "".join(next(it) if slot(ch) else ch for ch in original)


def _normalise(original: str, letters: bool = True) -> str:
    # Non-ASCII letters/digits count as letters/digits of the shape too.
    slot = str.isalnum if letters else str.isdigit
    return "".join(ch for ch in original if slot(ch))


def id_surrogate(original: str, draw: KeyedDraw, *, keep_prefix: int = 0,
                 letters: bool = True) -> str:
    """Replace digits (and letters, unless ``letters`` is off) keeping layout,
    case and check digits.

    ``keep_prefix`` replaceable characters at the start are kept (a phone's
    prefix). The result always differs from ``original`` when it has at
    least one replaced character.
    """
    norm = _normalise(original, letters)
    if len(norm) <= keep_prefix:
        return original
    digits_only = norm.isdigit()
    medicare = digits_only and keep_prefix == 0 and medicare_valid(norm)
    luhn = digits_only and not medicare and len(norm) >= 4 and luhn_valid(norm)
    for _ in range(20):
        new = norm[:keep_prefix] + _fresh_alnum(norm[keep_prefix:], draw)
        if new.isdigit() and norm[0] != "0" and new[0] == "0" and len(new) > 1:
            # A leading zero would change how the number reads (and an int parse).
            new = draw.digit(nonzero=True) + new[1:]
        if medicare:
            new = draw.choice("23456") + new[1:]
            new = new[:8] + str(medicare_check_digit(new[:8])) + new[9:]
        elif luhn:
            new = new[:-1] + luhn_check_digit(new[:-1])
        if new.casefold() != norm.casefold():
            break
    return _place(original, new, letters)


def phone_surrogate(original: str, draw: KeyedDraw) -> str:
    """A phone/fax number with the same layout. A leading ``+`` country code,
    else the trunk ``0`` and the next digit, else the first digit is kept, so
    the number still reads as international/landline/mobile."""
    stripped = original.lstrip()
    digits = _normalise(original, letters=False)
    if stripped.startswith("+"):
        # Country code: the digits right after '+', up to the first separator.
        i = 1
        while i < len(stripped) and stripped[i].isdigit():
            i += 1
        keep = i - 1
    else:
        # The trunk "0" plus the next digit (AU area / mobile "04"), or the
        # first digit, keep the number's type recognisable.
        keep = 2 if digits[:1] == "0" else 1
    if len(digits) - keep < 4:
        keep = 0  # too short to spare any digit ("ext 12")
    # Letters in a phone are words such as "ext" or "Tel": kept.
    return id_surrogate(original, draw, keep_prefix=keep, letters=False)


def ip_surrogate(original: str, draw: KeyedDraw) -> str:
    """A dotted-quad IPv4 address: each octet replaced, same digit count, <= 255."""
    parts = original.split(".")
    out = []
    for part in parts:
        if not part.isdigit():
            out.append(part)
            continue
        n = len(part)
        lo, hi = (0, 9) if n == 1 else (10, 99) if n == 2 else (100, 255)
        out.append(str(draw.between(max(lo, 1), hi)))
    return ".".join(out)


def generic_surrogate(original: str, draw: KeyedDraw) -> str:
    """Letters -> letters (same case), digits -> digits, the rest kept."""
    return id_surrogate(original, draw)
