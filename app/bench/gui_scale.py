"""A big folder in the main window: what each wait costs as the folder grows.

    python -m app.bench.gui_scale [--small 250] [--large 2500] [--style icu] [--no-export]

Runs the same journey in the real ``MainWindow`` (offscreen unless
``QT_QPA_PLATFORM`` says otherwise) on two folders of synthetic plain notes
(``app.synth``, no annotation) in a new English project: import the folder,
its day-one suggestions, open the project again (first page painted), scroll
to the last row, sort by name (descending), search, Next to annotate,
Preview, Preview of a note from the middle of the folder, export every note
through the export wizard.

For every step it prints the time on the small folder (the baseline,
measured in the same run), the time on the large one, their ratio, and that
ratio over the folders' size ratio: about ``1/size ratio`` for work that
does not grow with the folder (a page of the list), about ``1`` for work
linear in it (import, suggestions, export); well above ``1`` is per-note work
that grows with the folder (quadratic). Also the longest the GUI thread did
not answer during the step (a timer's largest gap) and the process's
resident memory at the end. No assertion: figures depend on the machine.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

STEPS = ("import", "suggestions", "reopen project", "scroll to the last row", "sort by name",
         "search", "next to annotate", "preview", "preview another note", "export")


def _rss_mb() -> float:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def _notes(folder: Path, n: int, style: str) -> Path:
    """``n`` synthetic plain notes (their gold .ann files dropped)."""
    from app.formats import write_documents
    from app.synth import generate
    write_documents(generate(n, seed=7, style=style), folder, "brat")
    for ann in folder.glob("*.ann"):
        ann.unlink()
    return folder


class _Stall:
    """The longest gap between two ticks of a 10 ms timer in the GUI thread."""

    def __init__(self) -> None:
        from app.gui.qt import QTimer
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self.tick)
        self.last = time.perf_counter()
        self.longest = 0.0
        self.timer.start()

    def tick(self) -> None:
        now = time.perf_counter()
        self.longest = max(self.longest, now - self.last)
        self.last = now

    def reset(self) -> None:
        self.last, self.longest = time.perf_counter(), 0.0


def journey(work: Path, n: int, style: str = "icu",
            export: bool = True) -> dict[str, dict[str, float]]:
    """The journey on ``n`` notes: ``{step: {"s": seconds, "stall_s": longest GUI stall}}``
    and ``"rss_mb"`` (``export`` ``False``: the export left out, the slowest step)."""
    from app.gui.qt import QApplication, QSettings, Qt
    from app.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    folder = _notes(work / f"notes{n}", n, style)
    settings = QSettings(str(work / f"s{n}.ini"), QSettings.IniFormat)
    settings.setValue("annotator", "bench")
    window = MainWindow(settings)
    window.resize(1280, 800)
    window.show()
    stall = _Stall()
    out: dict = {}

    def wait(done, limit: float = 3600.0) -> None:
        end = time.monotonic() + limit
        while not done():
            if time.monotonic() > end:
                raise RuntimeError("a step of the journey did not finish")
            app.processEvents()
            time.sleep(0.002)

    def timed(name: str, action, done=lambda: True) -> None:
        app.processEvents()
        stall.reset()
        t0 = time.perf_counter()
        action()
        wait(done)
        app.processEvents()
        stall.tick()
        out[name] = {"s": time.perf_counter() - t0, "stall_s": stall.longest}

    project = work / f"big{n}.deid"
    window.new_project(project, "hipaa")
    imported, suggested = [], []
    window.importFinished.connect(imported.append)
    window.suggestionsFinished.connect(suggested.append)
    timed("import", lambda: window.import_folder(folder), lambda: bool(imported))
    timed("suggestions", lambda: None, lambda: bool(suggested))
    window.close_project()

    table = window.documents.table

    def reopen() -> None:
        window.open_project(project)
        table.viewport().repaint()
    timed("reopen project", reopen)
    rows = window.documents.model.rowCount

    def at_the_end() -> bool:
        """Scrolled to the last row: each scroll to the bottom fetches a page."""
        table.scrollToBottom()
        return rows() == n
    timed("scroll to the last row", table.setFocus, at_the_end)
    timed("sort by name", lambda: table.sortByColumn(0, Qt.DescendingOrder))
    timed("search", lambda: (window.documents.search_edit.setText("0001"),
                             window.documents.apply_filters()))
    window.documents.search_edit.clear()
    window.documents.apply_filters()
    timed("next to annotate", window.documents.open_next)
    preview = window.preview

    def shown() -> bool:
        return preview.doc_id is not None and "Predicting" not in preview.status.text()
    timed("preview", lambda: window.show_view("Preview"), shown)
    # A note from the middle of the folder (its patient's earlier notes are
    # redacted first, as an export does), once the project's identifiers are known.
    middle = window.project.document_infos(limit=1, offset=n // 2)[0].id
    window.open_document(middle)

    def preview_middle() -> None:
        window.show_view("Preview")
    timed("preview another note", preview_middle,
          lambda: shown() and preview.doc_id == middle)

    if export:
        exported: list = []

        def start_export() -> None:
            window.open_export()
            wizard = window.export_wizard
            wizard.exported.connect(exported.append)
            wizard.failed.connect(exported.append)
            wizard.folder_edit.setText(str(work / f"out{n}"))
            wizard.start_export()
        timed("export", start_export, lambda: bool(exported))
        if not hasattr(exported[0], "report"):
            raise RuntimeError(f"the export failed: {exported[0]}")
        window.export_wizard.close()
    out["rss_mb"] = _rss_mb()
    window.close()
    return out


def compare(small: dict, large: dict, size_ratio: float) -> list[dict]:
    """One row a step: both times, their ratio and that ratio per note."""
    rows = []
    for step in (s for s in STEPS if s in small and s in large):
        a, b = small[step]["s"], large[step]["s"]
        ratio = b / a if a > 0 else float("inf")
        rows.append({"step": step, "small_s": round(a, 6), "large_s": round(b, 6),
                     "ratio": round(ratio, 2), "per_note_ratio": round(ratio / size_ratio, 3),
                     "large_gui_stall_s": round(large[step]["stall_s"], 3)})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.bench.gui_scale",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=250, help="notes in the baseline folder")
    parser.add_argument("--large", type=int, default=2500, help="notes in the big folder")
    parser.add_argument("--style", default="icu", choices=("icu", "discharge", "mixed"))
    parser.add_argument("--no-export", dest="export", action="store_false",
                        help="leave the export out (the slowest step: a bigger folder in "
                             "the same time)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    args = parser.parse_args(argv)
    if args.small < 1 or args.large <= args.small:
        parser.error("need 1 <= --small < --large")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory(prefix="deid-gui-scale-") as tmp:
        work = Path(tmp)
        small = journey(work, args.small, args.style, args.export)
        large = journey(work, args.large, args.style, args.export)
    size_ratio = args.large / args.small
    rows = compare(small, large, size_ratio)
    result = {"small": args.small, "large": args.large, "size_ratio": size_ratio,
              "rss_mb": {"small": round(small["rss_mb"]), "large": round(large["rss_mb"])},
              "steps": rows}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.large:,} notes against {args.small:,} (size ratio {size_ratio:g}); "
          f"per-note ratio ~1 = linear, ~{1 / size_ratio:.2g} = constant, >>1 = grows "
          f"with the folder")
    print(f"{'step':<24} {'small s':>9} {'large s':>9} {'ratio':>7} {'per note':>9} "
          f"{'GUI stall (large) s':>20}")
    for r in rows:
        print(f"{r['step']:<24} {r['small_s']:>9.3f} {r['large_s']:>9.3f} {r['ratio']:>7.2f} "
              f"{r['per_note_ratio']:>9.3f} {r['large_gui_stall_s']:>20.3f}")
    print(f"resident memory: {result['rss_mb']['small']} MB after the small folder, "
          f"{result['rss_mb']['large']} MB after the large one")
    return 0


if __name__ == "__main__":
    sys.exit(main())
