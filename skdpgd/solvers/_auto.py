"""``solver="auto"`` (the default): the solver, and through it every run parameter, from
public numbers.

The rule (see the user guide, "Solvers"):

* a fixed ``learning_rate`` is a plain gradient step: ``"gd"`` (``"cyclic"`` with a
  fixed ``batch_size``);
* otherwise, while the augmented design has at most ``MAX_DENSE_DIM`` columns,
  ``"preconditioned"``: its steps are invariant to any invertible linear map of the
  features (up to clipping and the noise floor), so it converges in a few passes on
  every preprocessing of the same table, where plain gradient steps with the public
  worst-case step need as many passes as the condition number of that preprocessing;
  its Gram pass and d x d eigendecomposition cost about d/k gradient passes;
* wider data: ``"cyclic"`` (mini-batches; the convergent bound pays there).

The report's notes name the choice and the reason.
"""

from dataclasses import replace

from ..optim._preconditioned import MAX_DENSE_DIM
from ._base import Solver
from ._registry import get

__all__ = ["AutoSolver", "choose"]


def choose(problem):
    """(solver name, reason) that ``"auto"`` picks for ``problem`` (public numbers only).

    Parameters
    ----------
    problem : PublicProblem
        The public numbers of the fit.

    Returns
    -------
    name, why : str
    """
    if problem.learning_rate is not None:
        return ("cyclic" if problem.batch_size is not None else "gd",
                "a fixed learning_rate is a plain gradient step")
    if problem.batch_size is not None:
        return "cyclic", "a fixed batch_size asks for mini-batches"
    if problem.gram_dim <= MAX_DENSE_DIM:
        return "preconditioned", (
            f"{problem.gram_dim} columns <= {MAX_DENSE_DIM}: the noisy Gram is affordable "
            "and makes the steps insensitive to the features' scaling"
        )
    return "cyclic", (
        f"{problem.gram_dim} columns > {MAX_DENSE_DIM}: too wide for a Gram "
        "preconditioner; mini-batches with the convergent bound"
    )


class AutoSolver(Solver):
    """``solver="auto"``: plans with the solver ``choose`` picks (module docstring)."""

    name = "auto"

    def _plan(self, problem):
        name, why = choose(problem)
        chosen = get(name)
        plan = chosen.plan(problem)
        return replace(plan, notes=plan.notes + (f"solver='auto' chose {chosen.name!r}: {why}",))
