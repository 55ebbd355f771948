"""Clear refusals of scikit-learn options that the privacy analysis does not cover.

Each check looks at parameters only (never at the data), so which error is raised is a
public fact; it runs before the ledger is charged and before any value is read.
"""

_SAMPLE_WEIGHT = (
    "{name}.fit does not take sample_weight: a weight w_i multiplies row i's gradient, so "
    "the replace-one sensitivity becomes max_i w_i times S and the accountant needs that "
    "maximum as a public bound; weights computed from the data (for example "
    "compute_sample_weight('balanced', y)) are statistics of the private data. "
    "DPLogisticRegression and DPRidge take sample_weight with their public bound "
    "max_sample_weight; for a person with several rows, aggregate the rows per person "
    "first (group privacy; see docs/privacy_model.md)."
)

_WARM_START = (
    "warm_start=True is refused: starting from a previous fit's coefficients makes the "
    "new run depend on that fit's data, and the bound (Bok, Su, Altschuler 2024, Theorem "
    "4.2) assumes a start that does not depend on the data. Fit again from scratch; every "
    "fit on the same data costs privacy (compose them with skdpgd.PrivacyLedger)."
)


def refuse_fit_params(name, fit_params):
    """Raise a ``TypeError`` that says why a fit parameter (``sample_weight``, ...) is refused."""
    if not fit_params:
        return
    if "sample_weight" in fit_params:
        raise TypeError(_SAMPLE_WEIGHT.format(name=name))
    raise TypeError(
        f"{name}.fit got unexpected keyword argument(s) {sorted(fit_params)}; it takes X, y "
        "and sample_ids (public row identifiers for a ledger)."
    )


def refuse_warm_start(warm_start):
    """Raise a ``ValueError`` when ``warm_start`` is true, with the reason."""
    if warm_start:
        raise ValueError(_WARM_START)


def refuse_private_classes(classes):
    """Refuse ``classes="private"`` outside a DP pipeline (a public fact, before the charge)."""
    if isinstance(classes, str):
        raise ValueError(  # a wrong value of the parameter, as sklearn's
            "classes='private' asks a DPPipeline to release the label set under its "
            "budget; a standalone DPLogisticRegression needs the public label set "
            "(classes=[...]) or None (read from y, outside the guarantee).")


#: The samplers of ``solver="sgd"`` (``sampling=``); every other solver runs no sampler.
SAMPLINGS = ("poisson", "uniform")


def public_sampling(solver, sampling):
    """``sampling`` for the fit's problem; refuse it with any solver but ``"sgd"``.

    ``"uniform"`` (fixed-size batches) is a sampler of the sampled loop only: a
    full-batch, cyclic or preconditioned run draws no batches, and ``"auto"`` chooses
    among runs whose accountants assume none, so the parameter would be silently
    ignored. A public fact, raised while planning (before the charge, before any value
    is read).
    """
    if sampling != "poisson" and solver != "sgd":
        raise ValueError(
            f"sampling={sampling!r} draws fixed-size batches for solver='sgd' only (got "
            f"solver={solver!r}); pass solver='sgd', or keep sampling='poisson' (the "
            "default, which every other solver ignores)."
        )
    return sampling


def refuse_public_parameters(estimator, n_samples):
    """lam of the fit, after the refusals its parameters alone decide (no value read).

    An estimator method (``_refuse_public_parameters``): the fit's planning calls it, and a
    DPPipeline calls it before its ledger's charge. Refused: ``sampling`` with a solver
    other than ``"sgd"`` (:func:`public_sampling`), and lam = 0 (``C=np.inf``,
    ``alpha=0``) without ``max_coef_norm``.
    """
    public_sampling(estimator.solver, estimator.sampling)
    lam = estimator._strong_convexity(n_samples)
    if lam == 0.0 and estimator.max_coef_norm is None:
        raise ValueError(
            f"{type(estimator).__name__}: an unregularised fit (lam = 0: C=np.inf or "
            "alpha=0) needs a bounded domain: pass max_coef_norm, the public radius of the "
            "ball of the coefficients and intercept (docs/theory.md#projection), or a "
            "finite regularisation (C, alpha or 'auto')."
        )
    return lam
