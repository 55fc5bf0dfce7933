"""Rules-only model on MEDDOCAN: mapping learned on train, scored on test.

Prints the per-label table (run with ``-s``). The brat files are read here
with a minimal parser so this test does not depend on the import code.
"""
from pathlib import Path

import pytest

from app.core.bio import spans_to_tags
from app.core.spans import Span
from app.core.tokenize import segment
from app.eval.report import evaluate
from app.models.base import Corpus, TaggedSegment, TrainContext
from app.models.rules_model import RulesSpec


def read_brat(split_dir: Path) -> list[tuple[str, list[Span]]]:
    docs = []
    for txt in sorted(split_dir.glob("*.txt")):
        text = txt.read_text(encoding="utf-8")
        spans = []
        for line in txt.with_suffix(".ann").read_text(encoding="utf-8").splitlines():
            if not line.startswith("T"):
                continue
            label, offsets = line.split("\t")[1].split(" ", 1)
            fragments = [tuple(map(int, f.split())) for f in offsets.split(";")]
            spans.append(Span(fragments[0][0], fragments[-1][1], label))
        docs.append((text, spans))
    return docs


@pytest.mark.slow
def test_rules_on_meddocan(meddocan, tmp_path):
    train = read_brat(meddocan / "train")
    test = read_brat(meddocan / "test")
    segments = []
    for k, (text, spans) in enumerate(train):
        for seg in segment(text):
            tags, _ = spans_to_tags(seg.tokens, [s for s in spans if seg.start <= s.start < seg.end])
            segments.append(TaggedSegment(str(k), text, seg, tuple(tags)))
    labels = sorted({s.label for _, spans in train for s in spans})
    model = RulesSpec().fit(Corpus(segments, [], labels, "es"), TrainContext(tmp_path))

    report = evaluate([t for t, _ in test], [g for _, g in test],
                      [model.predict_spans(t) for t, _ in test], labels=labels, bootstrap=200)
    print("\n" + report.render())

    strict = {label: report.per_label[label]["strict"] for label in labels}
    # Well-formed identifiers are what rules are for: high precision and recall.
    for label in ("FECHAS", "CORREO_ELECTRONICO", "ID_ASEGURAMIENTO", "ID_SUJETO_ASISTENCIA",
                  "ID_TITULACION_PERSONAL_SANITARIO", "EDAD_SUJETO_ASISTENCIA"):
        assert strict[label].f1 > 0.9, label
    assert strict["NUMERO_TELEFONO"].precision > 0.9
    # Postcodes are only part of TERRITORIO (cities are not rule material).
    assert strict["TERRITORIO"].precision > 0.9
    assert report.micro["strict"].precision > 0.95
