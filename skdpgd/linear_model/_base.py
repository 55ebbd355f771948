"""Shared fit machinery of the DP linear models: validate, constants, calibrate, run, store.

The estimators stay thin (STYLE.md): a subclass supplies its loss, its targets and how
its hyperparameter maps to the strong convexity lam; everything about privacy goes
through :mod:`skdpgd.accounting`, and the inner loop (:mod:`skdpgd.optim`) never sees
epsilon.
"""

import math
import numbers
import time

import numpy as np
from sklearn.base import BaseEstimator
from threadpoolctl import threadpool_limits

from .. import accounting
from .._gradients import gradient_sum
from ..optim import noisy_gradient_descent
from ..utils._clipping import add_intercept_column, clip_rows
from ..utils._sklearn_compat import Interval, Options, StrOptions
from ..utils._validation import check_epsilon, make_generator, resolve_delta

#: Largest number of full-gradient steps "auto" plans for (a compute budget; the
#: privacy guarantee does not depend on it, since bound (A) saturates in K).
AUTO_MAX_STEPS = 1000


class BaseDPLinearModel(BaseEstimator):
    """Projected noisy gradient descent on an L2-regularised linear model (not public)."""

    _parameter_constraints = {
        "epsilon": [Interval(numbers.Real, 0, None, closed="neither"), Options(numbers.Real, {np.inf})],
        "delta": [Interval(numbers.Real, 0, 1, closed="neither"), StrOptions({"auto"})],
        "data_norm": [Interval(numbers.Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(numbers.Real, 0, None, closed="neither")],
        "solver": [StrOptions({"gd"})],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "learning_rate": [Interval(numbers.Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "n_jobs": [numbers.Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    # -- hooks for subclasses -------------------------------------------------------
    def _strong_convexity(self, n_samples):
        """lam from the user's C / alpha, or None for "auto" (abstract hook)."""
        raise NotImplementedError(f"{type(self).__name__} must define _strong_convexity")

    def _initial_distance(self, n_params, row_norm):
        """Public guess r0 of the norm of the optimum (abstract hook)."""
        raise NotImplementedError(f"{type(self).__name__} must define _initial_distance")

    # -- shared steps -------------------------------------------------------------
    def _design_matrix(self, X):
        """Clip rows to data_norm (a per-row map, DESIGN.md 2) and append the intercept column."""
        X = clip_rows(X, self.data_norm)
        if self.fit_intercept:
            X = add_intercept_column(X, self.intercept_scaling)
        return X

    def _row_norm_bound(self):
        """Rt = sqrt(R^2 + b^2), the public bound on augmented rows."""
        b = self.intercept_scaling if self.fit_intercept else 0.0
        return math.hypot(self.data_norm, b)

    def _plan(self, loss_constants, n_samples, n_params, epsilon, delta):
        """Choose lam, eta, K and sigma from public quantities only (DESIGN.md 4)."""
        sensitivity, beta_l, row_norm = loss_constants
        lam = self._strong_convexity(n_samples)
        auto_steps = self.max_iter == "auto"
        max_steps = AUTO_MAX_STEPS if auto_steps else int(self.max_iter)
        r0 = self._initial_distance(n_params, row_norm)
        common = dict(
            sensitivity=sensitivity, n_samples=n_samples, n_params=n_params,
            data_smoothness=beta_l, initial_distance=r0, max_steps=max_steps,
        )
        fixed_eta = None if self.learning_rate == "auto" else float(self.learning_rate)
        if fixed_eta is not None:
            self._check_learning_rate(fixed_eta, beta_l + (lam or 0.0))
        if lam is None:
            lam = accounting.plan_noisy_gd_regularization(
                epsilon, delta, learning_rate=fixed_eta, **common
            ).strong_convexity
        beta = beta_l + lam
        if fixed_eta is not None:
            self._check_learning_rate(fixed_eta, beta)
        if auto_steps:
            plan = accounting.plan_noisy_gd(
                epsilon, delta, strong_convexity=lam, learning_rate=fixed_eta, **common
            )
            n_steps, sigma, eta = plan.n_steps, plan.noise_std, plan.learning_rate
        else:
            n_steps = max_steps
            eta = 2.0 / (beta + lam) if fixed_eta is None else fixed_eta
            sigma = accounting.calibrate_noisy_gd(
                epsilon, delta, sensitivity=sensitivity, n_samples=n_samples,
                learning_rate=eta, strong_convexity=lam, smoothness=beta, n_steps=n_steps,
            )
        return lam, beta, eta, n_steps, sigma

    @staticmethod
    def _check_learning_rate(eta, smoothness):
        if not eta < 2.0 / smoothness:
            raise ValueError(
                f"learning_rate={eta!r} is >= 2/smoothness = {2.0 / smoothness:.6g}: gradient "
                "descent would not contract (and the convergent privacy bound would not "
                "apply). Use learning_rate='auto' or a smaller value."
            )

    def _fit_noisy_gd(self, X, y, loss, n_params_shape, notes):
        """Run the whole private fit; returns (coef, report, lam). Sets no attribute."""
        n_samples = X.shape[0]
        epsilon = check_epsilon(self.epsilon)
        delta = resolve_delta(self.delta, n_samples)
        design = self._design_matrix(X)
        row_norm = self._row_norm_bound()
        sensitivity, beta_l = self._loss_constants(loss, row_norm)
        n_params = int(np.prod(n_params_shape))
        target_epsilon = epsilon if math.isfinite(epsilon) else math.inf
        lam, beta, eta, n_steps, sigma = self._plan(
            (sensitivity, beta_l, row_norm), n_samples, n_params, target_epsilon, delta
        )
        rng = make_generator(self.random_state)

        def gradient(coef):
            data = gradient_sum(loss, coef, design, y, n_jobs=self.n_jobs)
            return data / n_samples + lam * coef

        # Parallelism is ours to control (n_jobs over row chunks): BLAS threads on these
        # thin products cost more in synchronisation than they save (measured in
        # benchmarks/README.md), so they are pinned to one for the loop.
        with threadpool_limits(limits=1, user_api="blas"):
            coef = noisy_gradient_descent(
                gradient, np.zeros(n_params_shape), learning_rate=eta, noise_std=sigma,
                n_steps=n_steps, rng=rng, callback=self._progress(n_steps),
            )
        report = accounting.noisy_gd_report(
            sigma, n_steps, delta=delta, sensitivity=sensitivity, n_samples=n_samples,
            learning_rate=eta, strong_convexity=lam, smoothness=beta, notes=tuple(notes),
        )
        return coef, report, lam

    def _loss_constants(self, loss, row_norm):
        return loss.sensitivity(row_norm), loss.smoothness(row_norm)

    def _progress(self, n_steps):
        """A callback that prints steps done and time; it never sees data or iterates."""
        if not self.verbose:
            return None
        start, every = time.perf_counter(), max(1, n_steps // 10)

        def report(step):
            done = step + 1
            if done % every == 0 or done == n_steps:
                elapsed = time.perf_counter() - start
                print(f"[{type(self).__name__}] step {done}/{n_steps} ({elapsed:.2f}s)")

        return report

    def _store_run(self, report, lam):
        """Set the fitted attributes every DP linear model shares (after the fit succeeded)."""
        self.n_iter_ = report.n_steps
        self.noise_std_ = report.noise_std
        self.learning_rate_ = report.learning_rate
        self.strong_convexity_ = lam
        self.privacy_ = report

    def _split_coef(self, coef):
        """Separate the appended intercept column; intercept_ = theta_b * intercept_scaling."""
        coef = np.atleast_2d(coef)
        if self.fit_intercept:
            return coef[:, :-1].copy(), coef[:, -1] * self.intercept_scaling
        return coef.copy(), np.zeros(coef.shape[0])
