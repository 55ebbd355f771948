r"""The noisy optimisation loops: pure numerical loops that know no epsilon.

Each loop takes a gradient callable, a noise standard deviation, a number of steps and a
random generator, and releases only its last iterate; calibrating the noise and the
number of steps is :mod:`skdpgd.accounting`'s job, running a loop on a fit's data is a
solver's (:mod:`skdpgd.solvers`). Layer 3 of docs/architecture.md: imports only the
layers below (utilities, data, losses).

* ``_gd``: full-batch and cyclic noisy gradient descent, the cyclic partition;
* ``_projection``: the projection of every loop onto a public ball;
* ``_sampled``: noisy SGD with Poisson batches;
* ``_preconditioned``: the Gram-preconditioned loop (Böhning-Lindsay majoriser);
* ``_gram_release``: the Gaussian release of the Gram matrix its preconditioner uses.
"""

from ._gd import cyclic_partition, noisy_cyclic_gradient_descent, noisy_gradient_descent
from ._gram_release import gram_sensitivity, release_gram, symmetric_gaussian
from ._preconditioned import (
    MAX_DENSE_DIM,
    GramPreconditioner,
    preconditioned_noisy_gradient_descent,
)
from ._projection import check_max_norm, project_onto_ball
from ._sampled import noisy_sampled_gradient_descent

__all__ = [
    "GramPreconditioner",
    "MAX_DENSE_DIM",
    "check_max_norm",
    "cyclic_partition",
    "gram_sensitivity",
    "noisy_cyclic_gradient_descent",
    "noisy_gradient_descent",
    "noisy_sampled_gradient_descent",
    "preconditioned_noisy_gradient_descent",
    "project_onto_ball",
    "release_gram",
    "symmetric_gaussian",
]
