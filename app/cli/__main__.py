"""``python -m app.cli ...`` = ``deid ...`` (for a checkout without the entry point)."""
import sys

from app.cli.main import main

if __name__ == "__main__":          # not when a spawned training worker imports it
    sys.exit(main())
