"""Old home of the solvers, now :mod:`skdpgd.solvers` (names kept for old imports)."""

from ..solvers import (  # noqa: F401
    AutoSolver,
    CyclicSolver,
    FitData,
    PreconditionedSolver,
    PublicProblem,
    SampledSolver,
    Solver,
    make_solver,
)
from ..solvers._base import _cached_plan  # noqa: F401  (benchmarks clear the plan cache)
from .._data._gram import (  # noqa: F401
    GRAM_MAX_CHUNKS,
    GRAM_PARTIALS_BYTES,
    chunk_gram as _chunk_gram,
    gram_chunk_rows,
)
