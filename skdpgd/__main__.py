"""``python -m skdpgd``: run the demo (see :mod:`skdpgd._demo`)."""

from ._demo import run_demo

if __name__ == "__main__":
    run_demo()
