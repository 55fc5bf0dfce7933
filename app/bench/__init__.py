"""Benchmarks: one command reproduces every figure in BENCHMARKS.md.

``python -m app.bench accuracy|learning-curve|speed|report|all`` (see
:mod:`app.bench.cli`). Each part writes ``<part>.json`` (stable keys, see
:mod:`app.bench.record`) and ``<part>.md`` into ``--out`` (default
``bench-out/``); ``report`` (or a part run with ``--write-md``) rewrites the
matching sections of the top-level ``BENCHMARKS.md``.

Heavy runs happen only on demand: nothing here is imported by the
application or run by the default test suite (the light smoke test uses
``--smoke``, a tiny synthetic size).
"""
