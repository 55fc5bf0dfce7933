"""Dates and numbers as ward notes write them: no year, a two-digit year
alone, a pager number.

`app.rules.find_hits` asks for a year before it calls a number a date (it
must stay precise on letters and on MEDDOCAN). Nursing notes mostly write
"2/14", "S/P CABG '92", "MI 4/97": these shapes are found here, and the
ratios that look the same are left alone by their context ("BP 110/60",
"CPAP 5/5", "PAIN 4/10", "1/2 NS", "STRENGTH 5/5").

>>> text = "LAST BM 2/14. CPAP 5/5. S/P CABG '92, MI 4/97. PAIN 4/10. AAA REPAIR IN 14'"
>>> [text[s:e] for s, e in find_short_dates(text)]
['2/14', '92', '4/97', '14']

Staff write their pager or beeper number, four or five digits, which
identifies them as a phone number does:

>>> text = "Pager #12345. PG 23456, beeper number 55037. BP 120 HR 80"
>>> [text[s:e] for s, e in find_pagers(text)]
['12345', '23456', '55037']

and a title before a name makes it one, whatever the name:

>>> text = "SEEN BY DR. PRICE, Dr Art Whitcombe AWARE. MRS. O'NEIL CALLED. DR AWARE. MS BACK"
>>> [text[s:e] for s, e in find_titled_names(text)]
['PRICE', 'Art Whitcombe', "O'NEIL"]
"""
from __future__ import annotations

import re
from itertools import chain

_SHORT_RE = re.compile(r"(?<![\w/.:+-])(\d{1,2})/(\d{1,2})(?![\w/%]|\.\d|\s*%)")
_APOSTROPHE_YEAR_RE = re.compile(r"(?<=[A-Za-z\s(,;:/-])['\u2019](\d{2})(?![\w'])")
_YEAR_APOSTROPHE_RE = re.compile(r"(?i)\b(?:in|since)\s+(\d{2})['\u2019](?![\w'])")
# Words before a number pair that make it a measurement, a setting or a score.
_RATIO_BEFORE = frozenset({
    "bp", "sbp", "dbp", "nbp", "abp", "cpap", "bipap", "ps", "peep", "pap", "pa", "pas", "cvp",
    "pcwp", "wedge", "map", "maps", "hr", "rr", "tv", "ie", "i:e", "ratio", "pain", "scale",
    "strength", "str", "abg", "vbg", "gas", "settings", "set", "vent", "ac", "simv", "imv",
    "mae", "grip", "grips", "bs", "k", "bun", "cr", "creat", "plt", "hct", "lytes",
    "murmur", "grade", "o2", "fio2", "sats", "sat",
    "c/o", "rated", "rates", "rating", "level", "levels", "dose", "doses", "ett", "psv", "spo2",
    "tvs", "vt", "mv", "vent", "pip", "plat",
    "lasix", "ns", "d5", "dextrose", "saline", "art", "aline", "pressures", "pressure"})
# Words after a number pair that make it a measurement or a fraction.
_RATIO_AFTER = frozenset({
    "ns", "nss", "strength", "pain", "peep", "ps", "cpap", "mmhg", "mg", "ml", "cc", "units",
    "u", "l", "lpm", "liters", "nc", "fm", "x", "bilat", "bilaterally", "mae", "grips",
    "tabs", "tab", "amp", "amps", "hrs", "hr", "min", "mins", "sec", "cm", "mm", "kg", "lb",
    "lbs", "beats", "bpm", "murmur", "sem", "dose", "of", "ratio", "pressure", "systolic"})
_WORD_RE = re.compile(r"[a-z0-9:/]+")


def _word_before(low: str, start: int) -> str:
    # in its sentence: "DECREASED O2. 10/1 WENT" is a date
    words = _WORD_RE.findall(re.split(r"[.;]\s|\n", low[max(0, start - 24):start])[-1])
    return words[-1] if words else ""


def _word_after(low: str, end: int) -> str:
    m = _WORD_RE.search(low, end, min(len(low), end + 16))
    return m.group() if m and low[end:m.start()].strip(" ") in ("", "-") else ""


def _short_date_at(text: str, low: str, m: re.Match) -> bool:
    a, b = int(m.group(1)), int(m.group(2))
    before, after = _word_before(low, m.start()), _word_after(low, m.end())
    if before in _RATIO_BEFORE or after in _RATIO_AFTER:
        return False
    if 1 <= a <= 12 and 32 <= b <= 99:
        return True                                  # month/two-digit year: "4/97"
    return 1 <= a <= 12 and 1 <= b <= 31 and a != b and (a, b) not in _FRACTIONS  # "2/14"


def find_short_dates(text: str) -> list[tuple[int, int]]:
    """Offsets of yearless or short-year dates in ``text``, in order."""
    low = text.lower()
    out: list[tuple[int, int]] = []
    for m in _SHORT_RE.finditer(text):
        if _short_date_at(text, low, m):
            out.append(m.span())
    return sorted(out + find_written_years(text))


def find_written_years(text: str) -> list[tuple[int, int]]:
    """Offsets of two-digit years written with an apostrophe: "CABG '92",
    "REPAIR IN 14'" (not feet after "in")."""
    out = [m.span(1) for m in _APOSTROPHE_YEAR_RE.finditer(text)]
    out += [m.span(1) for m in _YEAR_APOSTROPHE_RE.finditer(text)]
    return sorted(out)


_PAGER_RE = re.compile(
    r"\b(?:pager|beeper|pg|bpr|page)\b[\s:.]*(?:(?:number|num|no)\b[\s:.]*)?#?\s*(\d{4,5})(?!\w|[/.-]\d)",
    re.I)


def find_pagers(text: str) -> list[tuple[int, int]]:
    """Offsets of the digits of pager numbers ("Pager #12345", "PG 23456")."""
    return [m.span(1) for m in _PAGER_RE.finditer(text)]


# Fractions written in orders and doses far more often than these dates.
_FRACTIONS = frozenset({(1, 2), (1, 3), (2, 3), (1, 4), (3, 4), (1, 8)})


# ------------------------------------------------------------- care places

# Words that end a hospital's name: "UNION HOSPITAL", "HOLY CROSS MED CENTER".
_CARE_KINDS_RE = re.compile(
    r"\b(hospital|hosp|medical center|med center|med ctr|medical ctr|memorial|regional|rehab|"
    r"nursing home|health center|infirmary|campus|vamc)\b", re.I)
# Kinds that are also everyday clinical words ("CARDIAC REHAB", "REGIONAL
# ANESTHESIA"): their name needs a word that is not a common word.
_WEAK_KINDS = frozenset({"rehab", "memorial", "regional", "campus"})
# Words that cannot be part of a name before a kind ("THE HOSPITAL", "OUTSIDE HOSP").
_NOT_A_NAME = frozenset({
    "the", "a", "an", "to", "from", "at", "in", "into", "and", "or", "was", "is", "pt", "patient",
    "transferred", "transfered", "transfer", "taken", "went", "sent", "admitted", "per", "report",
    "with", "by", "for", "outside", "other", "another", "this", "that", "local", "previous",
    "referring", "same", "home", "her", "his", "their", "general", "community", "county", "city",
    "state", "day", "acute", "chronic", "rehab", "hospital", "hosp", "osh", "d/c", "dc", "tx",
    "arrived", "back", "while", "during", "since", "after", "before", "on", "s/p", "of"})
_CARE_WORD_RE = re.compile(r"[A-Za-z][A-Za-z.'-]*")
# A unit named after someone or somewhere, with its floor: "TRANSFER TO FELDMAN 2".
_NAMED_WARD_RE = re.compile(
    r"\b(?:transfer(?:red|ed)?|xfer|tx|c/o|called out|admitted|arrived|back|sent|moved|from|to|on)"
    r"(?:\s+(?:to|from|on))?\s+(?:the\s+)?([A-Za-z]{3,})\s+([1-9]|1[0-2])\b(?!\s*(?:mg|mcg|l\b|cc|ml|units|%|hrs|x\b))",
    re.I)
# The same written as one word after a move: "ADMITTED TO OSTRANDER7" (not
# "ON MSO4", "TO FIO2 40%").
_GLUED_WARD_RE = re.compile(
    r"\b(?:transfer(?:red|ed)?|xfer|admitted|sent|moved)[ \t]+(?:back[ \t]+)?to[ \t]+"
    r"(?:the[ \t]+)?([A-Za-z]{3,})(?:[1-9]|1[0-2])\b", re.I)
# Hospitals written as initials ending in GH / MC after "to", "from", "at", "by", "in".
_HOSPITAL_INITIALS_RE = re.compile(
    r"\b(?i:to|from|at|by|in)\s+(?i:the\s+)?([A-Z]{0,4}(?:GH|MC)|[a-z]{0,4}gh)\b")
# A general hospital's initials in capitals, wherever they stand ("-> BGH EW").
_GENERAL_HOSPITAL_RE = re.compile(r"\b([A-Z]{0,4}GH)\b")
# Unit types every hospital has (not identifiers; see app.synth.icu).
_UNIT_TYPES = frozenset({
    "micu", "sicu", "ccu", "csru", "icu", "nicu", "tsicu", "cvicu", "picu", "floor", "unit",
    "bed", "room", "rm", "step", "stepdown", "rehab", "pacu", "cath", "north", "south", "east",
    "west", "tower", "level", "pod", "ward", "wing", "building", "bldg", "floors",
    # drips titrated "to"/"from" a rate
    "neo", "levo", "levophed", "dopa", "dopamine", "dobutamine", "dobut", "propofol", "prop",
    "fentanyl", "versed", "ativan", "lasix", "insulin", "heparin", "nitro", "ntg", "amio",
    "dilt", "pressors", "vaso", "vasopressin", "epi", "milrinone", "nipride", "esmolol",
    "peep", "cpap", "fio2", "rate", "tidal", "psv", "simv", "imv", "bipap", "trach", "mask",
    "high", "low", "mid", "upper", "lower"})


def find_care_places(text: str) -> list[tuple[int, int]]:
    """Offsets of hospital names and named wards found by their context:
    a name before a kind of care place ("UNION MEMORIAL", "Sacred Heart
    hosp"), a unit named after someone with its floor after a transfer
    ("TRANSFER TO FELDMAN 2"), initials ending in GH/MC after "to/from/at"."""
    return sorted(_kind_places(text, _CARE_KINDS_RE) + _named_wards(text)
                  + _hospital_initials(text))


# The floor's kinds: those of `find_care_places` and the places that care
# for someone outside a hospital ("ST. LUKE NURSING AGENCY", "assisted living").
_FLOOR_KINDS_RE = re.compile(
    r"\b(hospital|hosp|medical center|med center|med ctr|medical ctr|memorial|regional|rehab|"
    r"nursing home|nursing agency|nursing facility|assisted living|health center|heart center|"
    r"infirmary|campus|vamc)\b", re.I)
# Kinds that are part of a hospital's name ("UNION MEMORIAL"); the others
# only say what the named place is.
_NAMING_KINDS = frozenset({"memorial", "regional", "vamc"})
# Words before a place that say it is one: "FROM", "TO", "AT", "IN", "BY".
_PLACE_CUE_RE = re.compile(r"(?i)(?:\b(?:from|to|at|in|by|on)|@)[ \t]+$")


def find_sure_care_places(text: str) -> list[tuple[int, int]]:
    """The care places of `find_care_places` that the floor can take
    whatever a model says: a name of common words before a kind only right
    after "from/to/at/in/by" ("FROM GREEN VALLEY HOSPITAL", not "the basic
    hospital", "cont rehab", "HAD PROLONGED HOSPITAL"), and no initials
    that are a word ("TO HIGH 80S", "to cough")."""
    from app.rules.dictionaries import is_common_word

    out = _named_wards(text)
    for a, b in _kind_places(text, _FLOOR_KINDS_RE, sure=True):
        kind = list(_FLOOR_KINDS_RE.finditer(text, a, b))[-1]
        name = _CARE_WORD_RE.findall(text, a, kind.start())
        # common words, or words written in lower case ("prev rehab"), need the cue
        if (all(is_common_word(w.strip(".")) for w in name) or text[a:kind.start()].islower()) \
                and not _PLACE_CUE_RE.search(text, max(0, a - 12), a):
            continue
        # "UNION MEMORIAL" is a name; in "UNION HOSPITAL" only "UNION" identifies
        out.append((a, b) if kind.group(1).lower() in _NAMING_KINDS
                   else (a, a + len(text[a:kind.start()].rstrip(" .-"))))
    return sorted(out + _hospital_initials(text))


def _hospital_initials(text: str) -> list[tuple[int, int]]:
    """Hospitals written as initials after "to/from/at/by/in" ("TO BGH"), no word
    ("TO HIGH 80S", "to cough"), and initials in capitals ending in GH
    wherever they stand ("FOUND DOWN -> BGH EW": on the PhysioNet training
    notes all 32 such words are annotated places)."""
    from app.rules.dictionaries import is_common_word

    found = chain(_HOSPITAL_INITIALS_RE.finditer(text), _GENERAL_HOSPITAL_RE.finditer(text))
    return sorted({m.span(1) for m in found
                   if not is_common_word(m.group(1)) and m.group(1) != "HGH"})  # growth hormone


def _kind_places(text: str, kinds: re.Pattern, *, sure: bool = False) -> list[tuple[int, int]]:
    """A name of up to four words right before a kind of care place, in
    its sentence: a full stop joins only an abbreviation or an initial to
    the name ("ST. AGNES HOSPITAL", not "as needed. Cont rehab"). With
    ``sure`` (the floor's) a word of grammar ends the name too ("to see if
    she needs rehab"), and a weak kind after common words is kept for the
    caller to judge by the word before."""
    from app.rules.dictionaries import is_common_word
    from app.rules.vetoes import _FUNCTION_WORDS

    out: list[tuple[int, int]] = []
    for m in kinds.finditer(text):
        words = list(_CARE_WORD_RE.finditer(text, max(0, m.start() - 48), m.start()))
        name_start = None
        k = len(words) - 1
        taken = 0
        while k >= 0 and taken < 4:
            w = words[k]
            gap = text[w.end():(words[k + 1].start() if k + 1 < len(words) else m.start())]
            if gap.strip(" ") not in ("", ".") or "\n" in gap:
                break
            if re.search(r"[A-Za-z]{2}\.", w.group()[:-1]):
                break                                  # "COMFORT..BEGIN REHAB"
            if "." in gap + w.group()[-1:] and len(w.group().rstrip(".")) > 1 \
                    and w.group().lower().rstrip(".") not in ("st", "mt", "ft"):
                break                                  # "as needed. Cont rehab"
            low = w.group().lower().strip(".")
            if low in _NOT_A_NAME and not (low == "of" and name_start is not None and k > 0) \
                    or sure and low != "of" and low in _FUNCTION_WORDS:
                break
            name_start = w.start()
            taken += 1
            k -= 1
        if name_start is None or text[name_start:m.start()].strip().lower() in ("of", "st", "st."):
            continue
        name = _CARE_WORD_RE.findall(text, name_start, m.start())
        if m.group(1).lower() in _WEAK_KINDS and all(is_common_word(w) for w in name) \
                and not sure:
            continue
        out.append((name_start, m.end()))
    return out


def _named_wards(text: str) -> list[tuple[int, int]]:
    """Units named after someone, with their floor: "TRANSFER TO FELDMAN 2",
    "ADMITTED TO OSTRANDER7", and the same word elsewhere in the note."""
    from app.rules.dictionaries import is_common_word

    found = list(_NAMED_WARD_RE.finditer(text)) + list(_GLUED_WARD_RE.finditer(text))
    out = {m.span(1) for m in found
           if m.group(1).lower() not in _UNIT_TYPES and not is_common_word(m.group(1))}
    # The ward, once named so, wherever the note writes it again: "F-MICU/
    # FELDMAN/CCU", "FELDMAN3 DEVELOPED" (on the PhysioNet training notes 3
    # such words, all annotated).
    for word in {text[a:b].lower() for a, b in out}:
        out.update(m.span() for m in re.finditer(
            rf"(?i)(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", text))
    return sorted(out)


# A title, then an optional initial, then one or two name words.
_NAME_WORD = r"[A-Za-z][A-Za-z'-]*[A-Za-z]"
_TITLED_RE = re.compile(
    r"\b(?:dr|drs|doctor|mr|mrs)\b\.?'?[ \t]*(?:([A-Z])\.[ \t]*)?"
    rf"({_NAME_WORD})(?:[ \t]+({_NAME_WORD}))?", re.I)
_TITLED_MANY_RE = re.compile(
    rf"\b(?:drs|dr's|doctors)(?:\.|'|\b)[ \t]+"
    rf"({_NAME_WORD}(?:[ \t]*(?:,|and|&)[ \t]*{_NAME_WORD})+)", re.I)
_NAME_WORD_RE = re.compile(_NAME_WORD)
_MS_RE = re.compile(rf"\b(?:ms|miss)\b\.?[ \t]*({_NAME_WORD})", re.I)
# Words after a title that are no name ("DR AWARE", "MR AS ABOVE"). "MS" is
# no title here: in ward notes it is mental status, morphine or the valve.
# Words after a name that say what the person did, never their surname
# ("Dr. Jo Will see", "Dr. Ann And team").
_NOT_AFTER_NAME = frozenset({
    "and", "or", "will", "was", "is", "has", "had", "here", "said", "says", "states", "stated",
    "visited", "informed", "updated", "spoke", "came", "to", "in", "at", "of", "on", "by",
    "with", "from", "for", "re", "regarding", "about", "the", "who", "team", "service"})
_AFTER_TITLE = frozenset({"as", "rt", "con't", "contin", "to", "at", "in", "on", "and", "aware",
                          "notified", "made", "called", "paged", "here", "called-pt"})


def find_titled_names(text: str) -> list[tuple[int, int]]:
    """Offsets of the names written after a title ("DR. PRICE", "Dr Art
    White", "MRS. O'NEIL"): a word that is not a common one unless it is a
    listed name, and the next one when it is no common word at all ("MRS
    SMITH FAIR" stops at SMITH), and every name after a plural title ("DRS
    FERULLO AND SAEED"). On the PhysioNet training notes (not our dev
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
    # Several doctors: "DRS FERULLO AND SAEED", "DR'S CAMARDA AND CLIFFORD".
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


# A clinician's credential after their name: "J. Yi, MD", "Stord-Painter MD",
# "s. roberto rrt", "B. KARGAS PA AWARE". "PA" is also the pulmonary artery
# ("RIJ PA LINE", "PA'S 30'S"): as a credential it must end the phrase.
_CREDENTIALED_RE = re.compile(
    rf"\b(?:([A-Z])\.[ \t]*)?({_NAME_WORD})(?:[ \t]+({_NAME_WORD}))?,?[ \t]+"
    r"(?:(?:md|rn|np|rrt|crt|crna|pa-c|lpn|lcsw|msw)\b(?![-/])"
    r"|pa\b(?=[ \t]*(?:[,.;:)\n]|$|aware|notified|paged|informed|called|updated|made|here|in\b|to\b)))",
    re.I)
# A clinician's role before the name, then a word saying they were told:
# "NP JEN AWARE", "RN ODALYS NOTIFIED".
_ROLE_AWARE_RE = re.compile(
    rf"\b(?:md|rn|np|pa|rrt|dr)\.?[ \t]+({_NAME_WORD})[ \t]+"
    r"(?:aware|notified|paged|informed|called|updated|made\b)", re.I)
# A listed name, then a word saying they were told: "INES NOTIFIED", "Z. OKAFOR AWARE".
_TOLD_RE = re.compile(rf"(?<![A-Za-z.'-])({_NAME_WORD})[ \t]+(?:made[ \t]+)?"
                      r"(?:aware|notified|paged|informed)\b", re.I)
# The same with a first name before the surname: "ines vaskova aware".
_TOLD_FULL_RE = re.compile(rf"(?<![A-Za-z.'-])({_NAME_WORD})[ \t]+({_NAME_WORD})[ \t]+"
                           r"(?:made[ \t]+)?(?:aware|notified|paged|informed)\b", re.I)
# A role after a word that says someone acted or was told, then a listed
# name: "PER NP Hoffman", "BY HO Gutierrez", "per md Okafor".
_ROLE_NAME_RE = re.compile(
    rf"\b(?:per|by|with|to|called|paged|notified)[ \t]+"
    rf"(?:md|np|rn|pa|ho|resident|fellow|attending)[ \t]+({_NAME_WORD})", re.I)
# Words before a credential that say which clinician, not who: "OSTOMY RN".
_ROLE_WORDS = frozenset({
    "ostomy", "wound", "charge", "float", "resource", "primary", "covering", "night", "unit",
    "floor", "team", "resident", "attending", "fellow", "staff", "agency", "hospice", "psych",
    "renal", "cardiology", "cards", "neuro", "ortho", "surgical", "surgery", "vascular",
    "transplant", "pulmonary", "pulm", "oncology", "onc", "rehab", "admitting", "consulting",
    "infusion", "dialysis", "hd", "iv", "picc", "nurse", "nursing", "case", "pain", "ent",
    "stoma", "enterostomal"})


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
    MD", "Stord-Painter MD", "roberto rrt", "B. KARGAS PA AWARE") or between
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
_INITIALED_RE = re.compile(rf"(?:(?<=[ \t(])|^)([A-Za-z])\.[ \t]+({_NAME_WORD})(?![\w-])", re.M)


def find_initialed_names(text: str) -> list[tuple[int, int]]:
    """Offsets of the names written as an initial and a surname that is no
    common word ("p. renard", "Z. OKAFOR"), the initial's stop included
    (`app.lists.floor` leaves it out). On the PhysioNet training notes 19
    hits, all annotated names."""
    from app.rules import dictionaries as D
    from app.rules.vetoes import _FUNCTION_WORDS

    out = []
    for m in _INITIALED_RE.finditer(text):
        letter, word = m.group(1), m.group(2)
        if not text[text.rfind("\n", 0, m.start()) + 1:m.start()].strip() \
                or letter in "RLrl" and word.islower() \
                or any(len(part) < 2 for part in word.split("-")):
            continue
        if len(word) > 2 and not D.is_common_word(word) \
                and word.lower() not in _FUNCTION_WORDS | _AFTER_TITLE | _ROLE_WORDS:
            out.append(m.span())
    return out


_HOME_RE = re.compile(
    r"\b(?:lives?|living|resides?|residing|home|moved|house)[ \t]+(?:is[ \t]+)?(?:in|at|to)"
    r"[ \t]+([A-Za-z][A-Za-z'-]+(?:[ \t]+[A-Za-z][A-Za-z'-]+)?)", re.I)


def find_home_places(text: str) -> list[tuple[int, int]]:
    """Offsets of the listed places where someone lives ("lives in
    catonsville", "both live in hampton"): the one or two words after the
    phrase that the shipped place list holds and that are no common word."""
    from app.rules import dictionaries as D

    out = []
    for m in _HOME_RE.finditer(text):
        words = m.group(1).split()
        two = " ".join(words).lower()
        if two in D.US_STATE_NAMES or words[0].lower() in D.US_STATE_NAMES:
            continue
        if len(words) == 2 and D.is_place(two):
            out.append((m.start(1), m.end(1)))
        elif D.is_place(words[0].lower()) and not D.is_common_word(words[0].lower()):
            out.append((m.start(1), m.start(1) + len(words[0])))
    return out


# ------------------------------------------------------------- dates in words

_MONTH_NAMES = (r"(?:january|february|march|april|may|june|july|august|september|october|"
                r"november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)")
_DAY_OF_MONTH = r"(?:3[01]|[12]\d|0?[1-9])"
# A month and a day or a year, either way round: "may 16", "MARCH OF 1993",
# "20th Oct, 1989", "nov. 2016". "MAY" needs a day after it ("MAY 2 DAYS" is no date).
_MONTH_DATE_RE = re.compile(
    rf"(?i)\b(?:(?:\d{{1,2}}(?:st|nd|rd|th)?[ \t]+(?:of[ \t]+)?)?{_MONTH_NAMES}\b\.?"
    rf"(?:[ \t]+(?:of[ \t]+)?(?:{_DAY_OF_MONTH}(?:st|nd|rd|th)?\b(?!\s*(?:days?|hrs?|hours?|weeks?|wks?|mg|%|x\b))"
    rf"(?:,?[ \t]+(?:\d{{4}}|'?\d{{2}})\b)?|(?:19|20)\d\d\b))"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?[ \t]+(?:of[ \t]+)?{_MONTH_NAMES}\b\.?(?:,?[ \t]+(?:19|20)?\d\d\b)?)")


def find_month_dates(text: str) -> list[tuple[int, int]]:
    """Offsets of dates written with a month's name and a day or a year
    ("may 16", "MARCH OF 1993", "20th Oct, 1989", "July 1")."""
    return [m.span() for m in _MONTH_DATE_RE.finditer(text)]


# A condition or a procedure of a past history, before or after its year.
_HISTORY_ITEMS = (
    r"(?:nqwmi|nstemi|stemi|imi|ami|mi|cabg(?:x\d)?|ptca|pci|stents?|cath|cva|tia|avr|mvr|aaa|"
    r"turp|chf|dvt|pe|ca|cancer|ccy|chole|appy|lumpectomy|mastectomy|colectomy|hysterectomy|"
    r"tah|bka|aka|cea|ppm|aicd|icd|pacemaker|ablation|angioplasty|thyroidectomy|nephrectomy|"
    r"craniotomy|laminectomy|thr|tkr|repair|fx|surgery|resection|transplant|bypass)")
# The heading of a past history: the years in its items are dates.
_HISTORY_CUE_RE = re.compile(r"(?i)\b(?:pmh|pmhx|psh|hx|h/o|past\s+medical|history)\b")
_HISTORY_YEAR_RE = re.compile(
    rf"(?i)\b{_HISTORY_ITEMS}[ \t]+(?:in[ \t]+)?(\d{{2}})(?=[ \t]*(?:[.,;)]|and\b|&|$))"
    rf"|(?:^|(?<=[,;:.])|(?<=\band)|(?<=&))[ \t]*(\d{{2}})[ \t]+{_HISTORY_ITEMS}\b",
    re.M)

_AND_YEAR_RE = re.compile(r"(?i)[ \t]*(?:and|&)[ \t]+(\d{2})\b(?![\w/%])")


def find_history_years(text: str) -> list[tuple[int, int]]:
    """Offsets of two-digit years in the items of a past history ("PMH: CAD:
    NQWMI 13.", "PMHX CVA IN 94 AND 00", "HX: NIDDM, 09 PTCA"): a year right
    after a condition or a procedure, or opening an item before one, in the
    line of a history heading."""
    out = []
    for m in _HISTORY_YEAR_RE.finditer(text):
        g = 1 if m.group(1) else 2
        line = text[text.rfind("\n", 0, m.start()) + 1:m.start(g)]
        if _HISTORY_CUE_RE.search(line):
            out.append(m.span(g))
            # "CVA IN 94 AND 00": the year after "and" belongs to the same item
            more = _AND_YEAR_RE.match(text, m.end(g))
            if more:
                out.append(more.span(1))
    return sorted(set(out))


# ------------------------------------------------------- phones and old ages

# Ten digits grouped as a US phone number, whatever joins the groups:
# "830-650-2352", "212- 476- 8356", "(410) 555 0123".
_PHONE_RE = re.compile(
    r"(?<![\d/.-])(?:\(\d{3}\)|\d{3})[ \t]*[-.]?[ \t]*\d{3}[ \t]*[-.]?[ \t]*\d{4}(?![\d/]|[.-]\d)")
# An age over 89 (an identifier under HIPAA; younger ages are not).
_OLD_AGE_RE = re.compile(
    r"(?i)(?<![\d./-])(9\d|1[01]\d)(?=[ \t]*-?[ \t]*(?:years?|yrs?|y)[ \t]*-?[ \t]*old\b"
    r"|[ \t]*(?:yo|y\.o\.?|y/o)(?!\w))")


def find_phones(text: str) -> list[tuple[int, int]]:
    """Offsets of ten-digit phone numbers ("830-650-2352", "212- 476- 8356")."""
    return [m.span() for m in _PHONE_RE.finditer(text)]


def find_old_ages(text: str) -> list[tuple[int, int]]:
    """Offsets of ages over 89 ("98 YO", "92 year old")."""
    return [m.span(1) for m in _OLD_AGE_RE.finditer(text)]


# ------------------------------------------------------------- relatives

# Relatives and the people a note's "social" line names: "SON, MARK,
# CALLED", "his friend Tomasz Wierzbicki", "dtr-in-law Greta", "social: ned visited".
_RELATION_RE = re.compile(
    r"\b(?:sons?|daughters?|dtrs?|wife|husband|friend|girlfriend|boyfriend|fiancee?|partner|"
    r"brothers?|sisters?|niece|nephew|mother|father|mom|dad|aunt|uncle|cousin|grandson|"
    r"grand[ -]?daughter|grandaughter|neighbou?r|social|lawyer|attorney|guardian|spokesperson)"
    r"(?:[ -]in[ -]law)?(?:'s)?"
    r"(?:[ \t]*[,:=(-][ \t]*|[ \t]+(?:is[ \t]+|named[ \t]+)?)"
    rf"({_NAME_WORD})(?:[ \t]+({_NAME_WORD}))?", re.I)
# A name, then whose relative it is: "Ines Okwu (daughter)", "NANCY ROE, HIS NIECE".
_NAME_THEN_RELATION_RE = re.compile(
    rf"\b({_NAME_WORD})(?:[ \t]+({_NAME_WORD}))?[ \t]*"
    r"(?:\([ \t]*(?:pt'?s[ \t]+|his[ \t]+|her[ \t]+)?|(?:,[ \t]*|[ \t]+)(?:pt'?s|his|her)[ \t]+)"
    r"(?:sons?|daughters?|dtr|wife|husband|friend|brother|sister|niece|neice|nephew|mother|"
    r"father|mom|dad|aunt|uncle|cousin|grandson|granddaughter)\b", re.I)
# Relatives, roles and words of grammar after a relation: never its name
# ("SON AND DAUGHTER", "SOCIAL: SON", "WIFE WILL CALL", "SISTER SAID").
_NOT_A_RELATIVE = frozenset({
    "son", "sons", "daughter", "daughters", "dtr", "dtrs", "wife", "husband", "friend", "friends",
    "brother", "brothers", "sister", "sisters", "niece", "nephew", "mother", "father", "mom",
    "dad", "aunt", "uncle", "cousin", "grandson", "granddaughter", "grandaughter", "family",
    "children", "child", "kids", "grand", "step", "close", "in", "law", "dr", "drs", "mr", "mrs",
    "ms", "miss", "pt", "pt's", "patient", "case", "will", "may", "can", "would", "could",
    "should", "must", "did", "does", "said", "says", "states", "stated", "as", "work", "worker",
    "services", "service", "hx", "history", "married", "widowed", "single", "divorced", "lives",
    "none", "unable", "aware"})
# What follows a relative's name that is also a common word ("son mark
# called", "wife, iris, left", "son ned 555-..."): a stop, a phone number, a
# word saying what they did.
_AFTER_RELATIVE_RE = re.compile(
    r"[ \t]*(?:[,;)(.:]|-|\d|$|\n|(?:called|calls|visited|visiting|was|is|in|at|here|updated|"
    r"consented|left|phoned|present|came|arrived|of|aware|notified|spoke|states|stated|said|"
    r"says|wants|will|would|has|had|and)\b)", re.I)


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
        low = word.lower()
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
            # "DAUGHTER-KRISSY" is found from "DAUGHTER"; "Rob-who" is Rob;
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
_CONTACT_RE = re.compile(
    rf"\b({_NAME_WORD})(?:[ \t]+({_NAME_WORD}))?[ \t]*[:,(-]?[ \t]*"
    r"(?:(?:cell|home|work|hm|wk|ph|phone|tel|mobile)\b[ \t]*[#:.]*|#)?[ \t]*"
    r"\(?\d{3}\)?[ \t.-]*\d{3}[ \t.-]*\d{4}(?!\d)", re.I)


def find_contact_names(text: str) -> list[tuple[int, int]]:
    """Offsets of the uncommon words (one or two) right before a phone
    number ("Ines Okwu cell# 410-555-0134", "son ,dave, (410) 555 0123"):
    whom to call. Not a state ("Sister in Ohio 415-..."). On the PhysioNet
    training notes 6 hits, all annotated."""
    from app.rules import dictionaries as D
    from app.rules.vetoes import _FUNCTION_WORDS

    out = []
    for m in _CONTACT_RE.finditer(text):
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
_INITIAL_BEFORE_RE = re.compile(
    r"(?<![A-Za-z0-9'\u2019])(?:([A-Za-z])\.|([B-HJ-Z]))[ \t]*-?[ \t]*$")


def initial_before(text: str, start: int) -> int | None:
    """Where the initials right before a name starting at ``start`` begin
    ("J SMITH", "K. T. OYELARAN": the offset of "J", "K"), or None. On the
    PhysioNet training notes every one of the 23 lone letters before an
    annotated name is part of a name."""
    found = None
    while (m := _INITIAL_BEFORE_RE.search(text, max(0, start - 6), start)) is not None:
        found = start = m.start()
    return found


# ------------------------------------------------------------- places by their cue

# A place after a word that says it is one: "IN TUCSON", "from Rome",
# "Raj of Tucson"; a saint's name after a move: "TO ST. AGNES".
_CUED_PLACE_RE = re.compile(
    rf"\b(?i:in|to|from|of|near)[ \t]+({_NAME_WORD})(?:[ \t]+({_NAME_WORD}))?")
_UNIVERSITY_RE = re.compile(rf"\b(?i:u|univ|university)\.?[ \t]+(?:(?i:of)[ \t]+)?({_NAME_WORD})")
_BEFORE_STATE_RE = re.compile(
    rf"\b({_NAME_WORD}),?[ \t]+(?=([A-Za-z]+(?:[ \t]+[A-Za-z]+)?)(?![A-Za-z]))")
_SAINT_RE = re.compile(
    rf"\b(?i:to|from|at|in)[ \t]+(?i:the[ \t]+)?((?i:st|saint)\.?[ \t]+({_NAME_WORD}))")


def find_cued_places(text: str) -> list[tuple[int, int]]:
    """Offsets of the places written after "in/to/from/of/near" that the
    shipped place list holds and that are no common word nor a state ("in
    Tucson", "Raj of Tucson"), of saints' names after a move ("TO ST.
    AGNES", not "NSR TO ST HR 90") and of a university with a listed
    place ("U Oregon", "University of Oregon"). On the PhysioNet training
    notes (not our dev patients): places 24 hits on annotated places, 4
    not; saints 5 and 0; universities 8 and 0."""
    from app.rules import dictionaries as D
    from app.rules.vetoes import eponym

    out = []
    for m in _CUED_PLACE_RE.finditer(text):
        if eponym(text, m.end(1)):
            continue                                    # "IN DOUGLAS POUCH"
        first, second = m.group(1), m.group(2)
        if second and D.is_place(f"{first} {second}") \
                and f"{first} {second}".lower() not in D.US_STATE_NAMES \
                and not (D.is_common_word(first) and D.is_common_word(second)):
            out.append((m.start(1), m.end(2)))
        elif D.is_place(first) and not D.is_common_word(first) \
                and first.lower() not in D.US_STATE_NAMES:
            out.append(m.span(1))
    for m in _SAINT_RE.finditer(text):
        name = m.group(2)
        if D.is_name(name) and not D.is_common_word(name):
            out.append(m.span(1))
    # "U Oregon", "university of Oregon": a university's hospital
    out += [m.span() for m in _UNIVERSITY_RE.finditer(text) if D.is_place(m.group(1))]
    # a town before its state: "tucson arizona's", "Tucson, Arizona" (1 on training, a place)
    for m in _BEFORE_STATE_RE.finditer(text):
        state = m.group(2).lower()
        if (state in D.US_STATE_NAMES or state.split()[0] in D.US_STATE_NAMES) \
                and D.is_place(m.group(1)) \
                and not D.is_common_word(m.group(1)) and m.group(1).lower() not in D.US_STATE_NAMES:
            out.append(m.span(1))
    return sorted(set(out))


# A name joined to another by "and": "Drs Okafor and Lind", "d. mo and j. o'hara".
_AND_AFTER_RE = re.compile(rf"[ \t]*(?:and|&)[ \t]+((?:[A-Za-z]\.[ \t]*)?({_NAME_WORD}))", re.I)
_AND_BEFORE_RE = re.compile(
    rf"(?<![A-Za-z'])((?:[A-Za-z]\.[ \t]*)?({_NAME_WORD}))[ \t]+(?:and|&)[ \t]*$", re.I)


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
                or low in ("dr", "drs", "mr", "mrs", "ms"):
            return False
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


# ------------------------------------------------------------- dates in numbers

# A month, a day and a year joined by one sign: "9/2/92", "10-16-2019",
# "11.21.93"; or two yearless dates as a range: "10/15-10/16".
_NUMERIC_DATE_RE = re.compile(
    r"(?:(?<![\w/.:+-])|(?<=[A-Za-z]-))(\d{1,2})([/.-])(\d{1,2})\2(\d{2}|(?:19|20)\d\d)"
    r"(?![\w/%]|[.-]\d)")
_DATE_RANGE_RE = re.compile(
    r"(?<![\w/.:+-])(\d{1,2})/(\d{1,2})[ \t]*-[ \t]*(\d{1,2})/(\d{1,2})(?![\w/%]|[.-]\d)")


def find_numeric_dates(text: str) -> list[tuple[int, int]]:
    """Offsets of dates written in numbers with their year ("9/2/92",
    "10-16-2019") and of ranges of two yearless dates ("10/15-10/16", not
    the fractions "1/3-1/2"). On the PhysioNet training notes (not our dev
    patients) all its 31 hits are annotated dates."""
    out = [m.span() for m in _NUMERIC_DATE_RE.finditer(text)
           if 1 <= int(m.group(1)) <= 12 and 1 <= int(m.group(3)) <= 31]
    for m in _DATE_RANGE_RE.finditer(text):
        a, b, c, d = (int(m.group(i)) for i in range(1, 5))
        if 1 <= a <= 12 and 1 <= c <= 12 and 1 <= b <= 31 and 1 <= d <= 31 \
                and (a, b) not in _FRACTIONS and (c, d) not in _FRACTIONS:
            out.append(m.span())
    return sorted(out)


def find_yearless_dates(text: str) -> list[tuple[int, int]]:
    """Offsets of the yearless dates in numbers ("ON 2/14", "LAST BM 8/14", "IN
    USOH UNTIL 8/23") that a calendar holds and that are no setting, score
    or ratio by their context (`find_short_dates`,
    `app.rules.vetoes.implausible_date`: "ON 5/5, 40%", "ON 1/4 NS",
    "trialed on 5/5", "PAIN 4/10" are not). On the PhysioNet training notes
    214 hits on annotated dates, 4 not (55 and 0 of them after "on/since/
    until", the floor's first version)."""
    from app.rules.vetoes import implausible_date

    return [(a, b) for a, b in find_short_dates(text)
            if "/" in text[a:b] and not implausible_date(text, a, b)]


# A capitalised word after a move, in a note written in mixed case: "went to
# Lakeview on 3/6", "transfer from Glen Oaks" ("Transfer to Medical Floor" is a unit).
_MOVED_TO_RE = re.compile(
    r"(?i:\b(?:transfer(?:red|ed)?|xfer|went|go|going|taken|return(?:ed)?|discharged?|sent|"
    r"admitted|moved|brought)[ \t]+(?:back[ \t]+)?(?:to|from)[ \t]+)"
    r"([A-Z][a-z]{2,})(?:[ \t]+([A-Z][a-z]{2,}))?\b")


def find_moved_to_places(text: str) -> list[tuple[int, int]]:
    """Offsets of the capitalised words (one or two) after "transferred
    to", "went to", "return to", ... in mixed-case writing, that are no
    unit of a hospital ("Medical Floor"), no title and no kind of care
    place (which `find_sure_care_places` finds with its name). On the
    PhysioNet training notes (not our dev patients) 27 of the 28 such
    words are annotated places."""
    out = []
    for m in _MOVED_TO_RE.finditer(text):
        first, second = m.group(1), m.group(2)
        words = [first.lower()] + ([second.lower()] if second else [])
        if words[0] in _UNIT_TYPES | {"dr", "the", "pt", "home", "her", "his", "their"} \
                or len(words) > 1 and words[1] in _UNIT_TYPES:
            continue
        end = m.end(2) if second and not _CARE_KINDS_RE.fullmatch(second) \
            and second.lower() not in _NOT_A_NAME else m.end(1)
        if _CARE_KINDS_RE.fullmatch(first):
            continue
        out.append((m.start(1), end))
    return out
