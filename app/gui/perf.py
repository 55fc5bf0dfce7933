"""Measure the editor's responsiveness: ``python -m app.gui.perf [WORK_DIR]``.

Prints (no assertions; figures depend on the machine):

* the cold start: seconds from launching ``python -m app.gui.main`` to its
  window shown, grabbed and closed (``DEID_SCREENSHOT``), median of 3;
* the time to open a 10,000-note project in the main window (first page
  of the document list painted);
* on a 50,000-character note with about 2,000 spans: the time to load it
  into the editor, and keystroke-to-repaint times (label a selection with
  a hotkey, accept a suggestion, undo), median and maximum of 30 each.
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

WORDS = ("Seen by Dr {n} at {w} ward. Patient {n} reviewed, MRN {m}, ph {p}. "
         "Plan: continue therapy.\n")


def _make_projects(work: Path) -> tuple[Path, Path, int]:
    from app.core.labels import PRESETS
    from app.project import Project
    big = work / "10k.deid"
    with Project.create(big, PRESETS["paper"]) as project, project.transaction():
        for i in range(10_000):
            text = f"Note {i}: seen by Dr Name{i % 97} on ward {i % 13}. MRN {100000 + i}."
            doc = project.add_document(f"note_{i:05d}", text, patient_id=f"P{i // 3:05d}")
            project.add_span(doc, text.index("Dr") + 3, text.index(" on"), "PERSON")
    long = work / "long.deid"
    with Project.create(long, PRESETS["paper"]) as project, project.transaction():
        parts, spans, pos, k = [], [], 0, 0
        while pos < 50_000:
            name, mrn, ward, phone = f"Alex{k}", f"{9000000 + k}", f"Ward{k % 40}", f"{5550000 + k}"
            line = WORDS.format(n=name, w=ward, m=mrn, p=phone)
            first = line.index(name)
            second = line.index(name, first + 1)
            spans += [(pos + line.index(s), pos + line.index(s) + len(s), label, source)
                      for s, label, source in ((ward, "ADDRESS", "human"), (mrn, "IDN", "model"),
                                               (phone, "PHONE", "rule"))]
            spans += [(pos + first, pos + first + len(name), "PERSON", "human"),
                      (pos + second, pos + second + len(name), "PERSON", "model")]
            parts.append(line)
            pos += len(line)
            k += 1
        text = "".join(parts)
        doc = project.add_document("long", text)
        for start, end, label, source in spans[:2000]:
            if source == "human":
                project.add_span(doc, start, end, label, annotator="perf")
            else:
                project.add_span(doc, start, end, label, source=source, status="suggested",
                                 confidence=0.7 if source == "model" else None)
    return big, long, len(text)


def cold_start_seconds(runs: int = 3) -> float:
    """Median wall time of ``python -m app.gui.main`` showing its window and quitting."""
    import subprocess
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, DEID_SCREENSHOT=str(Path(tmp) / "shot.png"),
                   QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "app.gui.main"], env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.gui.qt import QApplication, QSettings, Qt
    from PySide6.QtTest import QTest  # test helper only, for synthetic key presses

    from app.gui.main_window import MainWindow

    print(f"cold start to main window shown: {cold_start_seconds():.2f} s")
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory(dir=argv[0] if argv else None) as tmp_name:
        work = Path(tmp_name)
        t0 = time.perf_counter()
        big, long, n_chars = _make_projects(work)
        print(f"(built test projects in {time.perf_counter() - t0:.1f} s)")
        settings = QSettings(str(work / "s.ini"), QSettings.IniFormat)
        settings.setValue("annotator", "perf")
        window = MainWindow(settings)
        window.resize(1280, 800)
        window.show()
        app.processEvents()

        t0 = time.perf_counter()
        window.open_project(big)
        window.documents.table.viewport().repaint()
        app.processEvents()
        opened = time.perf_counter() - t0
        print(f"open 10,000-note project: {opened * 1000:.0f} ms "
              f"({window.documents.model.rowCount()} rows loaded, "
              f"{window.documents.model.total():,} in the project)")

        window.open_project(long)
        doc = window.project.document_infos()[0].id
        t0 = time.perf_counter()
        window.open_document(doc)
        window.editor.text_view.viewport().repaint()
        print(f"load {n_chars:,}-char note with {len(window.editor.session.spans):,} spans: "
              f"{(time.perf_counter() - t0) * 1000:.0f} ms")
        editor, view = window.editor, window.editor.text_view
        text = editor.session.text

        def timed(action) -> float:
            t = time.perf_counter()
            action()
            view.viewport().repaint()
            return (time.perf_counter() - t) * 1000

        label_ms, accept_ms, undo_ms = [], [], []
        for i in range(30):
            start = text.index("Plan", 1500 * i + 100)
            view.select(start, start + 4)
            label_ms.append(timed(lambda: QTest.keyClick(view, Qt.Key_2)))
            suggestion = next(r for r in editor.session.suggestions()
                              if r.start > 1500 * i and r.source == "model")
            editor.set_current(suggestion.id)
            view.viewport().repaint()
            accept_ms.append(timed(lambda: QTest.keyClick(view, Qt.Key_A)))
            undo_ms.append(timed(lambda: QTest.keyClick(view, Qt.Key_Z, Qt.ControlModifier)))
        for name, values in (("label selection (hotkey)", label_ms),
                             ("accept suggestion (A)", accept_ms), ("undo (Ctrl+Z)", undo_ms)):
            print(f"keystroke-to-repaint, {name}: median {statistics.median(values):.1f} ms, "
                  f"max {max(values):.1f} ms")
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
