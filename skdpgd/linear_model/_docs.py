"""The descriptions of the parameters every DP linear model shares, written once.

:class:`~skdpgd.DPLogisticRegression` and :class:`~skdpgd.DPRidge` take the parameters
of :class:`~skdpgd.linear_model._base.BaseDPLinearModel` (its
``_parameter_constraints``) with the same meaning. Their class docstrings name each of
them on a line of its own, ``{epsilon}``, which :func:`fill_shared_parameters` replaces
with the entry of :data:`SHARED_PARAMETERS` below, indented like the line; the class's
own parameters are written in its docstring. Both API pages, ``help()`` and the
numpydoc check therefore read one text.
"""

import re
import textwrap

__all__ = ["SHARED_PARAMETERS", "fill_shared_parameters"]

#: numpydoc entry of each parameter of BaseDPLinearModel, in the estimators' order.
SHARED_PARAMETERS = {
    "epsilon": """\
epsilon : float, default=1.0
    Privacy budget, > 0. ``np.inf`` runs the very same algorithm (clipping,
    regularisation, steps) without noise, to separate bias from noise.""",
    "delta": """\
delta : float or "auto", default="auto"
    ``"auto"`` is min(1e-5, 1/(10 n)). Must be below 1/n.""",
    "data_norm": """\
data_norm : float, default=1.0
    Public bound R on the Euclidean norm of a row of X; longer rows are scaled down
    to it before training (a per-row map, no privacy cost). Choose it from the
    data's public domain, never from the data. Must lie in [1e-12, 1e12] (as must a
    numeric ``intercept_scaling``): rescale X to use a bound outside that range.""",
    "fit_intercept": """\
fit_intercept : bool, default=True
    Append a constant column ``intercept_scaling`` to every row.""",
    "intercept_scaling": """\
intercept_scaling : float or "auto", default="auto"
    The constant b of that column; augmented rows have norm <= sqrt(R^2 + b^2).
    ``"auto"`` is b = data_norm * (k / n_features) ** (1/8), k the number of outputs
    (1 for a regression or two classes, the number of classes beyond), the b that
    minimises the planner's utility proxy over b
    (:func:`~skdpgd.linear_model._defaults.auto_intercept_scaling`); with
    ``inference=True`` it is b = data_norm / sqrt(n_features), the b that minimises the
    Hessian release's public noise ratio
    (:func:`~skdpgd.linear_model._defaults.inference_intercept_scaling`). The value
    used is ``intercept_scaling_``.""",
    "solver": """\
solver : {"auto", "preconditioned", "gd", "cyclic", "sgd"}, default="auto"
    ``"auto"``: the candidate with the smallest predicted excess loss (above; ``solver_``,
    every candidate's prediction in ``privacy_.notes``); a fixed ``learning_rate`` keeps
    ``"gd"``, a fixed ``batch_size`` ``"cyclic"``. ``"preconditioned"``: one noisy Gram
    release, then noisy full-batch steps preconditioned by it (a private fixed-Hessian
    method with momentum: the noisy Gram plus a margin, times the loss's curvature
    bound, majorises the Hessian with high probability; Bohning and Lindsay 1988),
    accounted by GDP composition (Dong, Roth, Su 2022, Cor. 3.3); up to 2000 columns,
    intercept included. ``"gd"``: full-batch noisy
    GD, Bok, Su and Altschuler (2024), Theorem 4.2. ``"cyclic"``: a fixed partition into
    l = ceil(n / batch_size) batches (from ``random_state`` and n only) visited in the
    same order every epoch, Theorem 4.5 of the same paper; fewer passes over X when n
    is large. ``"sgd"``: Poisson-sampled mini-batches (rate batch_size / n, sums over
    the fixed batch_size), accounted by the minimum of the bounds that apply
    (``pip install "skdpgd[sgd]"``; :doc:`/sgd_bounds`); its report has (epsilon,
    delta) and no ``mu``, and a ``ledger`` composes it by PLD.""",
    "batch_size": """\
batch_size : int or "auto", default="auto"
    Rows per batch for ``solver="cyclic"``, expected rows per batch for ``"sgd"``
    (ignored by ``"gd"``; for ``"sgd"``, ``"auto"`` tries sampling rates from 0.001 to
    0.5). ``"auto"`` tries l in {1, 2, 4, ..., 64} batches and keeps the best by the
    public proxy (:func:`skdpgd.solvers.plan_noisy_cyclic_gd`); the value used is
    ``batch_size_`` (the smallest batch, which the bound uses).""",
    "sampling": """\
sampling : {"poisson", "uniform"}, default="poisson"
    How ``solver="sgd"`` draws its batches (refused with any other solver).
    ``"poisson"``: every row independently with probability batch_size / n, accounted by
    composition (PLD). ``"uniform"``: exactly batch_size distinct rows each step,
    uniformly without replacement, accounted by the smaller of composition for sampling
    without replacement (Wang, Balle, Kasiviswanathan 2019, Theorem 27) and Altschuler
    and Talwar (2022), eq. (3.3), a last-iterate bound on the ball the run projects onto
    (diameter 2 ``max_coef_norm``, or the default ball of radius sqrt(2 f_0 / lam)):
    past a burn-in of about D n / (L eta) steps, more steps cost no privacy. The noise is
    calibrated to that minimum and ``privacy_.binding_bound`` names the one that binds
    (:doc:`/sgd_bounds`).""",
    "max_iter": """\
max_iter : int or "auto", default="auto"
    The number of passes over the data, for every solver: full-batch steps for
    ``"gd"`` and ``"preconditioned"`` (plus the one Gram pass), epochs for ``"cyclic"``
    and ``"sgd"``. A number is run exactly (the noise is calibrated for it); ``"auto"``
    lets the planner choose up to 1000 (``"gd"``; 50 as a candidate of ``"auto"``), 100
    (``"preconditioned"``) or 50 (``"cyclic"``, ``"sgd"``). Under the convergent bounds
    steps past convergence cost no privacy; under composition every step does.""",
    "learning_rate": """\
learning_rate : float or "auto", default="auto"
    Step eta; ``"auto"`` is chosen by the planner among fractions of
    2/(beta + lam), the step that minimises the contraction factor.""",
    "ledger": """\
ledger : skdpgd.PrivacyLedger or None, default=None
    If given, every fit is recorded in it (and refused with
    ``PrivacyBudgetExceeded`` before touching the data if it would cross the
    ledger's cap). Clones share the ledger.""",
    "n_jobs": """\
n_jobs : int or None, default=None
    Threads for the gradient sums over row chunks (scikit-learn semantics: None
    means 1 unless a ``joblib.parallel_config`` says otherwise; -1 all cores).
    Under ``joblib.parallel_config(backend="dask")`` the chunks run on the Dask
    cluster. The fitted model is bit-identical for every n_jobs and backend.""",
    "random_state": """\
random_state : int, Generator, RandomState or None, default=None
    Source of the noise. None draws fresh OS entropy. A fixed seed makes the noise
    reproducible by anyone who knows it: use one for experiments, not for releases.""",
    "verbose": """\
verbose : int, default=0
    Print progress (steps done, time); nothing computed from the data is printed.""",
    "max_coef_norm": """\
max_coef_norm : float or None, default=None
    Public radius r of the ball every iterate is projected onto: the Euclidean norm of
    the parameter vector, coefficients and intercept column together (theta =
    (``coef_``, ``intercept_ / intercept_scaling_``); Frobenius over the classes), in
    [1e-12, 1e12]. With it the unregularised model (``C=np.inf`` / ``alpha=0``) is
    allowed, and the convex bounded-domain bounds (Bok, Su and Altschuler 2024, Theorem
    4.3 for full batches; bound (F) of the docs for cyclic batches; Altschuler and
    Talwar 2022 for ``sampling="uniform"``; diameter 2r) are reported when they beat
    the others. None: for lam > 0 the fit projects onto
    the ball of radius sqrt(2 f_0 / lam), which holds the regularised optimum (f_0 the
    public bound on the loss at 0: :ref:`projection`), so it changes no optimum.""",
}

_PLACEHOLDER = re.compile(r"^(?P<indent>[ ]*)\{(?P<name>\w+)\}$", flags=re.MULTILINE)


def fill_shared_parameters(cls):
    """Class decorator: replace each ``{name}`` line of the docstring by its entry.

    Parameters
    ----------
    cls : type
        A class whose docstring holds lines ``{name}``, name a key of
        :data:`SHARED_PARAMETERS` (any other name raises ``KeyError`` at import).

    Returns
    -------
    cls : type
        The same class, its ``__doc__`` filled (left as is when docstrings are
        stripped, ``python -OO``).
    """
    if cls.__doc__ is not None:
        cls.__doc__ = _PLACEHOLDER.sub(
            lambda match: textwrap.indent(
                SHARED_PARAMETERS[match["name"]], match["indent"]
            ),
            cls.__doc__,
        )
    return cls
