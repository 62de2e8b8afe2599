"""`python -m simt ...`: the same as the `simt` command."""

import sys

from .cli import main

sys.exit(main())
