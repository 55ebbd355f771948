"""``solver="gd"``: full-batch noisy GD, the one-batch case of :mod:`skdpgd.solvers._cyclic`.

Accounted by Bok, Su and Altschuler (ICML 2024), Theorem 4.2 (convergent) / 4.1
(composition), exact for full batches; the report also gives what Chourasia, Ye and
Shokri (2021), Corollary 1, would claim. Up to ``AUTO_MAX_PASSES_FULL_BATCH`` passes.
"""

from ._cyclic import CyclicSolver

__all__ = ["gd_solver"]


def gd_solver():
    """The ``solver="gd"`` object: :class:`~skdpgd.solvers._cyclic.CyclicSolver` with l = 1.

    Returns
    -------
    CyclicSolver
    """
    return CyclicSolver(full_batch=True)
