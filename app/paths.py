"""The one module that knows where resources and user data live.

Source runs read ``resources/`` and ``models/`` at the repository root;
frozen (PyInstaller) runs read them beside the executable (``sys._MEIPASS``
for bundled data). Writable data always goes to the user data directory.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

APP_NAME = "DeID Studio"


def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def install_root() -> Path:
    """Folder holding ``resources/`` and ``models/``."""
    if is_frozen():
        return Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent))
    return Path(__file__).resolve().parents[1]


def resources_dir() -> Path:
    return install_root() / "resources"


def models_dir() -> Path:
    """Vendored weights (filled at build time, not in git)."""
    env = os.environ.get("DEID_MODELS_DIR")
    if env:
        return Path(env)
    if is_frozen():
        return Path(sys.executable).parent / "models"
    return install_root() / "models"


def sample_notes_dir() -> Path:
    return resources_dir() / "sample" / "notes"


def user_data_dir() -> Path:
    """Platform user data directory (created on demand)."""
    env = os.environ.get("DEID_USER_DIR")
    if env:
        base = Path(env)
    elif sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / APP_NAME
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support" / APP_NAME
    else:
        base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "deid-studio"
    base.mkdir(parents=True, exist_ok=True)
    return base


def set_offline_env() -> None:
    """Make every library we use refuse to reach a hub (idempotent)."""
    for key in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        os.environ[key] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
