"""On-demand robustness probe (not collected by pytest; a few minutes).

1. The bad-input corpus (bad_inputs.py) through ``deid import`` (named
   format and auto-detection), ``deid redact --rules-only`` and ``deid
   export``: counts of runs, exit codes, and control notes lost.
2. ``kill -9`` at random moments of ``deid new``, ``import``, ``train``
   (CRF + rules, quick), ``redact`` (rules only) and ``export`` of 120
   synthetic notes: after each kill, is the
   project file whole (``integrity_check``; counted apart, for import: does
   the file alone hold what the full open holds, or is the last save still
   only in the ``-wal``), is the work kept (a re-run completes it), and is
   any file holding an identifier of the notes left behind (private temp
   folders after the next command, hidden files in output folders, the
   system temp folder)?

3. File names: notes whose file names hold their patient's name through
   ``deid redact`` (``--naming same``, with a report), ``deid audit`` and
   ``deid export``: every name written anywhere (outputs, reports, review
   files, the user-data and system temp folders) is checked for the
   identifiers of the notes.

Counts as issue 35's Done-when asks: inputs tried, clear errors (exit 1
with one ``deid: error:`` line), exit 2, hangs (no exit within
``--hang-s``), silently wrong (an import that exits 0 having neither taken
nor named the odd file), data lost (the control note), leftovers holding
identifiers and orphan processes after ``kill -9`` (processes the killed
command started, however deep, found by a mark in their environment
(``processes.py``), alive 60 s later), and file names holding a known
identifier. Every command's system temp folder is the probe's own
(``TMPDIR``): nothing else on the machine counts as a leftover.

Every command runs as a subprocess of the code under ``--code`` (default:
this checkout), so the same probe measures an older checkout too::

    python tests/services/probe_robustness.py [--code DIR] [--kills N] [--seed S]
        [--skip-bad-inputs] [--skip-kills] [--skip-names] [--hang-s S]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


sys.path.insert(0, str(Path(__file__).parent))
from bad_inputs import CASES, CONTROL_TEXT, write_case  # noqa: E402
from processes import TAG_VAR, survivors  # noqa: E402

HERE = Path(__file__).resolve().parents[2]
N_NOTES = 120          # notes of the kill -9 probes (synthetic)
HANG = -1000           # the exit code of a command that did not end in time
ORPHAN_WAIT_S = 60     # how long the children of a killed command may take to end


def clear_error(code: int, err: str) -> bool:
    """Exit 1 with one ``deid: error:`` line and no traceback."""
    lines = [line for line in err.strip().splitlines() if line.startswith("deid: error:")]
    return code == 1 and len(lines) == 1 and "Traceback" not in err


def _skipped(out: str) -> int:
    m = re.search(r"(\d+) files? skipped", out)
    return int(m.group(1)) if m else 0


class Runner:
    """Runs the CLI of ``code`` with ``user`` as the user-data folder and
    ``systmp`` as the system temp folder (``TMPDIR``): what the probe finds
    there was written by its commands, not by anything else on the machine
    (another user's benchmark once counted as a leftover of a kill)."""

    def __init__(self, code: Path, user: Path, systmp: Path) -> None:
        systmp.mkdir(parents=True, exist_ok=True)
        self.systmp = systmp
        self.env = {**os.environ, "PYTHONPATH": str(code), "DEID_USER_DIR": str(user),
                    "TMPDIR": str(systmp),
                    "QT_QPA_PLATFORM": "offscreen", "HF_HUB_OFFLINE": "1",
                    "TRANSFORMERS_OFFLINE": "1"}
        self.code = code

    def cmd(self, *args) -> list[str]:
        return [sys.executable, "-m", "app.cli.main", "-q", *map(str, args)]

    hang_s = 600.0

    def run(self, *args, timeout: float | None = None) -> tuple[int, str]:
        code, _, err = self.run_out(*args, timeout=timeout)
        return code, err

    def run_out(self, *args, timeout: float | None = None) -> tuple[int, str, str]:
        """Exit code, stdout and stderr; a command still running after
        ``timeout`` (default ``hang_s``) is a hang: its whole process group
        is killed and the code is ``HANG``."""
        p = subprocess.Popen(self.cmd(*args), cwd=self.code, env=self.env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout or self.hang_s)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            return HANG, out, err
        return p.returncode, out, err

    def start(self, *args, tag: str = "") -> subprocess.Popen:
        """The command in the background; ``tag`` marks its environment, which
        every process it starts inherits (``processes.tagged``)."""
        env = {**self.env, TAG_VAR: tag} if tag else self.env
        return subprocess.Popen(self.cmd(*args), cwd=self.code, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def control_kept(project: Path, fmt: str) -> bool:
    db = sqlite3.connect(f"file:{project}?mode=ro", uri=True)
    try:
        if fmt == "conll":
            return db.execute("SELECT count(*) FROM documents WHERE name LIKE 'control%'"
                              ).fetchone()[0] >= 1
        return db.execute("SELECT count(*) FROM documents WHERE text = ?",
                          (CONTROL_TEXT,)).fetchone()[0] == 1
    finally:
        db.close()


def probe_bad_inputs(r: Runner, work: Path) -> dict:
    corpus = work / "corpus"
    codes: Counter = Counter()
    lost, exit2, hangs, wrong, runs, clear = [], [], [], [], 0, 0

    def count(what: str, code: int, err: str) -> None:
        nonlocal runs, clear
        runs += 1
        codes[code] += 1
        clear += clear_error(code, err)
        if code == 2:
            exit2.append(what)
        if code == HANG:
            hangs.append(what)

    for case in sorted(CASES):
        folder, fmt = write_case(case, corpus)
        odd = [p for p in folder.rglob("*") if not p.name.startswith("control.")
               and (p.is_file() or p.is_symlink())]
        for variant in ("named", "auto"):
            proj = work / f"{case}-{variant}.deid"
            r.run("new", proj)
            args = ["import", proj, folder] + (["--format", fmt]
                                               if variant == "named" and fmt != "auto-none" else [])
            code, out, err = r.run_out(*args)
            count(f"import/{variant} {case}", code, err)
            if fmt != "auto-none" and (code != 0 or not control_kept(proj, fmt)) \
                    and not (variant == "auto" and code == 1):
                lost.append(f"import/{variant} {case}")
            # Silently wrong: exit 0, the odd file(s) neither imported nor named.
            if code == 0 and odd and fmt != "auto-none" \
                    and _count(proj, "documents") <= 1 and not _skipped(out + err):
                wrong.append(f"import/{variant} {case}")
        proj = work / f"{case}-named.deid"
        code, err = r.run("export", proj, work / "exp" / case, "--format", "jsonl")
        count(f"export {case}", code, err)
        if fmt in ("txt", "brat"):
            code, err = r.run("redact", proj, folder, work / "red" / case, "--rules-only",
                              "--report", work / "rep" / case / "r.json")
            count(f"redact {case}", code, err)
            out = work / "red" / case / "control.txt"
            if code != 0 or not out.is_file():
                lost.append(f"redact {case}")
    return {"cases": len(CASES), "runs": runs, "exit_codes": dict(sorted(codes.items())),
            "clear_errors": clear, "exit_2": exit2, "hangs": hangs, "silently_wrong": wrong,
            "data_lost": lost}


def _integrity(path: Path) -> bool:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    except sqlite3.DatabaseError:
        return False
    finally:
        db.close()


def _count(path: Path, table: str) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    except sqlite3.DatabaseError:
        return -1
    finally:
        db.close()


def _alone_copy_count(path: Path, table: str, scratch: Path) -> int:
    """Rows of ``table`` in a copy of the .deid file alone (as a user moves it)."""
    scratch.mkdir(parents=True, exist_ok=True)
    copy = scratch / "alone.deid"
    for f in scratch.glob("alone.deid*"):
        f.unlink()
    shutil.copyfile(path, copy)
    return _count(copy, table)


def identifiers_of(notes: Path) -> set[bytes]:
    found = set()
    for ann in notes.glob("*.ann"):
        for line in ann.read_text(encoding="utf-8").splitlines():
            parts = line.split("\t")
            if len(parts) == 3 and parts[0].startswith("T") and len(parts[2]) >= 6 \
                    and not parts[2].isdigit():
                found.add(parts[2].encode("utf-8"))
    return found


def leftovers(places: list[Path], idents: set[bytes], skip: set[Path]) -> list[str]:
    """Files under ``places`` (recursively) holding any identifier."""
    hits = []
    for place in places:
        if not place.exists():
            continue
        for root, _, files in os.walk(place):
            for fn in files:
                path = Path(root, fn)
                if path in skip or any(s in path.parents for s in skip):
                    continue
                try:
                    data = path.read_bytes()[:5_000_000]
                except OSError:
                    continue
                if any(i in data for i in idents):
                    hits.append(str(path))
    return hits


def probe_kills(r: Runner, work: Path, user: Path, kills: int, rng: random.Random,
                only: list[str] | None = None) -> dict:
    notes = work / "notes"
    r.run("synth", notes, "--n", str(N_NOTES), "--seed", "4", "--labels", "extended")
    idents = identifiers_of(notes)
    systmp = r.systmp
    base = work / "base.deid"
    r.run("new", base, "--labels", "extended")
    r.run("import", base, notes, "--patient-regex", r"^(P\d+)_")
    trained = work / "trained.deid"
    shutil.copyfile(base, trained)
    r.run("train", trained, "--models", "crf", "rules", "--budget", "quick", "--data", "balanced")
    results = {}
    plans = {
        "new": (lambda k: ["new", work / f"new{k}.deid", "--labels", "extended"], (0.2, 1.5)),
        "import": (lambda k: ["import", work / f"imp{k}.deid", notes], (0.8, 3.0)),
        "train": (lambda k: ["train", work / f"tr{k}.deid", "--models", "crf", "rules",
                             "--budget", "quick", "--data", "balanced"], (3.0, 12.0)),
        "redact": (lambda k: ["redact", trained, notes, work / f"red{k}", "--strategy",
                              "surrogate", "--patient-regex", r"^(P\d+)_", "--rules-only"],
                   (1.5, 5.0)),
        "export": (lambda k: ["export", trained, work / f"exp{k}", "--format", "brat"], (0.6, 2.0)),
        # With the trained model and worker processes (orphans, model folders).
        "redact-model": (lambda k: ["redact", trained, notes, work / f"rdm{k}", "--strategy",
                                    "surrogate", "--patient-regex", r"^(P\d+)_", "--workers", "2"],
                         (4.0, 10.0)),
    }
    for name, (make, (lo, hi)) in plans.items():
        if only and name not in only:
            continue
        whole = kept = left = orphans = tmp_left = wal_only = 0
        orphan_kinds: Counter = Counter()
        notes_left: list[str] = []
        for k in range(kills):
            if name == "import":
                r.run("new", work / f"imp{k}.deid", "--labels", "extended")
            if name == "train":
                shutil.copyfile(base, work / f"tr{k}.deid")
            args = make(k)
            tag = f"{name}-{k}-{os.getpid()}"
            before_tmp = set(systmp.iterdir())
            proc = r.start(*args, tag=tag)
            time.sleep(rng.uniform(lo, hi))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            # Workers and the resource tracker must end with the killed command.
            # A worker inside a long C call notices late on a loaded machine:
            # what still runs after ``ORPHAN_WAIT_S`` is an orphan.
            left_running = survivors(tag, ORPHAN_WAIT_S)
            orphans += len(left_running)
            orphan_kinds.update(left_running)
            project = {"new": work / f"new{k}.deid", "import": work / f"imp{k}.deid",
                       "train": work / f"tr{k}.deid", "redact": trained, "export": trained,
                       "redact-model": trained}[name]
            ok = True
            if project.exists():
                ok = _integrity(project)
                # Whole, but the last save still only in the -wal beside it (a
                # kill between a commit and the checkpoint after it): the next
                # open folds it in, a copy of the file alone would miss it.
                if ok and name == "import" and _alone_copy_count(
                        project, "documents", work / "scratch") != _count(project, "documents"):
                    wal_only += 1
            if name == "new" and project.exists():
                ok = ok and _count(project, "labels") == 11
            if name in ("redact", "redact-model"):
                out = work / f"{'red' if name == 'redact' else 'rdm'}{k}"
                for f in out.glob("*.txt") if out.exists() else []:
                    try:
                        f.read_text(encoding="utf-8")
                    except (OSError, UnicodeDecodeError):
                        ok = False
            whole += ok
            # Files holding an identifier once the next command has run (it
            # sweeps what a killed one left): private temp folders, what is new
            # in the (probe's own) system temp folder, hidden files in the output.
            r.run("doctor")
            out_dir = work / {"redact": f"red{k}", "export": f"exp{k}",
                              "redact-model": f"rdm{k}"}.get(name, "none")
            hidden = [p for p in out_dir.rglob(".*") if p.is_file()] if out_dir.exists() else []
            new_tmp = [p for p in systmp.iterdir() if p not in before_tmp]
            left_now = (leftovers([user / "tmp"], idents, set()) + leftovers(new_tmp, idents, set())
                        + [str(p) for p in hidden if any(i in p.read_bytes() for i in idents)])
            left += bool(left_now)
            notes_left += left_now
            # Work kept: the same command again finishes the job.
            again, err = r.run(*args) if name != "new" else (0, "")
            # ...and, ending normally, leaves no private folder behind.
            tmp_left += len([p for p in (user / "tmp").glob("deid-*")]) \
                if (user / "tmp").is_dir() else 0
            if name == "new":
                kept += (not project.exists()) or _count(project, "labels") == 11
            elif name == "import":
                kept += again == 0 and _count(project, "documents") == N_NOTES
            elif name == "train":
                kept += again == 0 and _count(project, "runs") >= 1
            elif name in ("redact", "redact-model"):
                kept += again == 0 and len(list(out_dir.glob("*.txt"))) == N_NOTES
            else:
                kept += again == 0 and len(list((work / f"exp{k}").glob("*.ann"))) == N_NOTES
        results[name] = {"kills": kills, "files_whole": whole,
                         "last_save_only_in_the_wal": wal_only, "work_kept": kept,
                         "kills_leaving_identifiers": left, "orphan_processes": orphans,
                         "orphans_by_kind": dict(orphan_kinds),
                         "private_folders_after_a_normal_run": tmp_left,
                         "examples": notes_left[:3]}
        print(name, json.dumps(results[name]), flush=True)
    return results


def probe_file_names(r: Runner, work: Path, user: Path, notes: Path, trained: Path) -> dict:
    """Notes named after their patient through redact (with a report),
    audit and export: how many names written anywhere hold an identifier."""
    named = work / "named"
    named.mkdir(parents=True)
    planted = set()
    for k, ann in enumerate(sorted(notes.glob("*.ann"))[:6]):
        people = [line.split("\t")[2] for line in ann.read_text(encoding="utf-8").splitlines()
                  if line.count("\t") == 2 and line.split("\t")[1].split()[0] in ("PERSON", "NAME")]
        person = next((p for p in people if len(p) >= 6 and " " in p), None)
        if person is None:
            continue
        planted.add(person.split()[-1].casefold())
        stem = ann.stem
        shutil.copyfile(ann.with_suffix(".txt"),
                        named / f"{stem.split('_')[0]}_{person.replace(' ', '_').upper()}_n{k}.txt")
    systmp = r.systmp
    before_tmp = set(systmp.iterdir())
    red, rep, exp = work / "red", work / "rep", work / "exp"
    codes = [r.run("redact", trained, named, red, "--report", rep / "r.json",
                   "--patient-regex", r"^(P\d+)_")[0],
             r.run("audit", trained, red, "--notes", "2")[0],
             r.run("export", trained, exp, "--format", "redacted")[0]]
    idents = {i.decode("utf-8").casefold() for i in identifiers_of(notes)} | planted
    idents |= {re.sub(r"\W+", "_", i) for i in idents}      # as a file name spells it
    written = [p for place in (red, rep, exp, user) if place.exists() for p in place.rglob("*")]
    written += [p for p in systmp.iterdir() if p not in before_tmp]
    hits = [str(p) for p in written if any(i in p.name.casefold() for i in idents)]
    return {"notes_named_after_their_patient": len(planted), "exit_codes": codes,
            "names_written": len(written), "names_holding_identifiers": len(hits),
            "examples": hits[:3]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--code", type=Path, default=HERE)
    ap.add_argument("--kills", type=int, default=3)
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--skip-kills", action="store_true")
    ap.add_argument("--skip-bad-inputs", action="store_true")
    ap.add_argument("--skip-names", action="store_true")
    ap.add_argument("--plans", nargs="+", default=None,
                    help="kill only these commands (new import train redact export redact-model)")
    ap.add_argument("--hang-s", type=float, default=300.0,
                    help="a command still running after this is a hang")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="probe-") as tmp:
        work, user = Path(tmp, "work"), Path(tmp, "user")
        work.mkdir()
        r = Runner(args.code.resolve(), user, Path(tmp, "systmp"))
        r.hang_s = args.hang_s
        report = {}
        if not args.skip_bad_inputs:
            report["bad_inputs"] = probe_bad_inputs(r, work / "bad")
            print(json.dumps(report, indent=2), flush=True)
        if not args.skip_kills:
            report["kill_9"] = probe_kills(r, work / "kill", user, args.kills,
                                           random.Random(args.seed), args.plans)
            print(json.dumps(report["kill_9"], indent=2), flush=True)
        if not args.skip_names:
            kill = work / "kill"
            if not (kill / "trained.deid").exists():
                raise SystemExit("--skip-kills also skips the file-name probe (it uses its project)")
            report["file_names"] = probe_file_names(r, work / "names", user, kill / "notes",
                                                    kill / "trained.deid")
            print(json.dumps(report["file_names"], indent=2), flush=True)


if __name__ == "__main__":
    main()
