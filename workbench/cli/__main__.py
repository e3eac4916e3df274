"""`python -m workbench.cli`: gewb from a checkout, without the installed script."""
import sys

from workbench.cli import main

sys.exit(main())
