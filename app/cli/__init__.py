"""The `deid` command line: every GUI job, headless and scriptable."""
