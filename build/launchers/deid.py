"""Frozen entry of `deid` (same as [project.scripts] in pyproject.toml)."""
import sys

from app.cli.main import main

sys.exit(main())
