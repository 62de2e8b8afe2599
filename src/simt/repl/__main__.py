"""`python -m simt.repl`: the REPL (also `simt repl`)."""

import sys

from .console import main

sys.exit(main(sys.argv[1:]))
