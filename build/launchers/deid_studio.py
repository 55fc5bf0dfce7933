"""Frozen entry of `deid-studio` (same as [project.gui-scripts] in pyproject.toml)."""
import multiprocessing
import sys

from app.gui.main import main

# Training workers (deid train --jobs) are spawned processes: in the frozen
# executable they start by re-running this entry, which must hand over here.
multiprocessing.freeze_support()
sys.exit(main())
