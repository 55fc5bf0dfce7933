"""Cue words: the keyword written just before an identifier.

A cue is searched for on the same line, ending right before the hit with
only punctuation, spaces and a few filler words ("No.", "number", "is",
"de", ...) in between. It is returned in a normalised form ("mrn", "dob",
"tel", "fecha de nacimiento", ...), so that "Tel.:", "Tfno." and "Phone
number" all give the same key to the mapping a rules model learns.

Besides true keywords, a few short context words are cues too ("de",
"hace", "a los", "en"): "varón de 49 años" is an age but "hace 5 años" is a
duration, and only a cue lets a learned mapping tell them apart.
"""
from __future__ import annotations

import re

# (normalised cue, surface pattern). Longer phrases first where one surface
# is a prefix of another, so the alternation prefers the longer one.
CUES: tuple[tuple[str, str], ...] = (
    ("fecha de nacimiento", r"fecha\s+de\s+nacimiento|f(?:echa|\.)?\s*(?:de\s+)?nac(?:imiento|\.)?"
                            r"|nacid[oa](?:\s+el)?"),
    ("dob", r"date\s+of\s+birth|birth\s*date|d\.\s?o\.\s?b\.?|dob|born(?:\s+on)?"),
    ("fecha de ingreso", r"fecha\s+de\s+ingreso|ingres[oó](?:\s+el)?"),
    ("fecha de alta", r"fecha\s+de\s+alta"),
    ("admission", r"(?:date\s+of\s+)?admission(?:\s+date)?|admitted(?:\s+on)?"),
    ("discharge", r"(?:date\s+of\s+)?discharge(?:\s+date)?|discharged(?:\s+on)?"),
    ("date", r"dated?|fecha"),
    ("fax", r"tele?fax|fax"),
    ("mobile", r"mobile(?:\s+phone)?|mob\.?|cell(?:\s+phone)?|m[óo]vil"),
    ("tel", r"tel[eé]phone|tel[eé]fono|telf\.?|tel\.?|phone|ph\.?|tlfn?o?\.?|tfno\.?"
            r"|contact\s+(?:number|no\.?)"),
    ("pager", r"pager|beeper|busca"),
    ("mrn", r"mrn|medical\s+record|hospital\s+(?:number|no\.?)|hosp\.?\s+no\.?"),
    ("ur", r"urn|umrn|ur"),
    ("fin", r"fin"),
    ("nhc", r"nhc|n\.\s?h\.\s?c\.?|historia\s+cl[ií]nica"),
    ("nass", r"nass|nuss|n[uú]mero\s+de\s+afiliaci[oó]n|seguridad\s+social"),
    ("cip", r"cipa?|tarjeta\s+sanitaria"),
    ("medicare", r"medicare(?:\s+card)?"),
    ("ssn", r"ssn|social\s+security"),
    ("dni", r"dni|nif|nie|documento\s+nacional\s+de\s+identidad"),
    ("passport", r"passport|pasaporte"),
    ("episode", r"episodio|episode|encounter|account|acct\.?"),
    ("col", r"n[º°o]\.?\s*col(?:egiado)?\.?|colegiado|col\."),
    ("provider", r"provider|prescriber|ahpra|npi"),
    ("id", r"patient\s+id|identifier|id"),
    ("email", r"e-?mail|correo(?:\s+electr[oó]nico)?"),
    ("web", r"website|web|url|p[aá]gina\s+web"),
    ("ip", r"ip(?:\s+address)?|direcci[oó]n\s+ip"),
    ("cp", r"c[óo]digo\s+postal|c\.\s?p\.?|cp|post\s*code|zip(?:\s*code)?"),
    ("age", r"aged|age|edad"),
    ("address", r"address|domicilio|direcci[oó]n|localidad|provincia"),
    # Places named after dates ("Hospital 12 de Octubre", "Avda. 9 de Julio").
    ("hospital", r"hospital(?:\s+universitario)?|cl[ií]nica"),
    ("street", r"calle|avda\.?|avenida|av\.|plaza|pza\.?|paseo|ronda|carretera|ctra\.?"
               r"|street|road|rd\.|avenue|ave\."),
    ("a los", r"a\s+los"),
    ("hace", r"desde\s+hace|hace"),
    ("durante", r"durante|for"),
    ("en", r"en(?:\s+el)?(?:\s+año)?|in|since|desde"),
    ("de", r"de"),
    # Generic "No." last; a bare lower-case "no" is the word, not a cue
    # (see `is_bare_no`).
    ("no", r"no\.?|n[º°]\.?|number|n[uú]mero"),
)

# Cues after which a digit run is an identifier even without a checksum.
ID_CUES: frozenset[str] = frozenset(
    {"mrn", "ur", "fin", "nhc", "nass", "cip", "medicare", "ssn", "dni", "passport",
     "episode", "col", "provider", "pager", "id", "no"})
PHONE_CUES: frozenset[str] = frozenset({"tel", "mobile", "fax"})

_ALTERNATION = "|".join(f"(?P<c{i}>{pattern})" for i, (_, pattern) in enumerate(CUES))
_CUE_RE = re.compile(_ALTERNATION, re.IGNORECASE)
# The same for lower-cased text: plain literals are much faster to reject.
_CUE_RE_LOWER = re.compile(_ALTERNATION)

# Words that may stand between a cue and the hit ("MRN No.: ", "DOB is ").
FILLERS: frozenset[str] = frozenset(
    "no nº n° num number número numero is was on of el la del de at".split())
_FILLER = "|".join(sorted(FILLERS, key=len, reverse=True))
# The same gap as a regex, for patterns that include their cue.
GAP = rf"(?:[^\w\n]|(?<!\w)(?:{_FILLER})(?!\w))*"

_WORD_RE = re.compile(r"\w+")

# How far back (characters) a cue may start; how many words a cue may have.
CUE_WINDOW = 48
_MAX_CUE_WORDS = 4
_MAX_FILLERS = 3


def is_bare_no(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` is the plain word "no" (lower case, no "." or "º")."""
    return text[start:end] == "no" and text[end:end + 1] != "."


def cue_before(text: str, start: int, lower: str | None = None) -> str | None:
    """Return the normalised cue ending just before ``start`` on its line, or None.

    ``lower``, if given, is ``text`` lower-cased with the same length (faster).

    Only punctuation, spaces and up to three filler words may separate the
    cue from ``start``. With fillers, the cue before them wins ("Medicare No.
    2123..." gives "medicare"); a filler is itself a cue only when nothing
    precedes it ("varón de 49 años" gives "de").
    """
    line_start = text.rfind("\n", 0, start) + 1
    words = [m.span() for m in _WORD_RE.finditer(text, max(line_start, start - CUE_WINDOW), start)]
    if not words:
        return None
    # Candidate cue ends: after the last word, then before each trailing filler.
    last = len(words) - 1
    ends = [last]
    while (len(ends) <= _MAX_FILLERS and last >= 0
           and text[words[last][0]:words[last][1]].lower() in FILLERS):
        last -= 1
        ends.append(last)
    cue_re, subject = (_CUE_RE, text) if lower is None else (_CUE_RE_LOWER, lower)
    for last in reversed(ends):
        if last < 0:
            continue
        end = words[last][1]
        for first in range(max(0, last - _MAX_CUE_WORDS + 1), last + 1):
            s = words[first][0]
            m = cue_re.fullmatch(subject, s, end)
            if m is not None:
                name = CUES[int(m.lastgroup[1:])][0]
                if name == "no" and is_bare_no(text, s, end):
                    continue
                return name
    return None


def cue_alternation(names: frozenset[str] | set[str]) -> str:
    """A regex alternation (no groups) of the surfaces of the given cues."""
    return "|".join(f"(?:{pattern})" for name, pattern in CUES if name in names)


#: Words before a place that make it one ("FROM HARBOR", "meeting at union");
#: "to" only after one of `MOVES` ("WENT TO HARBOR", not "TALKED TO GENERAL").
PLACE_BEFORE = frozenset({"from", "at"})
MOVES = frozenset({
    "went", "go", "going", "goes", "taken", "transferred", "transfered", "transfer", "xfer", "tx",
    "sent", "back", "return", "returned", "returning", "admitted", "moved", "brought",
    "presented", "discharged", "dc", "d/c", "driven", "flown"})
