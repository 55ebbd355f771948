r"""Data-fit terms of the linear models, with the public constants they own.

Each loss :math:`l(\theta; x, y)` gives the sum over rows of its per-example value and
gradient, and states the three constants the privacy analysis needs as functions of
public bounds only (:ref:`loss-constants`). With augmented rows of norm at most
:math:`\tilde R` (``row_norm``: data_norm and intercept column included), targets
:math:`|y| \le B` (``y_bound``) and, where the loss needs it, a domain
:math:`\|\theta\| \le r` (``radius``):

=========================  ========================  ===================  =========================
loss                       gradient bound L          smoothness beta_l    replace-one sensitivity S
=========================  ========================  ===================  =========================
binary logistic            Rt                        Rt^2 / 4             2 Rt
multinomial (K classes)    sqrt(2) Rt                Rt^2 / 2             2 sqrt(2) Rt
Huber, threshold c         c Rt                      Rt^2                 2 c Rt
squared on ||th|| <= r     Rt (r Rt + B)             Rt^2                 2 Rt (r Rt + B)
=========================  ========================  ===================  =========================

* L is the supremum of :math:`\|\nabla l(\theta; z)\|` over every record z allowed
  by the bounds and every theta in the domain,
* beta_l bounds the largest eigenvalue of the per-example Hessian (equivalently the
  Lipschitz constant of :math:`\theta \mapsto \nabla l(\theta; z)`),
* S is the supremum of :math:`\|\nabla l(\theta; z) - \nabla l(\theta; z')\|` over
  every theta in the domain and every pair of records z, z' (so S <= 2 L).

These are what the accountants take; none of them is ever computed from the data.
:class:`WeightedLoss` wraps any of them for rows with weights in [0, W] (``sample_weight``,
``class_weight``): all three constants are multiplied by the public W
(:ref:`weights`).
:repo:`tests/losses/test_gradients_and_constants.py` checks each of them on random and
adversarial records and checks that a constructed worst case (nearly) attains it.

Conventions: ``coef`` is a float64 array of shape (d,) for the scalar-output losses and
(n_classes, d) for the multinomial loss. ``X`` is a dense float array or a CSR matrix of
shape (n, d), already clipped and with the intercept column appended by the caller (the
loss knows nothing of intercepts); all products are written ``X @ coef`` and
``X.T @ residual`` so both work.

Every loss derives from :class:`BaseLoss` (``_base``: the shared numpydoc, the smoothness
from the curvature, the fused kernel's name); one module per family: ``_binary``,
``_multinomial``, ``_ridge`` (Huber, squared), ``_weighted``.

References
----------
.. [1] J. Bok, W. Su, J. Altschuler. Shifted interpolation for differential privacy.
   ICML 2024: replace-one sensitivity of the gradient step.
.. [2] T. Ryffel, F. Bach, D. Pointcheval. Differential privacy guarantees for
   stochastic gradient Langevin dynamics. 2022, Lemma 5.1: Hessian of the
   softmax loss, after D. Böhning, Multinomial logistic regression algorithm, Ann. Inst.
   Statist. Math. 44 (1992).
.. [3] P. J. Huber. Robust estimation of a location parameter. Ann. Math. Statist. 35 (1964).
"""
from ._base import BaseLoss
from ._binary import BinaryLogisticLoss
from ._multinomial import MultinomialLogisticLoss
from ._ridge import HuberLoss, SquaredLoss
from ._weighted import WeightedLoss

__all__ = [
    "BaseLoss", "BinaryLogisticLoss", "HuberLoss", "MultinomialLogisticLoss", "SquaredLoss",
    "WeightedLoss",
]
