r"""The noisy optimisation loops: pure numerical loops that know no epsilon.

An internal layer of skdpgd, not API: no ``__all__`` and no API page. The loops are
imported by the solvers (:mod:`skdpgd.solvers`), the only place where a loop meets
private data with its noise calibrated; a new solver calls them the same way.

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

from ._gd import cyclic_partition as cyclic_partition
from ._gd import noisy_cyclic_gradient_descent as noisy_cyclic_gradient_descent
from ._gd import noisy_gradient_descent as noisy_gradient_descent
from ._gram_release import gram_sensitivity as gram_sensitivity
from ._gram_release import release_gram as release_gram
from ._gram_release import symmetric_gaussian as symmetric_gaussian
from ._preconditioned import (
    MAX_DENSE_DIM as MAX_DENSE_DIM,
)
from ._preconditioned import (
    GramPreconditioner as GramPreconditioner,
)
from ._preconditioned import (
    preconditioned_noisy_gradient_descent as preconditioned_noisy_gradient_descent,
)
from ._projection import check_max_norm as check_max_norm
from ._projection import project_onto_ball as project_onto_ball
from ._sampled import noisy_sampled_gradient_descent as noisy_sampled_gradient_descent

