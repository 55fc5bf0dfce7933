"""MEDDOCAN (brat, 1,000 real-world-shaped notes) read and written losslessly."""
import os
from pathlib import Path

import pytest

from app.formats import ImportedDoc, read_path, write_documents

SPLITS = ("train", "dev", "test")


def _meddocan() -> Path | None:
    env = os.environ.get("DEID_MEDDOCAN")
    path = Path(env) if env else (
        Path(__file__).resolve().parents[2].parent / "shared" / "data" / "meddocan")
    return path if all((path / s).is_dir() for s in SPLITS) else None


MEDDOCAN = _meddocan()


@pytest.mark.skipif(MEDDOCAN is None, reason="MEDDOCAN corpus not found (set DEID_MEDDOCAN)")
def test_meddocan_reads_all_spans_and_round_trips(tmp_path):
    docs = []
    for split in SPLITS:
        for item in read_path(MEDDOCAN / split, "brat"):
            assert isinstance(item, ImportedDoc), item
            assert item.warnings == []
            docs.append(item)
    assert len(docs) == 1000
    assert sum(len(d.spans) for d in docs) == 22795
    # Offsets are true: every span covers exactly the text the .ann stored
    # (also for the notes with a BOM, whose .ann counts it).
    assert any(d.meta.get("offset_basis") == "bom-counted" for d in docs)

    write_documents((d.to_document() for d in docs), tmp_path, "brat")
    back = {d.name: d for d in read_path(tmp_path, "brat")}
    assert len(back) == len(docs)
    for doc in docs:
        again = back[doc.name]
        assert again.text == doc.text
        assert again.spans == doc.spans
        assert [s.text_in(again.text) for s in again.spans] == [
            s.text_in(doc.text) for s in doc.spans]
