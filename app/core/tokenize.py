"""The canonical tokenisation: one tokenizer that every model is aligned to.

Tokens are ``(start, end)`` code-point ranges. The rules are deliberately
fine-grained, because a span boundary that falls inside a token cannot be
represented in BIO and costs strict F1 (MEDDOCAN's one-letter sex codes
"H." and streets "c/ del Abedul 5-7, 2º" were the main losses of a naive
tokenizer):

* a run of letters is a token, split where a lower-case letter is followed
  by an upper-case one, so clinical run-ons such as ``DrSmith`` and
  ``prnInsulin`` become two tokens;
* a run of digits is a token (``03/03/1946`` -> ``03 / 03 / 1946``);
* every other non-space character is a token of its own;
* whitespace is never part of a token.

Sentence segmentation works on lines first (a line break always ends a
segment, as in the paper's line-level data sets) and then splits long lines
after ``.!?`` followed by a capital or digit, except after common
abbreviations and single initials.
"""
from __future__ import annotations

import re
from typing import NamedTuple


class Token(NamedTuple):
    start: int
    end: int


class Segment(NamedTuple):
    """A sentence or line: its character range and its tokens."""

    start: int
    end: int
    tokens: list[Token]


_TOKEN_RE = re.compile(r"[^\W\d_]+|\d+|\S")

# Abbreviations after which a full stop does not end a sentence (en + es).
_ABBREVIATIONS = frozenset(
    """dr dra drs mr mrs ms mx prof pro sr sra srta st mt ft no nº vs etc approx
    dept hosp jr snr jnr av avda c ud uds fig pt pts e.g i.e a.m p.m tel ext
    mg ml dl kg mmhg""".split())

# A sentence ends at .!? followed by space and a capital letter (not a digit:
# "Castellana 86. 13 A." is one address).
_SENT_END_RE = re.compile(r"[.!?]+[\"')\]]*(?=\s+[\"'(\[]?[^\W\d_a-z])")


def _split_camel(text: str, start: int, end: int, out: list[Token]) -> None:
    """Append letter-run tokens, split at lower->upper transitions."""
    piece = text[start:end]
    if piece.islower() or piece.isupper() or len(piece) < 2:
        out.append(Token(start, end))
        return
    tok_start = start
    prev_lower = piece[0].islower()
    for i in range(1, len(piece)):
        ch = piece[i]
        if prev_lower and ch.isupper():
            out.append(Token(tok_start, start + i))
            tok_start = start + i
        prev_lower = ch.islower()
    out.append(Token(tok_start, end))


def tokenize(text: str, start: int = 0, end: int | None = None) -> list[Token]:
    """Tokenise ``text[start:end]``; offsets are relative to ``text``."""
    out: list[Token] = []
    for m in _TOKEN_RE.finditer(text, start, len(text) if end is None else end):
        s, e = m.span()
        if e - s > 1 and text[s].isalpha():
            _split_camel(text, s, e, out)
        else:
            out.append(Token(s, e))
    return out


def _sentence_breaks(text: str, start: int, end: int) -> list[int]:
    """Offsets inside ``[start, end)`` after which a new sentence begins."""
    breaks = []
    for m in _SENT_END_RE.finditer(text, start, end):
        # The word just before the punctuation decides whether it ends a sentence.
        j = m.start()
        i = j
        while i > start and not text[i - 1].isspace():
            i -= 1
        word = text[i:j].lower().rstrip(".")
        raw = text[i:j].rstrip(".")
        if (word in _ABBREVIATIONS or len(word) <= 1 or raw[-1:].isdigit()
                or not raw[-1:].isalnum()
                # A short capitalised word before the stop is far more often an
                # abbreviation ("Av.", "Ctra.", "Urb.") or a name than a
                # sentence end; splitting inside an address costs more.
                or (len(raw) <= 5 and raw[:1].isupper())):
            continue
        breaks.append(m.end())
    return breaks


def segment(text: str, *, split_sentences: bool = True) -> list[Segment]:
    """Split ``text`` into non-empty segments (lines, then sentences).

    Every token of ``tokenize(text)`` belongs to exactly one segment.
    """
    segments: list[Segment] = []
    pos = 0
    n = len(text)
    while pos <= n:
        nl = text.find("\n", pos)
        line_end = n if nl < 0 else nl
        bounds = [pos]
        if split_sentences:
            bounds += _sentence_breaks(text, pos, line_end)
        bounds.append(line_end)
        for a, b in zip(bounds, bounds[1:]):
            toks = tokenize(text, a, b)
            if toks:
                segments.append(Segment(toks[0].start, toks[-1].end, toks))
        if nl < 0:
            break
        pos = nl + 1
    return segments
