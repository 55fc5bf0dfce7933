"""People's names as ward notes write them, found by their context: after
a title ("DR. PRICE"), before a credential or after a role ("J. Yi, MD",
"per md Okonkwo"), an initial and a surname ("p. renard"), after or
before a relation ("SON TOBIAS", "Ines Okwu (daughter)"), before a phone
number ("Ines Okwu cell# 410-..."), and what completes a name found
(its initials, "J SMITH", and the names joined to it by "and").

Each rule was counted on the PhysioNet training patients (hits on annotated
identifiers vs not; docs/ARCHITECTURE.md lists them).

>>> text = "SEEN BY DR. PRICE, Dr Art Whitcombe AWARE. MRS. O'NEIL CALLED. DR AWARE. MS BACK"
>>> [text[s:e] for s, e in find_titled_names(text)]
['PRICE', 'Art Whitcombe', "O'NEIL"]
"""
from __future__ import annotations

import re
from itertools import chain

from app.rules.lexicon import words
from app.rules.registry import fragment, shipped_pattern

_NAME_WORD_RE = re.compile(fragment("NAME_WORD"))


# A title, then an optional initial, then one or two name words.
_TITLED_RE = shipped_pattern("titled-name", "title")
_TITLED_MANY_RE = shipped_pattern("titled-name", "plural-title")
_MS_RE = shipped_pattern("titled-name", "ms-or-miss")
_NOT_AFTER_NAME = words("not_after_name")
_AFTER_TITLE = words("after_title")


def find_titled_names(text: str) -> list[tuple[int, int]]:
    """Offsets of the names written after a title ("DR. PRICE", "Dr Art
    White", "MRS. O'NEIL"): a word that is not a common one unless it is a
    listed name, and the next one when it is no common word at all ("MRS
    SMITH FAIR" stops at SMITH), and every name after a plural title ("DRS
    HALVORSEN AND OKAFOR"). On the PhysioNet training notes (not our dev
    patients) every one of its 170 hits overlaps an annotated name."""
    from app.rules import dictionaries as D

    def name_like(word: str) -> bool:
        low = word.lower()
        return low not in _AFTER_TITLE and (D.is_name(low) or not D.is_common_word(low))

    def surname_after(first: str, second: str | None, title: str) -> bool:
        # "DR JOHN BOWMAN": an uncommon word. "Dr. Ada Baker", "Dr Ivo Mason":
        # a capitalised word after a capitalised first name in mixed-case
        # writing, whatever it means ("Dr. Hayes notified" stays one word).
        if not second:
            return False
        if name_like(second) and not D.is_common_word(second):
            return True
        low = second.lower()
        return (D.is_first_name(first) and not title.isupper() and first[:1].isupper()
                and second[:1].isupper() and not second.isupper()
                and low not in _AFTER_TITLE and low not in _NOT_AFTER_NAME)

    out = []
    for m in _TITLED_RE.finditer(text):
        if not name_like(m.group(2)):
            continue
        start = m.start(1) if m.group(1) else m.start(2)
        title = text[m.start():(m.start(1) if m.group(1) else m.start(2))]
        end = m.end(3) if surname_after(m.group(2), m.group(3), title) else m.end(2)
        out.append((start, end))
    # Several doctors: "DRS HALVORSEN AND OKAFOR", "DR'S DELACROIX AND MARLOWE".
    for m in _TITLED_MANY_RE.finditer(text):
        for name in _NAME_WORD_RE.finditer(m.group(), m.start(1) - m.start()):
            if name.group().lower() not in ("and",) and name_like(name.group()):
                out.append((m.start() + name.start(), m.start() + name.end()))
    # "MS" and "MISS": only an uncommon word of four letters or more ("Miss
    # Leontyne", "MS OKONKWO"; not "MS CONTIN", "MS 4MG"): 2 hits on training, both names.
    for m in _MS_RE.finditer(text):
        low = m.group(1).lower()
        if len(low) >= 4 and low not in _AFTER_TITLE and not D.is_common_word(low):
            out.append(m.span(1))
    return sorted(set(out))


# A clinician's credential after their name: "J. Yi, MD", "Brandvold-Painter MD",
# "s. okafor rrt", "B. LINDQVIST PA AWARE". "PA" is also the pulmonary artery
# ("RIJ PA LINE", "PA'S 30'S"): as a credential it must end the phrase.
_CREDENTIALED_RE = shipped_pattern("credentialed-name", "before-a-credential")
# A clinician's role before the name, then a word saying they were told:
# "NP JEN AWARE", "RN ODALYS NOTIFIED".
_ROLE_AWARE_RE = shipped_pattern("credentialed-name", "role-then-told")
# A listed name, then a word saying they were told: "INES NOTIFIED", "Z. OKAFOR AWARE".
_TOLD_RE = shipped_pattern("credentialed-name", "told")
# The same with a first name before the surname: "ines vaskova aware".
_TOLD_FULL_RE = shipped_pattern("credentialed-name", "full-name-told")
# A role after a word that says someone acted or was told, then a listed
# name: "PER NP Hoffman", "BY HO Gutierrez", "per md Okafor".
_ROLE_NAME_RE = shipped_pattern("credentialed-name", "deed-role-name")
_ROLE_WORDS = words("role_words")


def _clinician_name_like(word: str, initial: bool = False) -> bool:
    """A word that may be a clinician's name before a credential: neither a
    common word nor a role word, and a listed name, a word after an initial
    ("J. YI") or a word of four letters or more with a vowel ("PER", "FLD",
    "IJ", "OSTOMY" are not)."""
    from app.rules import dictionaries as D

    low = word.lower()
    head = low.split("-")[0]
    if low in _AFTER_TITLE or low in _ROLE_WORDS or head in _ROLE_WORDS \
            or D.is_common_word(low) or D.is_common_word(head):
        return False
    return initial or D.is_name(low) or D.is_name(head) \
        or (len(low) >= 4 and any(c in "aeiouy" for c in low))


def _first_before_surname(first: str, second: str) -> bool:
    """A listed first name, then a capitalised word in mixed-case writing,
    whatever it means: a surname before a credential ("Rose Baker RN", not
    "WILL KEEP NP"; on the PhysioNet training notes 9 hits, all names)."""
    from app.rules import dictionaries as D

    return D.is_first_name(first) and first[:1].isupper() and not second.isupper() \
        and second[:1].isupper() and first.lower() not in _ROLE_WORDS | _AFTER_TITLE \
        and second.lower() not in _ROLE_WORDS | _AFTER_TITLE | _NOT_AFTER_NAME


def find_credentialed_names(text: str) -> list[tuple[int, int]]:
    """Offsets of the names written before a clinician's credential ("J. Yi,
    MD", "Brandvold-Painter MD", "okafor rrt", "B. LINDQVIST PA AWARE") or between
    a role and a word saying they were told ("NP JEN AWARE"), with the
    initial before them, a listed name after a role after a word saying
    someone acted ("PER NP Hoffman") or before a word saying they were told
    ("INES NOTIFIED"). On the PhysioNet training notes (not our dev
    patients) every one of its 65 hits overlaps an annotated name."""
    out = []
    for m in _CREDENTIALED_RE.finditer(text):
        first, second = m.group(2), m.group(3)
        words = [(m.start(2), first)] + ([(m.start(3), second)] if second else [])
        # The name is the run of name-like words that ends at the credential.
        kept = []
        for start, word in reversed(words):
            if not _clinician_name_like(word, bool(m.group(1)) and start == m.start(2)):
                break
            kept.insert(0, (start, word))
        if second and len(kept) < 2 and _first_before_surname(first, second):
            kept = words                               # "Rose Baker RN"
        if not kept:
            continue
        start = kept[0][0]
        if m.group(1) and start == m.start(2):
            start = m.start(1)
        out.append((start, kept[-1][0] + len(kept[-1][1])))
    from app.rules import dictionaries as D

    for m in _ROLE_AWARE_RE.finditer(text):
        # The role and the word after it say enough: any uncommon word, or
        # a first name that is also a word ("NP HOPE AWARE", not "MD MADE AWARE").
        word = m.group(1)
        if _clinician_name_like(word, initial=True) or D.is_first_name(word) \
                and word.lower() not in _AFTER_TITLE | _ROLE_WORDS:
            out.append(m.span(1))

    for m in chain(_ROLE_NAME_RE.finditer(text), _TOLD_RE.finditer(text)):
        # "PER MD EPI", "BY MD TOL WELL", "TEAM AWARE": only a listed name.
        word = m.group(1)
        if len(word) > 2 and D.is_name(word) and not D.is_common_word(word) \
                and word.lower() not in _ROLE_WORDS:
            out.append(m.span(1))
    for m in _ROLE_NAME_RE.finditer(text):
        # After a role, an unlisted name too ("per md Okonkwo"), but no
        # lower-case word in a note that writes capitals (a misspelt word:
        # "per md vebal"). On the PhysioNet training notes 5 hits, all names.
        word = m.group(1)
        if _clinician_name_like(word) and not (word.islower() and not text.islower()):
            out.append(m.span(1))
    for m in _TOLD_FULL_RE.finditer(text):
        # a listed first name, then an uncommon surname: 1 hit, a name
        first, last = m.group(1), m.group(2)
        if D.is_first_name(first) and first.lower() not in _AFTER_TITLE | _ROLE_WORDS \
                and _clinician_name_like(last, initial=True):
            out.append((m.start(1), m.end(2)))
    return sorted(set(out))


# An initial, its stop and a space, then an uncommon word: "p. renard",
# "Z. OKAFOR IN TO SEE". Not a letter opening a line (a plan's items: "A.
# SEPSIS"), a side before a lower-case word ("R. thoracotomy") nor a letter
# before a word with a letter alone ("I. X-ray").
_INITIALED_RE = shipped_pattern("initialed-name", "initial-and-surname")


def find_initialed_names(text: str) -> list[tuple[int, int]]:
    """Offsets of the names written as an initial and a surname that is no
    common word ("p. renard", "Z. OKAFOR"), the initial's stop included
    (`app.lists.floor` leaves it out); not a capital initial before a word
    in lower case, as a species is written ("C. difficile", "E. coli": the
    bundled sample's "C. difficile negative" came out as two names). On the
    PhysioNet training notes 30 hits, all annotated names, none of them a
    capital initial before a word in lower case."""
    from app.rules import dictionaries as D
    from app.rules.vetoes import _FUNCTION_WORDS

    out = []
    for m in _INITIALED_RE.finditer(text):
        letter, word = m.group(1), m.group(2)
        if not text[text.rfind("\n", 0, m.start()) + 1:m.start()].strip() \
                or (letter in "RLrl" or letter.isupper()) and word.islower() \
                or any(len(part) < 2 for part in word.split("-")):
            continue
        if len(word) > 2 and not D.is_common_word(word) \
                and word.lower() not in _FUNCTION_WORDS | _AFTER_TITLE | _ROLE_WORDS:
            out.append(m.span())
    return out



# ------------------------------------------------------------- relatives

# Relatives and the people a note's "social" line names: "SON, MARK,
# CALLED", "his friend Tomasz Wierzbicki", "dtr-in-law Greta", "social: ned visited".
_RELATION_RE = shipped_pattern("relative-name", "after-a-relation")
# A name, then whose relative it is: "Ines Okwu (daughter)", "NANCY ROE, HIS NIECE".
_NAME_THEN_RELATION_RE = shipped_pattern("relative-name", "before-a-relation")
_NOT_A_RELATIVE = words("not_a_relative")
# What follows a relative's name that is also a common word ("son mark
# called", "wife, iris, left", "son ned 555-..."): a stop, a phone number, a
# word saying what they did.
_AFTER_RELATIVE_RE = shipped_pattern("relative-name", "after-the-name")


def find_relative_names(text: str) -> list[tuple[int, int]]:
    """Offsets of the names written after a relation ("SON TOBIAS", "his
    wife, Marisol Quintero", "social: ned visited"): a listed name that is no
    common word, an unlisted word that is no common word either, or a
    listed first name that is a common word ("mark", "iris") when a stop, a
    phone number or a word saying what they did follows it. A surname after
    the first name joins it as after a title. And the uncommon words right
    before whose relative someone is ("Ines Okwu (daughter)", "NANCY ROE HIS
    NIECE")."""
    from app.rules import dictionaries as D
    from app.rules.vetoes import _FUNCTION_WORDS, _LANGUAGES

    def name_at(word: str, end: int) -> bool:
        low = re.sub(r"['\u2019]s$", "", word.lower())        # "SOCIAL-SON'S IN": no name
        if low in _NOT_A_RELATIVE or low in _FUNCTION_WORDS or low in _LANGUAGES:
            return False                                # "daughter, russian speaking"
        if not D.is_common_word(low):
            if D.is_name(low):
                return True
            # an unlisted word: no misspelt verb ("VISISTED", "TRACHED")
            return len(low) >= 3 and not low.endswith(("ed", "ing"))
        return D.is_first_name(low) and bool(_AFTER_RELATIVE_RE.match(text, end))

    out = []
    pos = 0
    while m := _RELATION_RE.search(text, pos):
        # the next search starts at the word after the relation ("SOCIAL: SON TOBIAS")
        pos = m.start(1)
        first, second = m.group(1), m.group(2)
        if "-" in first:
            # "DAUGHTER-TAMSIN" is found from "DAUGHTER"; "Rob-who" is Rob;
            # "MARRIED-WO", "IN-LAW" are no names
            first, second = first.split("-")[0], None
        if not name_at(first, m.start(1) + len(first)):
            continue
        end = m.start(1) + len(first)
        if second and second.lower() not in _NOT_A_RELATIVE | _NOT_AFTER_NAME \
                and (not D.is_common_word(second)
                     or second[:1].isupper() and not second.isupper() and first[:1].isupper()
                     and not first.isupper()):
            end = m.end(2)
        out.append((m.start(1), end))
    for m in _NAME_THEN_RELATION_RE.finditer(text):
        words = [(m.start(i), m.end(i)) for i in (1, 2) if m.group(i)
                 and not D.is_common_word(m.group(i)) and m.group(i).lower() not in _NOT_A_RELATIVE]
        # a listed first name that is also a word before an uncommon surname:
        # "Hope Vaskova (daughter)" (2 hits on training, both names)
        if words and m.group(2) and words[0][0] == m.start(2) and D.is_first_name(m.group(1)) \
                and m.group(1).lower() not in _NOT_A_RELATIVE | _FUNCTION_WORDS:
            words.insert(0, m.span(1))
        if words:
            out.append((words[0][0], words[-1][1]))
    return sorted(set(out))


# One or two words, then a phone number, perhaps after its kind: "Ines
# Okwu cell# 410-555-0134", "CONTACT PERSON IVO MARR (212-555-0123)".
_CONTACT_RE = shipped_pattern("contact-name", "before-a-phone")
#: Words that make what follows a number, not a phone to call ("Medicare No").
_NUMBER_WORDS = words("number_titles")


def find_contact_names(text: str) -> list[tuple[int, int]]:
    """Offsets of the uncommon words (one or two) right before a phone
    number ("Ines Okwu cell# 410-555-0134", "son ,dave, (410) 555 0123"):
    whom to call. Not a state ("Sister in Ohio 415-..."), nor the title of a
    number ("Medicare No 4838115196": the bundled sample's card number made
    "Medicare" a name at confidence 1.00). On the PhysioNet training notes 9
    hits, all annotated, none before "No" or "number"."""
    from app.rules import dictionaries as D
    from app.rules.vetoes import _FUNCTION_WORDS

    out = []
    for m in _CONTACT_RE.finditer(text):
        if (m.group(2) or "").lower() in _NUMBER_WORDS:
            continue
        words = [m.span(i) for i in (1, 2) if m.group(i) and len(m.group(i)) > 2
                 and not D.is_common_word(m.group(i))
                 and m.group(i).lower() not in _FUNCTION_WORDS | _ROLE_WORDS | _NOT_A_RELATIVE
                 and m.group(i).lower() not in D.US_STATE_NAMES]
        if words:
            out.append((words[0][0], words[-1][1]))
    return out


# ------------------------------------------------------------- initials

# A lone letter right before a name, with its stop: "J SMITH", "K. OYELARAN",
# "ANTACID-K. OYELARAN". "A" and "I" without a stop are words.
_INITIAL_BEFORE_RE = shipped_pattern("initials-and-joined-names", "initial-before")


def initial_before(text: str, start: int) -> int | None:
    """Where the initials right before a name starting at ``start`` begin
    ("J SMITH", "K. T. OYELARAN": the offset of "J", "K"), or None. On the
    PhysioNet training notes every one of the 23 lone letters before an
    annotated name is part of a name."""
    found = None
    while (m := _INITIAL_BEFORE_RE.search(text, max(0, start - 6), start)) is not None:
        found = start = m.start()
    return found


# A name joined to another by "and": "Drs Okafor and Lind", "d. mo and j. o'hara".
_AND_AFTER_RE = shipped_pattern("initials-and-joined-names", "and-after")
_AND_BEFORE_RE = shipped_pattern("initials-and-joined-names", "and-before")
_TITLES = words("titles")


def names_beside(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Offsets of the names joined by "and" to the name at ``text[start:end]``
    ("ODALYS AND KWAME", "p. mbeki and t. o'hara"): an uncommon word (with
    its initial) right after or right before. On the PhysioNet training
    notes (not our dev patients) every one of the 13 uncommon words beside
    an annotated name is one; common words there are mostly not ("Ruiz and
    ordered", "Ruiz and additional")."""
    from app.rules import dictionaries as D
    from app.rules.vetoes import _FUNCTION_WORDS, _KIN

    def name_like(word: str) -> bool:
        low = word.lower()
        if low in _FUNCTION_WORDS | _KIN or low in _AFTER_TITLE \
                or low in _TITLES:
            return False
        if word == low and text[start:start + 1].isupper() and not text.isupper():
            return False        # "laparotomy and Hartmann's": lower case beside a capital
        # a first name that is a word, capitalised in mixed-case writing:
        # "Ines and Hope are" (1 on training, a name)
        return not D.is_common_word(low) or D.is_first_name(low) and word.istitle() \
            and not text.isupper() and text[start:end].istitle()

    out = []
    m = _AND_AFTER_RE.match(text, end)
    if m and name_like(m.group(2)):
        out.append(m.span(1))
    m = _AND_BEFORE_RE.search(text, max(0, start - 40), start)
    if m and name_like(m.group(2)):
        out.append(m.span(1))
    return out
