"""Frozen entry of `deid-studio` (same as [project.gui-scripts] in pyproject.toml)."""
import sys

from app.gui.main import main

sys.exit(main())
