"""The precompiled regular expressions behind `app.rules.recognizer`.

Speed comes from few passes, each with a start the regex engine can find
fast: a character class (``[\\d+(]`` for numbers), a literal ("." for
top-level domains, state codes, "X/Y/Z" for NIEs), or a word start on the
lower-cased text where every alternative begins with a plain literal
(month names, cue words). E-mail, URL and IPv6 candidates are looked for only
when a substring test ("@", "://", "::") says they may occur. Repetitions
are over disjoint character classes and the recognizer bounds every loop,
so no input makes a pass super-linear. Candidates are then validated in
Python (calendar ranges, checksums, numbering plans).
"""
from __future__ import annotations

import re

from app.rules.cues import GAP, ID_CUES, cue_alternation

MONTHS_EN = ("january february march april may june july august september "
             "october november december").split()
MONTHS_ES = ("enero febrero marzo abril mayo junio julio agosto septiembre "
             "setiembre octubre noviembre diciembre").split()
_MONTH_ABBR = "jan feb mar apr jun jul aug sept sep oct nov dec ene abr ago dic set".split()

WEEKDAYS = ("monday tuesday wednesday thursday friday saturday sunday mon tues tue wed "
            "thurs thur thu fri sat sun lunes martes miércoles miercoles jueves viernes "
            "sábado sabado domingo").split()

_MONTH = ("(?:" + "|".join(sorted(set(MONTHS_EN + MONTHS_ES), key=len, reverse=True))
          + "|(?:" + "|".join(_MONTH_ABBR) + r")\.?)(?!\w)")
_DAY = r"(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th|º|°|\.º)?(?!\d)"
_YEAR = r"(?:1[89]\d\d|20\d\d|'\d\d)(?!\d)"
# A weekday before a range's second day ("Wed 29 - Fri 31 May"); the
# recogniser attaches one before the first (``WEEKDAY_BEFORE_RE``).
_WEEKDAY = ("(?i:" + "|".join(sorted(WEEKDAYS, key=len, reverse=True)) + r")\.?,?")
# Between the two days of a range whose month is written once ("May 3-5",
# "3rd to 5th May", "3 and 5 May"): one date, as annotators mark it.
_RANGE_JOIN = r"[ \t]*(?:-|\u2013|(?i:to|and|&))[ \t]*"

# --- Pass 1: starts with a digit, "+" or "(" --------------------------------
# Named outer groups identify the alternative (``m.lastgroup``); the first
# alternative that matches at a position wins, so specific shapes come first.
NUMERIC_RE = re.compile(rf"""
  (?P<ipv4>(?<![\d.])(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){{3}}(?![\d]|\.\d))
| (?P<iso>(?<![\d./-])(?:1[89]|20)\d\d(?P<isep>[-/.])\d\d?(?P=isep)\d\d?(?![\d]|[-/.]\d))
| (?P<dmy>(?<![\d./-])(?P<d1>\d\d?)(?P<dsep>[-/.])(?P<d2>\d\d?)(?P=dsep)(?:\d{{4}}|\d\d)(?![\d]|[-/.]\d))
| (?P<my>(?<![\d./-])(?:0?[1-9]|1[0-2])[/-](?:1[89]|20)\d\d(?![\d]|[-/.]\d))
| (?P<tdate>(?<![\d.,/-])(?:{_DAY}{_RANGE_JOIN}(?:{_WEEKDAY}[ \t]+)?)?{_DAY}(?:[ \t]+(?:of|de)[ \t]+|[ \t]*[-/.][ \t]*|[ \t]+)(?i:{_MONTH})
     (?:(?:,?[ \t]+(?:(?:de|del)[ \t]+)?|[ \t]*[-/.][ \t]*){_YEAR})?)
| (?P<age_es>(?<!\d)\d{{1,3}}[ \t]*(?i:años|año)(?!\w))
| (?P<age_en>(?<!\d)(?P<age_n>\d{{1,3}})(?=(?:[ \t]*-?[ \t]*(?i:years?|yrs?|y)[ \t]*-?[ \t]*(?i:old)
                                    |[ \t]*(?i:yo|y\.o\.?|y/o)(?!\w))))
| (?P<dni>(?<![\w-])\d{{8}}[ \t-]?[A-Z](?!\w))
| (?P<chain>(?<![\w+])(?:\+[ \t]?)?(?:\(\d{{1,5}}\)[ \t.-]?|\d+[ \t.-](?=[\d(]))*(?:\(\d{{1,5}}\)|\d+)(?![\w]))
""", re.VERBOSE)

# Where a numeric candidate may start: NUMERIC_RE is tried only there, since
# a leading character class lets the regex engine skip everything else fast.
NUMERIC_START_RE = re.compile(r"[\d+(]\d*")

# The digit groups of a chain (a parenthesised area code is one group).
CHAIN_GROUP_RE = re.compile(r"\(\d+\)|\d+")

# A phone extension right after a phone number; it belongs to the span.
EXTENSION_RE = re.compile(r"[ \t]*,?[ \t]*(?:ext(?:ension|n)?\.?|x)[ \t]*\d{1,5}(?!\w)", re.IGNORECASE)

# Units after a 4-digit number that rule out a year ("2000 mg").
UNIT_AFTER_RE = re.compile(
    r"[ \t]*(?:mg|mcg|µg|ug|g|kg|ml|mL|l|dl|u|ui|iu|units?|unidades|mmol|meq|cc|cm|mm|m|"
    r"%|x|h|hrs?|horas?|kcal|cal|ng|pg|µl|ul)(?!\w)", re.IGNORECASE)

# "año 2004" is one date in MEDDOCAN's convention.
YEAR_WORD_BEFORE_RE = re.compile(r"(?<!\w)(?:año|year)[ \t]+$", re.IGNORECASE)

# A capitalised word after a 5-digit number: "28034 Madrid" (Spanish postcode).
CITY_AFTER_RE = re.compile(r",?[ \t]+[A-ZÁÉÍÓÚÑ][a-záéíóúñü]")

# --- Pass 2: starts with a word ---------------------------------------------
_ID_BODY = r"(?=[A-Za-z\d/-]*\d)[A-Za-z\d]+(?:[-/.][A-Za-z\d]+|[ \t]\d+(?!\w))*"
_AU_STATES = "NSW|VIC|QLD|SA|WA|TAS|NT|ACT"
_US_STATES = ("AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|"
              "MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY")

# Every alternative starts at a word start: the shared look-behind/-ahead
# rejects the other positions with one test. WORD_RE runs on the lower-cased
# text, where literal first letters let the engine skip alternatives fast
# (case-insensitive literals cannot be skipped that way).
_WORD_SRC = rf"""
(?<!\w)(?=[^\W\d_])(?:
  (?P<idcue>(?P<idc>{cue_alternation(ID_CUES)})(?!\w){GAP}(?P<idb>{_ID_BODY}))
| (?P<idglued>(?:mrn|umrn|urn?|acct|ssn|nhc)\#?(?P<idgb>\d{{5,}})(?!\w))
| (?P<cp>(?:c[óo]digo[ \t]+postal|c\.[ \t]?p\.?|cp)(?!\w)[ \t:.]*(?P<cpn>\d{{5}})(?!\w))
| (?P<mdate>{_MONTH}(?:[ \t]*{_DAY}(?:,?[ \t]+|,)(?:(?:de|del)[ \t]+)?(?:año[ \t]+)?{_YEAR}
                    |[ \t]+(?P<mrange>{_DAY}{_RANGE_JOIN}{_DAY})(?:,?[ \t]+{_YEAR})?
                    |[ \t]+(?P<mday2>{_DAY})(?![ \t]*[-:/.]?\d)
                    |(?:,?[ \t]+(?:(?:de|del)[ \t]+)?(?:año[ \t]+)?|[ \t]*[-/][ \t]*){_YEAR}))
| (?P<aged>(?:aged|age|edad)[ \t]*[:=]?[ \t]*
           (?P<agedn>\d{{1,3}}(?:[ \t]*(?:meses|mes|d[ií]as|semanas)(?!\w))?)
           (?![\w/:]|[.,]\d|[ \t]*(?:años|year|yr|y\b)))
)"""
WORD_RE = re.compile(_WORD_SRC, re.VERBOSE)

# Case matters for state codes ("WA", not "wa") and NIE letters; each of these
# starts with a literal, so the engine scans for it fast. A match inside a
# longer word ("NASA 1234") is rejected by the recognizer.
AU_POSTCODE_RE = re.compile(rf"(?:{_AU_STATES})\.?,?[ \t]+(?P<n>\d{{4}})(?![\w-])")
US_ZIP_RE = re.compile(rf"(?:{_US_STATES})\.?,?[ \t]+(?P<n>\d{{5}}(?:-\d{{4}})?)(?![\w-])")
NIE_RE = re.compile(r"[XYZ]-?\d{7}-?[A-Z](?!\w)")

# URLs with a scheme or "www." (on the lower-cased text).
URL_RE = re.compile(r"(?:https?://|ftp://|www\.)[^\s<>\"'(){}\[\]]+")
# Bare domains are found from their top-level domain, which starts with a
# literal "." (a fast scan), and extended backwards by the recognizer.
TLD_RE = re.compile(r"\.(?:com|org|net|edu|gov|info|io|es|au|uk|eu|cat)(?![\w@-]|\.\w)")
DOMAIN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_.")
URL_PATH_RE = re.compile(r"/[^\s<>\"'(){}\[\]]*")

# A weekday written just before a date belongs to it ("Monday, 3 March").
WEEKDAY_BEFORE_RE = re.compile(
    r"(?<!\w)(?:" + "|".join(sorted(WEEKDAYS, key=len, reverse=True)) + r")\.?,?[ \t]+(?:the[ \t]+)?$",
    re.IGNORECASE)

# --- Gated passes -------------------------------------------------------------
# E-mail: found from each "@"; the local part is walked back in Python, the
# domain matched forwards.
EMAIL_DOMAIN_RE = re.compile(r"\w[\w-]*(?:\.[\w-]+)*\.[A-Za-z]{2,}(?!\w)")
# IPv6: a cheap trigger (two colons close together), then the full shape.
IPV6_TRIGGER_RE = re.compile(r"[0-9A-Fa-f:]:[0-9A-Fa-f]{0,4}:")
HEX_COLON = frozenset("0123456789abcdefABCDEF:")
IPV6_RE = re.compile(r"(?<![\w:])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])")

# Trailing punctuation never belongs to a URL.
URL_TRAIL = ".,;:!?'\")]}"
