"""``python -m ireec``: the same as the ``ireec`` command."""
import sys

from .cli import main

sys.exit(main())
