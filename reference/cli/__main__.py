"""`python -m reference.cli`: the same as `loopkit`."""
import sys

from .main import main

sys.exit(main())
