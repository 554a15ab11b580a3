"""`python -m pipeline.cli ...`: the same as `rlaif ...` (main.py parses the command line; the
commands_*.py modules do the work)."""
import sys

from pipeline.cli.main import main

sys.exit(main())
