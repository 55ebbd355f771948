"""``python -m skdpgd [demo | account | fit] ...``; no arguments runs the demo.

See :mod:`skdpgd._cli` (the same entry point as the ``skdpgd`` console script).
"""

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
