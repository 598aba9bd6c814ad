"""``python -m allfours`` = the ``allfours`` command."""

import sys

from allfours.cli import main

sys.exit(main())
