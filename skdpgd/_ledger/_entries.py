"""What a ledger records: one entry per charge, and the worst record's spend."""

import inspect
import re
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, repr=False)
class LedgerEntry:
    """One recorded fit (or private search).

    Attributes
    ----------
    source : str
        What spent: the estimator class and its non-default parameters.
    n_samples : int
        Rows the fit used (public).
    event : privacy event
        What the fit released (:mod:`skdpgd.accounting._events`); the ledger composes these.
    epsilon, delta : float
        The (epsilon, delta) the fit itself reported.
    sample_ids : ndarray or None
        The sorted distinct ids of its rows, or None: then it is charged to every record.
    description : str
        The theorem the entry's cost comes from.
    seq : int or None
        Position in the ledger (1, 2, ...).
    recorded_at : str or None
        UTC time of the charge (ISO 8601).
    spent_epsilon : float or None
        The worst record's epsilon at the cap's delta just after this entry (capped
        ledgers only): the running total an auditor can check entry by entry.
    """

    source: str
    n_samples: int
    event: object
    epsilon: float
    delta: float
    sample_ids: np.ndarray | None
    description: str = ""
    seq: int | None = None
    recorded_at: str | None = None
    spent_epsilon: float | None = None

    @property
    def mu(self):
        """The GDP parameter of a Gaussian-DP entry (with or without an additive delta);
        None for other events."""
        form = self.event.gaussian_dp()
        return None if form is None else form[0]

    @property
    def extra_delta(self):
        """The additive delta of the entry (thresholded releases), 0 for other events."""
        form = self.event.gaussian_dp()
        return 0.0 if form is None else float(form[1])

    @property
    def rdp(self):
        """The Renyi-DP curve of a Renyi entry (ndarray), else None."""
        form = self.event.renyi_dp()
        return None if form is None else np.asarray(form[1])

    @property
    def poisson_run(self):
        """(q, z, K) of a ``solver="sgd"`` entry (one Poisson run), else None."""
        runs = self.event.poisson_runs()
        return runs[0] if runs is not None and len(runs) == 1 else None

    @property
    def rows(self):
        """``"all"`` or the number of identified rows."""
        return "all" if self.sample_ids is None else int(self.sample_ids.size)

    def __repr__(self):
        cost = event_text(self.event)
        return (
            f"LedgerEntry(#{self.seq}, {self.source}, n={self.n_samples}, rows={self.rows}, "
            f"{cost}, ({self.epsilon:.4g}, {self.delta:.3g})-DP)"
        )


def event_text(event):
    """A short public text naming the event's mechanism and cost (by the forms it declares)."""
    form = event.gaussian_dp()
    if form is not None:
        mu, extra = form
        return f"mu={mu:.4g}" + (f" + additive delta {extra:.3g}" if extra else "")
    if event.renyi_dp() is not None:
        return "RDP curve"
    if event.poisson_runs() is not None:
        return "Poisson SGD run"
    return type(event).__name__


@dataclass(frozen=True)
class LedgerSpend:
    """What the worst-off record of the data set has paid so far.

    Attributes
    ----------
    epsilon, delta : float
        The worst record's (epsilon, delta) guarantee at ``delta``.
    mu : float or None
        The worst record's exact GDP parameter, sqrt(sum of mu_j^2 over the fits that
        touched it); None when that record's events are not all Gaussian DP.
    n_fits : int
        Entries recorded.
    n_records_identified : int
        Distinct ids named by fits that passed ``sample_ids``.
    composition : str
        ``"gdp"`` (exact), ``"gdp+delta"`` (exact GDP plus additive deltas), ``"rdp"``
        or ``"pld"``, with :attr:`source` the theorems used.
    source : str
    extra_delta : float
        The worst record's accumulated additive delta (thresholded releases, e.g.
        category discovery), taken out of ``delta`` before epsilon is computed: epsilon
        is infinite once it reaches ``delta``.
    """

    epsilon: float
    delta: float
    mu: float | None
    n_fits: int
    n_records_identified: int
    composition: str
    source: str
    extra_delta: float = 0.0

    def __str__(self):
        extra = (f" (of which additive delta {self.extra_delta:.3g} from thresholded "
                 "releases)" if self.extra_delta else "")
        mu = "" if self.mu is None else f", mu={self.mu:.4g}"
        why = ""
        if self.extra_delta >= self.delta:
            why = ("; infinite because the additive deltas reach delta: release the "
                   "preparation once (DPPipeline.prepare) or state epsilon at a larger delta")
        return (f"epsilon={self.epsilon:.4g} at delta={self.delta:.3g}{extra}{mu}, "
                f"{self.n_fits} fit(s){why}")


#: Parameters never recorded, whatever their value: seeds and generators (whoever knows
#: the seed regenerates the noise and tells D from D'), keys, and the ledger itself.
_SECRET_WORDS = ("random", "seed", "rng", "key", "secret", "password", "token", "ledger")
_MAX_VALUE, _MAX_SOURCE, _MAX_DEPTH = 60, 400, 3


def describe(estimator):
    """How the ledger names what spent: the class and its public, non-default parameters.

    Only plain public hyperparameters are kept (numbers, booleans, short strings, and
    lists, tuples and dicts of them; a nested estimator is described the same way). Never
    recorded: ``random_state`` or any parameter whose name mentions a seed, a generator,
    a key or the ledger (a seed kept secret is as good as OS entropy only while it stays
    secret: whoever reads it refits on D and D' and tells which was used), generators and
    ``RandomState`` objects wherever they appear, and arrays or other objects, which are
    named by their type only. An object may name itself with a ``_ledger_source()``
    method. Whatever the text, ``name=value`` pairs whose name mentions a seed, a
    generator, a key or the ledger are removed from it (:func:`scrub_source`), so a
    caller passing ``repr(estimator)`` as the source does not record its seed either.
    """
    return scrub_source(_describe(estimator, 0))[:_MAX_SOURCE]


def _describe(estimator, depth):
    if estimator is None:
        return "unnamed"
    if isinstance(estimator, str):
        return estimator
    own = getattr(estimator, "_ledger_source", None)
    if callable(own):
        return str(own())
    name = type(estimator).__name__
    try:
        params = estimator.get_params(deep=False)
    except Exception:  # any object with a charge call is allowed to spend
        return name
    if depth >= _MAX_DEPTH or not isinstance(params, dict):
        return name
    defaults = _defaults(type(estimator))
    shown = []
    for key in sorted(params, key=str):
        value = params[key]
        if _secret_name(key) or _secret_value(value):
            continue
        if key in defaults and _same(value, defaults[key]):
            continue
        text = _public(value, depth)
        if text is not None:
            shown.append(f"{key}={text}")
    return f"{name}({', '.join(shown)})"


#: ``name=value`` of a secret parameter in a source written by an older skdpgd (whose
#: description kept every non-default parameter): the value runs to the next top-level
#: comma or closing parenthesis, over balanced parentheses.
_SECRET_IN_SOURCE = re.compile(
    r"(, )?\b(\w*(?:random|seed|rng|key|secret|password|token|ledger)\w*)="
    r"(?:[^,()]|\((?:[^()]|\([^()]*\))*\))*", re.IGNORECASE)


def scrub_source(text):
    """``text`` without the secret parameters an older ``describe`` kept (version-1 files)."""
    return _SECRET_IN_SOURCE.sub("", text).replace("(, ", "(")


def _defaults(cls):
    """The defaults in the class's ``__init__`` signature (nothing is constructed)."""
    try:
        signature = inspect.signature(cls.__init__)
    except (TypeError, ValueError):
        return {}
    return {k: p.default for k, p in signature.parameters.items()
            if p.default is not inspect.Parameter.empty}


def _secret_name(key):
    return any(word in str(key).lower() for word in _SECRET_WORDS)


def _secret_value(value):
    return isinstance(value, (np.random.Generator, np.random.RandomState,
                              np.random.BitGenerator, np.random.SeedSequence)) or (
        hasattr(value, "charge") and hasattr(value, "spent"))  # a ledger


def _public(value, depth):
    """Text for a public value; None to leave the parameter out."""
    if _secret_value(value):
        return None
    if value is None:
        return "None"
    if isinstance(value, (bool, np.bool_)):
        return repr(bool(value))
    if isinstance(value, (int, np.integer)):
        return _short(repr(int(value)))
    if isinstance(value, (float, np.floating)):
        return _short(repr(float(value)))
    if isinstance(value, str):
        return _short(repr(value))
    if isinstance(value, (list, tuple)):
        items = [_public(v, depth) for v in value]
        if any(item is None for item in items):
            return None
        text = ", ".join(items)
        return f"({text})" if isinstance(value, tuple) else f"[{text}]"
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            if _secret_name(k):
                continue
            k_text, v_text = _public(k, depth), _public(v, depth)
            if k_text is None or v_text is None:
                return None
            items.append(f"{k_text}: {v_text}")
        return "{" + ", ".join(items) + "}"
    if hasattr(value, "get_params"):
        return _describe(value, depth + 1)
    if isinstance(value, type):
        return value.__name__
    return f"<{type(value).__name__}>"  # arrays, callables, ...: the type only


def _short(text):
    return text if len(text) <= _MAX_VALUE else text[:_MAX_VALUE - 3] + "..."


def _same(a, b):
    try:
        return isinstance(a, type(b)) and bool(a == b)
    except Exception:  # arrays and the like: not equal, shown by type
        return False


def check_ids(sample_ids, n_samples):
    """The sorted distinct ids of a fit's rows (read-only), or None; refuses bad ids."""
    if sample_ids is None:
        return None
    ids = np.asarray(sample_ids)
    if ids.shape != (int(n_samples),):
        raise ValueError(
            f"sample_ids must have shape ({n_samples},), one id per row; got {ids.shape}."
        )
    if ids.dtype.kind == "f" and np.any(np.isnan(ids)):
        raise ValueError("sample_ids must not contain NaN.")
    if ids.dtype.kind not in "iufUS":
        raise TypeError(
            f"sample_ids must be integers or strings, got dtype {ids.dtype!s}."
        )
    if ids.dtype.kind == "S":
        ids = ids.astype(str)
    if ids.dtype.kind in "iu":
        if ids.dtype.kind == "u" and ids.size and ids.max() > np.iinfo(np.int64).max:
            raise ValueError("sample_ids above 2**63 - 1 are not supported.")
        ids = ids.astype(np.int64)
    unique = np.sort(ids, kind="stable")
    if unique.size > 1 and np.any(unique[1:] == unique[:-1]):
        raise ValueError(
            "sample_ids contains repeated ids: a record used twice in one fit weighs "
            "twice in its gradient, which its privacy report does not cover. Pass one "
            "row per record."
        )
    unique.setflags(write=False)
    return unique
