from app.core.spans import Document, Span
from app.core.tokenize import segment
from app.models.datasets import (build_corpora, build_corpus, has_pii, split_documents,
                                 tag_document)
from models_synth import make_docs


def _docs():
    return (make_docs(20, seed=1) + make_docs(5, seed=2, split="test"))


def test_test_documents_never_used():
    test_docs = make_docs(5, seed=2, split="test")
    for d in test_docs:
        d.name = "test_" + d.name
    build = build_corpus(make_docs(20, seed=1) + test_docs, "imbalanced")
    used = {it.doc_id for it in build.corpus.train + build.corpus.dev}
    assert used and not any(name.startswith("test_") for name in used)
    assert not set(build.train_docs + build.dev_docs) & {d.name for d in test_docs}
    assert len(build.corpus.raw_texts) == 20


def test_seeded_document_split_keeps_documents_whole():
    build = build_corpus(_docs(), "imbalanced", seed=7)
    assert build.split_source == "seeded"
    assert set(build.train_docs).isdisjoint(build.dev_docs)
    assert len(build.train_docs) + len(build.dev_docs) == 20
    assert len(build.dev_docs) == 3                    # ceil(0.15 * 20)
    train_ids = {it.doc_id for it in build.corpus.train}
    dev_ids = {it.doc_id for it in build.corpus.dev}
    assert train_ids == set(build.train_docs) and dev_ids == set(build.dev_docs)
    again = build_corpus(_docs(), "imbalanced", seed=7)
    assert again.split_hashes == build.split_hashes
    other = build_corpus(_docs(), "imbalanced", seed=8)
    assert other.dev_docs != build.dev_docs


def test_own_split_field_is_honoured():
    docs = make_docs(6, seed=3, split="train") + make_docs(2, seed=4, split="dev")
    for d in docs[6:]:
        d.name = "dev_" + d.name
    train, dev, source = split_documents(docs)
    assert source == "documents"
    assert [d.name for d in dev] == ["dev_note00", "dev_note01"]
    assert len(train) == 6


def test_patient_documents_stay_together():
    docs = make_docs(12, seed=5)
    for i, d in enumerate(docs):
        d.patient_id = f"p{i // 3}"
    train, dev, _ = split_documents(docs, seed=1)
    assert dev
    dev_patients = {d.patient_id for d in dev}
    assert dev_patients.isdisjoint({d.patient_id for d in train})


def test_balanced_and_imbalanced_counts():
    builds = build_corpora(_docs(), seed=11)
    imb, bal = builds["imbalanced"], builds["balanced"]
    assert imb.dev_docs == bal.dev_docs and imb.corpus.dev == bal.corpus.dev
    n_pii = sum(map(has_pii, imb.corpus.train))
    n_empty = len(imb.corpus.train) - n_pii
    assert n_empty > n_pii > 0        # the synthetic notes are mostly PII-free lines
    assert sum(map(has_pii, bal.corpus.train)) == n_pii
    assert len(bal.corpus.train) == 2 * n_pii
    assert bal.counts["train_segments"] == 2 * n_pii
    assert bal.split_hashes["dev"] == imb.split_hashes["dev"]
    assert bal.split_hashes["train"] != imb.split_hashes["train"]
    half = build_corpus(_docs(), "balanced", seed=11, ratio=0.5)
    assert len(half.corpus.train) == n_pii + round(0.5 * n_pii)


def test_balanced_sampling_is_seeded():
    a = build_corpus(_docs(), "balanced", seed=11)
    b = build_corpus(_docs(), "balanced", seed=11)
    assert a.split_hashes == b.split_hashes
    assert [it.segment for it in a.corpus.train] == [it.segment for it in b.corpus.train]
    # Another sampling seed with the same document split picks other PII-free lines.
    c_train = build_corpus(_docs(), "balanced", seed=12)
    assert c_train.split_hashes["train"] != a.split_hashes["train"]


def test_labels_and_language():
    build = build_corpus(_docs(), language="es")
    assert build.corpus.labels == ["PERSON", "PHONE"]
    assert build.corpus.language == "es"
    explicit = build_corpus(_docs(), labels=["PERSON", "PHONE", "IDN"])
    assert explicit.corpus.labels == ["PERSON", "PHONE", "IDN"]


def test_span_across_sentence_boundary_merges_segments_and_alignment_stats():
    text = "Seen by Dr Wilkinson. Jones today.\nCall 0412 345 678."
    name = text.index("Wilkinson")
    phone = text.index("0412")
    # One (odd) gold span crossing the sentence break after "Wilkinson.", one
    # that ends inside a token, and one on whitespace only.
    spans = [Span(name, text.index(" today"), "PERSON"), Span(phone, phone + 3, "PHONE"),
             Span(text.index("\n"), text.index("\n") + 1, "PHONE")]
    doc = Document("x", text, spans)
    assert len(segment(text)) == 3
    items, report, merged = tag_document(doc)
    assert merged == 1
    first = items[0]
    assert (first.segment.start, first.segment.end) == (0, text.index("\n"))
    assert "I-PERSON" in first.tags and first.tags.count("B-PERSON") == 1
    assert len(report.misaligned) == 1 and len(report.lost) == 1
    build = build_corpus([doc, Document("y", "No PII here.", [])], seed=0)
    assert build.stats.as_dict() == {"spans": 3, "aligned": 1, "misaligned": 1,
                                     "conflicting": 0, "lost": 1, "cross_segment": 1}
