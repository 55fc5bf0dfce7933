"""Markdown for each benchmark record, and the sections of BENCHMARKS.md.

BENCHMARKS.md keeps one section per record between ``<!-- bench:ID -->`` and
``<!-- /bench:ID -->``; `update_benchmarks` replaces only the sections it
has a record for, so a run of one part leaves the figures of the others
alone. Each section carries its targets as a JSON comment, from which the
summary table at the top is rebuilt.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from app.bench.config import TARGETS
from app.bench.machine import describe
from app.bench.record import PART_IDS

TITLES = {
    "accuracy-meddocan": "Accuracy: MEDDOCAN test split",
    "accuracy-physionet": "Accuracy: PhysioNet English ICU notes, our dev patients",
    "accuracy-physionet-lists": "Accuracy: PhysioNet dev patients, with the hospital lists",
    "accuracy-synthetic": "Accuracy: held-out synthetic English notes",
    "accuracy-physionet-folds": "Accuracy: PhysioNet, patient-disjoint folds (figures nobody tuned on)",
    "accuracy-physionet-folds-lists": "Accuracy: PhysioNet folds, with the hospital lists",
    "learning-curve": "Learning curve: MEDDOCAN",
    "learning-curve-physionet": "Learning curve: PhysioNet English ICU notes",
    "speed": "Speed, memory and cost growth",
    "cluster": "Cluster: Dask workers and the hospital-scale projection",
}
_TARGETS_RE = re.compile(r"<!-- targets-json: (.*?) -->")


def _f(x, digits: int = 4) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _ci(v) -> str:
    if not v or v[0] is None:
        return ""
    return f" [{v[0]:.3f}, {v[1]:.3f}]"


def _rate(x) -> str:
    return "-" if x is None else f"{x:,.0f}"


def _mark(ok) -> str:
    return "not measured" if ok is None else ("PASS" if ok else "MISS")


def _table(head: list[str], rows: list[list]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def _header(rec: dict) -> list[str]:
    load = rec["load_average"]
    return [
        f"- Command: `{rec['command']}`",
        f"- Date (UTC): {rec['date']}; wall time {rec['seconds']} s",
        f"- Budget: **{rec['budget']}**; data size: {rec['size']}; models: "
        f"{', '.join(rec['models'])}; seed {rec['seed']}",
        f"- Machine: {describe(rec['machine'])}",
        f"- Load average (1/5/15 min) at start {load['start']}, at end {load['end']} "
        "(the machine may be shared: timings are only comparable within one run)",
        "",
    ]


def target_rows(targets: list[dict]) -> list[list]:
    return [[t["what"], f"{t['target']:,}" + (f" {t['unit']}" if t["unit"] else ""),
             (_rate(t["measured"]) if t["unit"] else _f(t["measured"]))
             + (f" {t['unit']}" if t["unit"] and t["measured"] is not None else ""),
             _mark(t["pass"]), t["note"]] for t in targets]


def _targets(rec: dict) -> list[str]:
    if not rec["targets"]:
        return []
    return ["", "Targets:", ""] + _table(["target", "wanted", "measured", "", "conditions"],
                                         target_rows(rec["targets"]))


def _training(members: dict) -> list[str]:
    rows = [[n, m["kind"], m["variant"] or "-", str(m.get("run", "-")), _f(m["seconds"], 1),
             _f(m["peak_mb"], 0), _f(m["size_mb"], 1), _f(m["dev_f1"])] for n, m in members.items()]
    return _table(["member", "kind", "data", "trained in run", "training s", "peak RSS MB",
                   "size MB", "dev strict F1"], rows)


def _ensemble_kinds(tr: dict) -> str:
    kinds = list(tr.get("ensemble_kinds") or [])
    metas = tr.get("meta_models") or []
    return ", ".join(f"stacking ({', '.join(metas)})" if k == "stacking" else k
                     for k in kinds) or "-"


def render_accuracy(rec: dict) -> list[str]:
    r = rec["results"]
    ev, tr, data = r["evaluation"], r["train"], r["data"]
    lines = _header(rec)
    lines.append("Data: " + "; ".join(
        f"{split} {d['notes']} notes, {d['spans']} spans, {d['chars']:,} chars"
        for split, d in data.items()))
    lines += ["", f"Ensembles: {_ensemble_kinds(tr)}. Selected on dev: **{tr['selected']}** "
              f"({tr['reason']}). Training step {tr['seconds']} s on {tr['device']}"
              f" (run {tr.get('run', '-')}).", ""]
    for line in tr.get("finishing", []):
        lines += [line, ""]
    lines.append(f"Every candidate on the {ev['split']} split ({ev['notes']} notes); "
                 "95 % bootstrap intervals over notes; * = selected on dev:")
    lines.append("")
    rows = []
    for row in ev["rows"]:
        s, rl, t = row["strict"], row["relaxed"], row["token"]
        rows.append([row["name"] + (" *" if row["selected"] else ""), row["type"],
                     _f(s["precision"]), _f(s["recall"]), _f(s["f1"]) + _ci(s["f1_ci"]),
                     _f(rl["f1"]), _f(t["precision"]), _f(t["recall"]) + _ci(t["recall_ci"]),
                     _f(t["f1"]), _f(row["dev_f1"])])
    lines += _table(["candidate", "type", "strict P", "strict R", "strict F1 [95% CI]",
                     "relaxed F1", "token P", "token R [95% CI]", "token F1", "dev F1"], rows)
    if ev.get("together"):
        t = ev["together"]
        lines += ["", f"Every candidate together (the union of the {t['candidates']} candidates' "
                  f"spans, the most any choice among them could hide): token R "
                  f"{_f(t['token_recall'])}, P {_f(t['token_precision'])}; "
                  f"{t['notes_leaking']} of {t['notes_with_identifiers']} notes with identifiers "
                  "leak one."]
    best = next(row for row in ev["rows"] if row["selected"])
    lines += ["", f"Per label ({best['name']}):", ""]
    # Token R: the label's identifier tokens hidden under any label (which kinds leak);
    # results written before it was measured show "-".
    rows = [[label, v["support"], _f(v["strict"]["precision"]), _f(v["strict"]["recall"]),
             _f(v["strict"]["f1"]), _f(v["relaxed"]["f1"]),
             _f(v["token"]["recall"]) + f" ({v['token']['missed']} missed)" if "token" in v else "-"]
            for label, v in best["per_label"].items() if v["support"] or v["strict"]["fp"]]
    lines += _table(["label", "support", "strict P", "strict R", "strict F1", "relaxed F1",
                     "token R"], rows)
    p = best["privacy"]
    lines += ["", f"Privacy ({best['name']}): {p['missed_identifiers']} gold identifiers "
              f"missed entirely; notes with a missed identifier: {p['notes_with_missed']}"
              f"/{ev['notes']} ({p['notes_with_missed_share']:.1%}).", "",
              "Training:", ""]
    lines += _training(tr["members"])
    return lines + _targets(rec)


def render_learning(rec: dict) -> list[str]:
    r = rec["results"]
    lines = _header(rec)
    test = r["test"] or {}
    lines.append(f"Selected candidate scored on the held-out notes ({test.get('notes')} notes, "
                 f"{test.get('spans')} spans); the next notes chosen at random or by the "
                 "models' uncertainty (see `app/bench/learning.py`).")
    lines.append("")
    rows = [[p.get("order", "random"), p.get("identified_notes", p["train_notes"]),
             p["train_notes"], p["dev_notes"], p["selected"],
             _f(p["strict"]["f1"]) + _ci(p["strict"]["f1_ci"]), _f(p["relaxed"]["f1"]),
             _f(p["token"]["recall"]) + _ci(p["token"]["recall_ci"]), _f(p["token"]["precision"]),
             _f(p["seconds"], 1)]
            for p in r["points"]]
    lines += _table(["order", "notes with identifiers", "annotated notes", "dev notes",
                     "selected", "strict F1 [95% CI]", "relaxed F1", "token R [95% CI]",
                     "token P", "training s"], rows)
    return lines + _targets(rec)


def render_speed(rec: dict) -> list[str]:
    r = rec["results"]
    c, b = r["corpus"], r["baseline"]
    lines = _header(rec)
    lines += [f"Text: {c['notes']} held-out synthetic notes, {c['chars']:,} chars, "
              f"{c['segments']:,} segments, {c['tokens']:,} tokens. Baseline ({b['what']}): "
              f"**{_rate(b['chars_per_s'])} chars/s** (median of {len(b['seconds'])}). "
              "Ratio = throughput / baseline throughput.", ""]
    for dev, d in r["devices"].items():
        lines += [f"{dev.upper()} (models loaded in {d['load_s']} s; RSS after loading "
                  f"{_f(d['rss_mb_loaded'], 0)} MB). Members: baseline + tagging + decoding; "
                  "ensembles: baseline + their members' tagging + combining + decoding:", ""]
        gpu = dev == "cuda"
        rows = [[row["name"], row["type"], _rate(row["chars_per_s"]), _f(row["ratio"], 4),
                 _f(row["peak_rss_mb"], 0)] + ([_f(row["gpu_peak_mb"], 0)] if gpu else [])
                + [len(row["members"])] for row in d["rows"]]
        lines += _table(["model", "type", "chars/s", "ratio", "peak RSS MB"]
                        + (["GPU peak MB"] if gpu else []) + ["members"], rows)
        lines += ["", "End to end through `Predictor.predict` (read + segment + members + "
                  "ensemble + spans):", ""]
        lines += _table(["what", "model", "chars/s", "ratio"],
                        [[k, e["name"], _rate(e["chars_per_s"]), _f(e["ratio"], 4)]
                         for k, e in d["end_to_end"].items()])
        lines.append("")
    h = r["find_hits"]
    lines += [f"Raw rule matcher (`app.rules.find_hits`, read + match, no tokenising): "
              f"{_rate(h['chars_per_s'])} chars/s (ratio {_f(h['ratio'], 3)}).", "",
              "Training (wall time per member, peak RSS of the process while it trained, "
              "saved size):", ""]
    tr = r["train"]
    lines += _training(tr["members"])
    docs = tr.get("documents") or {}
    lines += ["", f"Trained on {docs.get('train')} train / {docs.get('dev')} dev notes; "
              f"whole training step (members + ensembles + selection) {tr['seconds']} s.", "",
              "Cost growth (end to end; exponent k of time ~ size^k between 1x and 16x; "
              "k = 1 is linear; 'linear' means k <= 1.15):", ""]
    rows = []
    for what, g in r["growth"].items():
        pts = {p["factor"]: p for p in g["points"]}
        rows.append([what, g["name"]] + [f"{_rate(pts[f]['chars_per_s'])} ({pts[f]['notes']} notes)"
                                         for f in sorted(pts)]
                    + [_f(g["exponent"], 2), "yes" if g["linear"] else "no"])
    lines += _table(["what", "model", "1x chars/s", "4x chars/s", "16x chars/s", "k",
                     "linear"], rows)
    o = r["project_open"]
    lines += ["", f"Project open: {o['notes']:,} notes ({o['file_mb']} MB file, created in "
              f"{o['create_s']} s): `Project.open` + `count_documents` + first page of "
              f"`document_infos` ({o['first_page_rows']} rows) in **{_f(o['median_s'], 3)} s** "
              f"(median of {len(o['open_s'])}, warm file cache)."]
    if "scale" in r:
        lines += [""] + scale_lines(r["scale"])
    return lines + _targets(rec)


def scale_lines(sc: dict) -> list[str]:
    """The jobs table: throughput as a ratio to plain file copy in the same run."""
    b, f = sc["copy"], sc["fsync"]
    lines = [f"Jobs (`deid annotate` / `deid redact --strategy surrogate`, read + predict "
             f"[+ redact + leak scan] + write, workers started and models loaded inside the "
             f"time). Baseline: {b['what']}, **{_rate(b['chars_per_s'])} chars/s** (median of "
             f"{len(b['seconds'])}); ratio = job throughput / copy throughput:", ""]
    lines += _table(["job", "how", "notes", "s", "chars/s", "ratio to copy", "x before",
                     "steady chars/s", "CPU s", "chars/CPU s"],
                    [[r["job"], r["how"], r["notes"], r["seconds"], _rate(r["chars_per_s"]),
                      f"{r['ratio']:.3g}", r["speedup"], _rate(r.get("steady_chars_per_s")),
                      r.get("cpu_s", "-"), _rate(r.get("chars_per_cpu_s"))]
                     for r in sc.get("jobs", [])])
    lines += ["", "Steady: from the first note written to the last (workers started, model "
              "loaded and set-up done), what a long job runs at. CPU s: of the job's "
              "processes together (this one and its workers), whatever else the machine ran."]
    ms = f["ms_per_note"]
    lines += ["", f"Per-file fsync ({f['notes']} notes, {f['files_per_note']} files each, "
              f"atomic writes): {ms['fsync per file']} ms a note with an fsync per file, "
              f"{ms['one sync at the end']} ms with none and one `syncfs` at the end: "
              f"**{f['saved_ms_per_note']} ms saved per note** (the manifest, fsynced once a "
              f"batch, holds the outputs' hashes; a resume redoes an output a crash lost)."]
    return lines


def render_cluster(rec: dict) -> list[str]:
    from app.bench.scale import projection_lines
    r = rec["results"]
    b = r["copy"]
    lines = _header(rec)
    lines += [f"Notes: {r['chars']:,} chars. Dask scheduler and single-threaded workers, "
              f"each a process of its own, on 127.0.0.1 (no dashboard), "
              f"warm (a first run loaded the model). "
              f"Baseline: {b['what']}, {_rate(b['chars_per_s'])} chars/s.", ""]
    lines += _table(["job", "workers", "notes", "s", "chars/s", "ratio to copy",
                     "client CPU s", "steady chars/s", "client steady chars/CPU s",
                     "workers CPU s", "chars/worker CPU s"],
                    [[x["job"], x["workers"], x["notes"], x["seconds"], _rate(x["chars_per_s"]),
                      f"{x['ratio']:.3g}", x["client_cpu_s"], _rate(x.get("steady_chars_per_s")),
                      _rate(x.get("steady_client_chars_per_cpu_s")),
                      x.get("workers_cpu_s", "-"), _rate(x.get("worker_chars_per_cpu_s"))]
                     for x in r["rows"]])
    by = {(x["job"], x["workers"]): x["chars_per_s"] for x in r["rows"]}
    for job in ("annotate", "redact"):
        if (job, 1) in by and (job, 2) in by:
            lines += ["", f"Scaling, {job}: 2 workers / 1 worker = "
                      f"{by[(job, 2)] / by[(job, 1)]:.2f}x on this 2-core machine."]
    if r.get("worker_rss_mb"):
        lines += ["", f"Each worker (one thread, the model and the leak scan's members loaded, "
                  f"after redacting): {r['worker_rss_mb']:,.0f} MB resident."]
    lines += ["", "Projection, `deid redact`, 1,000,000 notes on 10 nodes x 16 cores:", ""]
    return lines + projection_lines(r["projection"])


def render_folds(rec: dict) -> list[str]:
    r = rec["results"]
    lines = _header(rec)
    lines += ["", "The patients outside our dev split are dealt into the folds; each fold's "
              "patients are its test notes, and the run splits every other patient's notes "
              "(our dev patients' too) into train and dev as a user's would. No fold holds a "
              "dev patient, whose notes English rules were written from.", ""]
    rows = [[str(f["fold"]), f["name"],
             _f(f["token_recall"]) + _interval(f.get("token_recall_ci")),
             _f(f["token_precision"]), _f(f["strict_f1"]),
             f"{f['notes_leaking']} of {f['notes_with_identifiers']}", _showing(f),
             _together(f), f["train_seconds"]]
            for f in r["folds"]]
    for key, words in (("mean", "mean of every fold"),):
        if r.get("only") is not None:
            break                    # one fold run alone: no mean of every fold
        m = r[key]
        rows.append([words, "", _f(m["token_recall"]) + _interval(m.get("token_recall_ci")),
                     _f(m["token_precision"]) + _interval(m.get("token_precision_ci")),
                     _f(m["strict_f1"]), f"{m['notes_leaking']} of {m['notes_with_identifiers']}",
                     _showing(m), _together(m), ""])
    lines += _table(["fold", "selected", "token R", "token P", "strict F1",
                     "notes leaking", "notes showing a word",
                     "every candidate together: token R / P, leaking", "training s"], rows)
    if any(f.get("token_recall_ci") for f in r["folds"]):
        lines += ["", "In brackets: 95 % intervals over the test patients (each fold's patients "
                  "drawn again with replacement)."]
    if any(f.get("notes_showing_a_word") is not None for f in r["folds"]):
        lines += ["", "Notes leaking: a gold identifier none of whose words is hidden. Notes "
                  "showing a word: an identifier word (a letter or digit) left uncovered, the "
                  "half of a name a partial span leaves too."]
    if any(f.get("together") for f in r["folds"]):
        lines += ["", "Every candidate together: the union of every candidate's spans on the "
                  "fold's test notes, the most that any choice among the run's candidates "
                  "could hide. Below a target, no selection reaches it: the members must find "
                  "more."]
    return lines


def _showing(f: dict) -> str:
    """Notes showing an identifier word; "-" for a record written before."""
    n = f.get("notes_showing_a_word")
    return "-" if n is None else str(n)


def _together(f: dict) -> str:
    """A fold's (or the mean's) every-candidates-together figures; "-" for a
    record written before they were measured."""
    t = f.get("together")
    if not t:
        return "-"
    return f"{_f(t['token_recall'])} / {_f(t['token_precision'])}, {t['notes_leaking']}"


def _interval(bounds) -> str:
    """`` [low, high]`` of a 95 % interval, or nothing for a record without one."""
    if not bounds:
        return ""
    return f" [{bounds[0]:.3f}, {bounds[1]:.3f}]"


_RENDER = {"accuracy": render_accuracy, "folds": render_folds, "learning-curve": render_learning, "speed": render_speed,
           "cluster": render_cluster}


def section_body(rec: dict) -> str:
    body = "\n".join(_RENDER[rec["part"]](rec))
    return body + f"\n\n<!-- targets-json: {json.dumps(rec['targets'])} -->"


def title(rec_id: str) -> str:
    """A record's section title; a fold run alone (``...-foldK``) is named so."""
    m = re.fullmatch(r"(.*)-fold(\d+)", rec_id)
    if m and m.group(1) in TITLES:
        return f"{TITLES[m.group(1)]}: fold {m.group(2)} alone"
    return TITLES.get(rec_id, rec_id)


def render_record(rec: dict) -> str:
    """The standalone Markdown file of one record."""
    return f"## {title(rec['id'])}\n\n{section_body(rec)}\n"


_INTRO = """# Benchmarks

Every figure below is produced by `python -m app.bench` and rewritten by
`python -m app.bench report` from the JSON files in `bench-out/`; do not edit
the text between the `bench:` markers by hand. Each section names the exact
command, the date, the machine, the training budget and the models, so a
figure is only ever compared with one of the same budget on the same kind of
machine. Targets are reported as measured, pass or miss.

## How to reproduce

```
python -m app.bench speed --budget quick --write-md
python -m app.bench accuracy --corpus synthetic --budget quick --write-md
python -m app.bench accuracy --corpus meddocan --budget standard --write-md   # hours on 2 cores
python -m app.bench accuracy --corpus physionet --budget standard --write-md  # English ICU notes
python -m app.bench accuracy --corpus physionet --folds 5 --budget standard  # ~1 hour; --lists
python -m app.bench accuracy --corpus physionet --folds 5 --fold 3 --budget standard  # one fold
python -m app.bench learning-curve --budget standard --write-md               # hours on 2 cores
python -m app.bench learning-curve --corpus physionet --budget quick --write-md
python -m app.bench all --budget standard                                     # everything + report
python -m app.bench report                                                    # BENCHMARKS.md from bench-out/
python -m app.bench.familiarity                                               # notes unlike the annotated (seconds)
python -m app.bench.familiarity --loop                                        # which of them to annotate first (minutes)
```

Run a long benchmark from a checkout no one edits (`git worktree add ../bench-tree HEAD`):
it imports modules as it goes, and an edit landing mid-run stopped one.

Options: `--models spacy stanza flair crf rules` (default: what a default `deid train`
trains on the machine: `crf rules starter` on a CPU, every kind with a GPU), `--out DIR`
(default `bench-out/`, git-ignored), `--seed N`, `--smoke` (tiny data, for
tests). MEDDOCAN is read from `../shared/data/meddocan` or `$DEID_MEDDOCAN`,
the PhysioNet deid notes from `../shared/data/physionet-deid` or
`$DEID_PHYSIONET` (patients numbered 1 modulo 5 are the held-out dev split;
the run splits the others into train and dev by patient).
Synthetic accuracy: train/dev generated with seed 1101, test with seed 2202
(never seen in training), half en_AU and half en_US.
"""


def _section(rec_id: str, body: str) -> str:
    return f"## {TITLES.get(rec_id, rec_id.title())}\n\n<!-- bench:{rec_id} -->\n{body}\n<!-- /bench:{rec_id} -->\n"


def _template() -> str:
    parts = [_INTRO, "## Targets\n\n<!-- bench:targets -->\n_no figures yet_\n<!-- /bench:targets -->\n"]
    parts += [_section(rec_id, "_not run yet_") for rec_id in PART_IDS]
    return "\n".join(parts)


def _replace(text: str, rec_id: str, body: str) -> str:
    pattern = re.compile(rf"(<!-- bench:{re.escape(rec_id)} -->\n).*?(\n<!-- /bench:{re.escape(rec_id)} -->)",
                         re.S)
    if pattern.search(text):
        return pattern.sub(lambda m: m.group(1) + body + m.group(2), text)
    return text.rstrip("\n") + "\n\n" + _section(rec_id, body)


def _targets_summary(text: str) -> str:
    rows, seen = [], set()
    for rec_id in PART_IDS:
        m = re.search(rf"<!-- bench:{rec_id} -->\n(.*?)\n<!-- /bench:{rec_id} -->", text, re.S)
        if not m:
            continue
        t = _TARGETS_RE.search(m.group(1))
        targets = json.loads(t.group(1)) if t else []
        seen.update(x["key"] for x in targets)
        for row in target_rows(targets):
            rows.append(row + [f"[{TITLES[rec_id]}](#{_anchor(TITLES[rec_id])})"])
    missing = [TARGETS[k].check(None, "no figures yet") for k in TARGETS if k not in seen]
    rows += [row + ["-"] for row in target_rows(missing)]
    return "\n".join(_table(["target", "wanted", "measured", "", "conditions", "section"], rows))


def _anchor(title: str) -> str:
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def update_benchmarks(path: Path, records: list[dict]) -> Path:
    """Rewrite the sections of ``path`` (created if missing) that ``records`` cover."""
    text = path.read_text(encoding="utf-8") if path.is_file() else _template()
    for rec in records:
        text = _replace(text, rec["id"], section_body(rec))
    text = _replace(text, "targets", _targets_summary(text))
    path.write_text(text, encoding="utf-8")
    return path
