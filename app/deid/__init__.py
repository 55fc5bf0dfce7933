"""De-identification: turn predicted spans into de-identified text.

Public API (PRODUCT.md step 3):

* ``Policy`` — strategy per label (tag, bracket, remove, mask, surrogate)
  and surrogate settings;
* ``redact_text`` / ``Redactor`` -> ``RedactionResult(text, span_map)``;
* ``Surrogator`` and the ``SurrogateMemory`` protocol (``InMemorySurrogateMemory``,
  ``JsonFileSurrogateMemory``, ``as_memory`` for the project store);
* ``redact_folder`` -> ``RedactionSummary`` (workers, resume, pseudonymous names);
* ``rescan`` -> ``list[Leak]``;
* ``build_report`` / ``write_report``.
"""
from app.deid.folder import (NoteOutcome, NoteSource, RedactionSummary, patient_key,
                             redact_folder, redact_notes)
from app.deid.memory import (InMemorySurrogateMemory, JsonFileSurrogateMemory,
                             StoreMemoryAdapter, SurrogateMemory, as_memory)
from app.deid.policy import DEFAULT_KINDS, KINDS, STRATEGIES, Policy, normalise_strategy
from app.deid.redact import MappedSpan, RedactionResult, Redactor, redact_text
from app.deid.report import build_report, render_html, write_report
from app.deid.rescan import Leak, LeakError, rescan
from app.deid.surrogates import Surrogator

__all__ = [
    "DEFAULT_KINDS", "KINDS", "STRATEGIES", "InMemorySurrogateMemory", "JsonFileSurrogateMemory",
    "Leak", "LeakError", "MappedSpan", "NoteOutcome", "NoteSource", "Policy", "RedactionResult",
    "RedactionSummary", "Redactor", "StoreMemoryAdapter", "SurrogateMemory", "Surrogator",
    "as_memory", "build_report", "normalise_strategy", "patient_key", "redact_folder",
    "redact_notes", "redact_text",
    "render_html", "rescan", "write_report",
]
