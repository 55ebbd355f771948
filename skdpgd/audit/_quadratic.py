r"""The exact case: a private mean by noisy gradient descent on the quadratic loss.

Per-example loss :math:`\ell(\theta; x) = \tfrac12\|\theta - x\|^2` on rows clipped to
norm R (``data_norm``). The objective :math:`F_D(\theta) = \tfrac12\|\theta - \bar x\|^2
+ \text{const}` is 1-strongly convex and 1-smooth (lam = beta = 1), the replace-one
gradient sensitivity is :math:`S = \sup\|x - x'\| = 2R`, and noisy GD

.. math::

    \theta_{k+1} = \theta_k - \eta\,(\theta_k - \bar x + \sigma Z_k), \qquad \theta_0 = 0,

has Gaussian iterates, so Bok, Su and Altschuler (ICML 2024), Theorem 4.2 (bound (A) of
docs/theory.md#bound-a) is *exact* here: with c = abs(1 - eta) and the neighbours x = -x' on the
sphere, the two laws of :math:`\theta_K` are Gaussians with a common covariance
:math:`\eta^2\sigma^2\frac{1-c^{2K}}{1-c^2} I` and means :math:`\eta\frac{S}{n}
\frac{1-c^K}{1-c}` apart, i.e. exactly

.. math::

    \mu_K = \frac{S}{n\sigma}\sqrt{\frac{1+c}{1-c}\cdot\frac{1-c^K}{1+c^K}}

(docs/theory.md#bound-a, the exactness check). An audit of this estimator with the gradient canary
and the projection statistic runs the optimal (Neyman-Pearson) test, so its lower bound
can approach the claimed epsilon: the measure of how tight the audit itself is.
"""

import numbers
from functools import lru_cache

import numpy as np
from sklearn.base import BaseEstimator

from .. import accounting
from ..optim import noisy_gradient_descent
from ..utils._sklearn_compat import Interval, Options, _fit_context, validate_data

__all__ = ["NoisyGDMean"]


@lru_cache(maxsize=256)
def _plan(epsilon, delta, data_norm, n_samples, learning_rate, n_steps):
    """(sigma, report) for the quadratic instance: public numbers only, cached."""
    constants = dict(
        sensitivity=2.0 * data_norm,
        n_samples=n_samples,
        learning_rate=learning_rate,
        strong_convexity=1.0,
        smoothness=1.0,
    )
    sigma = accounting.calibrate_noisy_gd(epsilon, delta, n_steps=n_steps, **constants)
    report = accounting.noisy_gd_report(
        sigma,
        n_steps,
        delta=delta,
        notes=("quadratic loss 0.5 ||theta - x||^2: bound (A) is exact",),
        **constants,
    )
    return sigma, report


def _generator(random_state):
    if isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        return random_state
    return np.random.default_rng(random_state)


class NoisyGDMean(BaseEstimator):
    r"""(epsilon, delta)-DP mean of rows clipped to ``data_norm``, by noisy GD (exact case).

    The instance on which the privacy bound is exact (module docstring): used to measure
    how close :func:`skdpgd.audit.audit_epsilon` gets to a claim that is known to be
    tight. Useful on its own as a private mean, though the closed-form Gaussian mechanism
    on the clipped mean is the simpler tool for that.

    Parameters
    ----------
    epsilon : float, default=1.0
        > 0; ``np.inf`` runs without noise.
    delta : float, default=1e-5
        In (0, 1/n).
    data_norm : float, default=1.0
        Public bound R; rows are scaled down to it (S = 2R).
    learning_rate : float, default=0.5
        eta in (0, 2); c = abs(1 - eta) < 1.
    max_iter : int, default=10
        K >= 1 noisy steps.
    random_state : int, Generator or None, default=None
        The noise source; None draws fresh OS entropy.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        theta_K, the private estimate of the clipped mean.
    n_features_in_ : int
    noise_std_ : float
    n_iter_ : int
    privacy_ : skdpgd.accounting.PrivacyReport

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgd.audit import NoisyGDMean
    >>> X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(1000, 2))
    >>> est = NoisyGDMean(epsilon=1.0, random_state=0).fit(X)
    >>> est.privacy_.epsilon <= 1.0
    True
    """

    def __init__(
        self,
        epsilon=1.0,
        *,
        delta=1e-5,
        data_norm=1.0,
        learning_rate=0.5,
        max_iter=10,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.data_norm = data_norm
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.random_state = random_state

    _parameter_constraints = {
        "epsilon": [Interval(numbers.Real, 0, None, closed="neither"),
                    Options(numbers.Real, {np.inf})],
        "delta": [Interval(numbers.Real, 0, 1, closed="neither")],
        "data_norm": [Interval(numbers.Real, 0, None, closed="neither")],
        "learning_rate": [Interval(numbers.Real, 0, 2, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False
        return tags

    def _forget_fit(self):
        for name in ("coef_", "n_features_in_", "noise_std_", "n_iter_", "privacy_"):
            self.__dict__.pop(name, None)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Release theta_K; every attribute is set only after the run completes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Dense, finite, at least 2 rows (n is public).
        y : None
            Ignored.

        Returns
        -------
        self : NoisyGDMean
            Fitted.
        """
        self._forget_fit()
        try:
            return self._fit(X)
        except BaseException:
            self._forget_fit()
            raise

    def _fit(self, X):
        n = X.shape[0] if hasattr(X, "shape") and len(X.shape) == 2 else None
        if n is not None and n < 2:
            raise ValueError(f"NoisyGDMean needs at least 2 rows, got 1 sample (shape {X.shape}).")
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        n, d = X.shape
        if not float(self.delta) < 1.0 / n:
            raise ValueError(
                f"delta must be in (0, 1/n_samples = {1.0 / n:.3g}), got {self.delta!r}."
            )
        eps, radius, k = float(self.epsilon), float(self.data_norm), int(self.max_iter)
        if radius == np.inf:
            raise ValueError(f"data_norm must be a finite public bound, got {self.data_norm!r}.")
        sigma, report = _plan(eps, float(self.delta), radius, n, float(self.learning_rate), k)
        norms = np.linalg.norm(X, axis=1)
        scale = np.minimum(1.0, radius / np.maximum(norms, np.finfo(float).tiny))
        mean = (X * scale[:, None]).mean(axis=0)  # per-row clipping, no privacy cost
        coef = noisy_gradient_descent(
            lambda theta: theta - mean,
            np.zeros(d),
            learning_rate=float(self.learning_rate),
            noise_std=sigma,
            n_steps=k,
            rng=_generator(self.random_state),
        )
        self.coef_ = coef
        self.noise_std_, self.n_iter_, self.privacy_ = sigma, k, report
        return self
