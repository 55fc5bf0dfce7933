"""Rule and dictionary recognition of well-formed identifiers (en + es).

>>> from app.rules import find_hits
>>> [(h.category, h.cue) for h in find_hits("MRN: 1234567, DOB 03/05/2014")]
[('ID', 'mrn'), ('DATE', 'dob')]
"""
from app.rules.recognizer import CATEGORIES, RuleHit, find_hits

__all__ = ["CATEGORIES", "RuleHit", "find_hits"]
