"""The ``skdpgd`` command line: ``demo``, ``account``, ``fit``, ``predict`` and ``ledger``.

``python -m skdpgd`` and the ``skdpgd`` console script both call :func:`main`. With no
arguments it runs ``demo`` (what ``python -m skdpgd`` always did); ``--help`` lists the
commands.
"""

import argparse
import math
import sys

from .._version import __version__
from ._brief import plain_warnings
from ._ledger import add_ledger_parser


class _SolverNames:
    """The registry's solver names (:mod:`skdpgd.solvers`), looked up on first use.

    argparse reads ``choices`` only to check a given ``--solver`` or to print help, so
    ``skdpgd --version`` and ``skdpgd predict`` never import the solvers.
    """

    def __init__(self, reports_mu=False):
        self.reports_mu = reports_mu

    def _names(self):
        from ..solvers import get, names

        return [n for n in names() if not self.reports_mu or get(n).reports_mu]

    def __contains__(self, value):
        return value in self._names()

    def __iter__(self):
        return iter(self._names())

    def __len__(self):
        return len(self._names())


def _run(module, function):
    """A command's body, imported when the command runs (a lazy ``set_defaults(run=...)``)."""
    def run(args):
        import importlib

        return getattr(importlib.import_module(module, __name__), function)(args)
    return run


account_command = _run("._commands", "account_command")
demo_command = _run("._commands", "demo_command")
fit_command = _run("._commands", "fit_command")
predict_command = _run("._predict", "predict_command")

EPILOG = (
    "With no command, runs `demo`. Every privacy number printed comes from "
    "skdpgd.accounting; see `skdpgd COMMAND --help`."
)


def _epsilon(text):
    value = float(text)
    if not (value > 0 and not math.isnan(value)):
        raise argparse.ArgumentTypeError(f"epsilon must be > 0 (or inf), got {text!r}")
    return value


def _delta(text):
    return text if text == "auto" else float(text)


def _auto_or_float(text):
    return text if text == "auto" else float(text)


def _auto_or_positive_int(text):
    """'auto' or an integer >= 1 (0 is refused, not read as 'auto')."""
    if text == "auto":
        return text
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected 'auto' or an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(
            f"must be >= 1 (or 'auto' to let the planner choose), got {text!r}")
    return value


def _add_dialect(parser):
    parser.add_argument("--sep", default=None, help="field separator (default: sniffed "
                        "from the header line only: ',', ';', tab or '|')")
    parser.add_argument("--decimal", default=None, choices=[".", ","],
                        help="decimal mark (default: ',' for a ';'-separated file, else '.')")


def build_parser():
    """The argparse parser of the commands."""
    parser = argparse.ArgumentParser(
        prog="skdpgd", description="Differentially private linear models trained by noisy "
        "gradient steps with exact Gaussian-DP accounting. Default solver 'auto': plans "
        "'gd', 'cyclic' (2 to 64 batches) and 'preconditioned' (one noisy Gram release, a "
        "few preconditioned steps) from public numbers and runs the one with the smallest "
        "predicted excess loss. The bound that binds: composition for 'preconditioned' and "
        "for 'gd' (planned lam near 0), Theorem 4.5 for 'cyclic' (shifted interpolation "
        "across batches, not converged). `skdpgd account` shows the choice and the binding "
        "bound for n rows and d features.", epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"skdpgd {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser(
        "demo", help="private vs non-private logistic regression on UCI Adult (shipped)",
        description="Trains DPLogisticRegression on the UCI Adult census data shipped with "
        "skdpgd (public-bound preprocessing) at several budgets, next to scikit-learn, and "
        "prints the test accuracies and the privacy report of the epsilon = 1 fit.",
    )
    demo.add_argument("--epsilons", type=_epsilon, nargs="+",
                      default=[0.1, 0.5, 1.0, 4.0, math.inf])
    demo.add_argument("--seeds", type=int, nargs="+", default=[0],
                      help="noise seeds; the table shows the median accuracy")
    demo.add_argument("--solver", choices=_SolverNames(), metavar="SOLVER",
                      default="auto", help="the estimator's solver: %(choices)s (default 'auto')")
    demo.set_defaults(run=demo_command)

    acc = sub.add_parser(
        "account", help="the noise, steps and mu a fit would use; composition and Chourasia",
        description="Plans the run an estimator's fit would make for a data set of n rows "
        "and d features (public numbers only), names the bound that binds with the epsilon "
        "every bound gives at its noise, and compares the noise with what composition "
        "and Chourasia et al.'s bound would need for the same (epsilon, delta).",
    )
    acc.add_argument("--epsilon", type=_epsilon, required=True)
    acc.add_argument("--delta", type=_delta, default="auto",
                     help="default 'auto' = min(1e-5, 1/(10 n))")
    acc.add_argument("--n", type=int, default=None, help="number of training rows (public; "
                     "required without --table)")
    acc.add_argument("--table", metavar="CSV", default=None,
                     help="plan the raw-table pipeline `skdpgd fit CSV --target T` would run "
                     "(its releases and their shares; n counted from the file, columns "
                     "from its header); --model / --classes / --y-bound as for fit")
    acc.add_argument("--target", default=None, help="with --table: the target column")
    acc.add_argument("--classes", action="append", default=None, metavar="A,B[,...]",
                     help="the public label set (implies --model logistic; without --table "
                     "its size is the label set's; with --table, else released privately)")
    _add_dialect(acc)
    acc.add_argument("--n-features", type=int, default=10, help="d (default 10)")
    acc.add_argument("--data-norm", type=float, default=1.0, help="public row-norm bound R")
    acc.add_argument("--model", choices=["logistic", "ridge"], default=None,
                     help="default logistic (with --table: required unless --classes or "
                     "--y-bound implies it)")
    acc.add_argument("--n-classes", type=int, default=None,
                     help="logistic: label set size (default 2, or that of --classes)")
    acc.add_argument("--y-bound", type=float, default=None,
                     help="ridge: bound on |y| (default 1; with --table: private range)")
    acc.add_argument("--regularization", type=float, default=None,
                     help="C (logistic) or alpha (ridge); default 'auto'; 'inf' (C) or 0 "
                     "(alpha): no regularisation, with --max-coef-norm")
    acc.add_argument("--max-coef-norm", type=float, default=None,
                     help="public radius r of the ball every iterate is projected onto "
                     "(the convex bounded-domain bounds, diameter 2r); default none")
    acc.add_argument("--max-iter", type=_auto_or_positive_int, default="auto",
                     help="K (preconditioned, gd) or epochs (cyclic); an integer >= 1 or "
                     "'auto' (default)")
    acc.add_argument("--solver", choices=_SolverNames(reports_mu=True), metavar="SOLVER",
                     default="auto",
                     help="the estimator's solver: %(choices)s (default 'auto'); for "
                     "'gd' and 'cyclic' (also when 'auto' picks them) a table compares the "
                     "run's noise with what composition needs")
    acc.add_argument("--batch-size", type=_auto_or_positive_int, default="auto",
                     help="cyclic: rows per batch; an integer >= 1 or 'auto' (default)")
    acc.add_argument("--no-intercept", action="store_true")
    acc.add_argument("--intercept-scaling", type=_auto_or_float, default="auto",
                     help="b of the intercept column; default 'auto' = data_norm d^(-1/8)")
    acc.add_argument("--residual-clip", type=_auto_or_float, default="auto",
                     help="clip c of the residual (logistic: 'auto' = 1/2 for two classes; "
                     "ridge: Huber threshold)")
    acc.set_defaults(run=account_command)

    fit = sub.add_parser(
        "fit", help="fit on a CSV file; save the model; print the privacy report",
        description="Fits a private model on any CSV file. The model kind is public input: "
        "--model, or implied by --classes (logistic) or --y-bound (ridge); there is no "
        "default (a numeric target never becomes a classifier by itself). Without "
        "--classes the label set is released privately (thresholded noisy counts, in "
        "the one budget); without --y-bound the target's range is. Columns without public "
        "information get private ranges / categories and, if undeclared, a privately "
        "voted type (DPTableVectorizer in one budget); public bounds (--bounds), category "
        "lists (--categories), types (--numeric, --categorical, --date) or --drop override "
        "single columns and cost nothing. A --config TOML/JSON file can hold them (see the "
        "docs).",
        epilog="Defaults: --delta auto = min(1e-5, 1/(10 n)); --solver auto; --C / --alpha "
        "auto; no --output: nothing saved; no --ledger: nothing recorded; no "
        "--random-state: fresh OS entropy.",
    )
    fit.add_argument("data", help="CSV file with a header line")
    fit.add_argument("--target", help="column to predict (or `target` in the config)")
    fit.add_argument("--epsilon", type=_epsilon, default=None,
                     help="the whole fit's budget (required, flag or config)")
    fit.add_argument("--delta", type=_delta, default=None,
                     help="default 'auto' = min(1e-5, 1/(10 n))")
    fit.add_argument("--output", help="where to save the fitted bundle (joblib)")
    fit.add_argument("--config", help="TOML or JSON file with bounds / categories / ...")
    _add_dialect(fit)
    fit.add_argument("--model", choices=["logistic", "ridge"], default=None,
                     help="required unless --classes (logistic) or --y-bound (ridge) "
                     "implies it; no default")
    fit.add_argument("--ledger", metavar="FILE", default=None,
                     help="a PrivacyLedger file (SQLite, created if missing) charged with "
                     "the fit's planned cost before any value is read; `skdpgd ledger "
                     "show FILE` lists it (default: no ledger)")
    fit.add_argument("--ledger-cap", metavar="EPSILON,DELTA", default=None,
                     help="cap of a new ledger file (stored in it; default: no cap)")
    fit.add_argument("--key-file", default=None,
                     help="the data owner's key file for a keyed ledger (default: "
                     "$SKDPGD_LEDGER_KEY if set)")
    fit.add_argument("--bounds", action="append", default=[], metavar="NAME=LOW:HIGH")
    fit.add_argument("--categories", action="append", default=[], metavar="NAME=A,B,C")
    fit.add_argument("--drop", action="append", default=[], metavar="NAME")
    fit.add_argument("--numeric", action="append", default=[], metavar="NAME[,NAME]",
                     help="declare column(s) numeric (public type; range found privately)")
    fit.add_argument("--categorical", action="append", default=[], metavar="NAME[,NAME]",
                     help="declare column(s) categorical (public type; categories found "
                     "privately)")
    fit.add_argument("--date", dest="dates", action="append", default=[],
                     metavar="NAME[,NAME]",
                     help="declare column(s) dates: ISO 8601 cells read in UTC as decimal "
                     "years (public type; range found privately)")
    fit.add_argument("--date-format", default=None, metavar="FORMAT",
                     help="the --date columns' spelling, a strptime format such as "
                     "'%%m/%%d/%%Y' (public; default ISO 8601); a cell in another "
                     "spelling is missing")
    fit.add_argument("--classes", action="append", default=None, metavar="A,B[,...]",
                     help="logistic (implies --model logistic): the public label set, "
                     "comma-separated (0,1 are ints, yes,no strings: predictions keep that "
                     "type); a label holding a comma is quoted CSV-style (--classes "
                     "'\"a,b\",c') or the flag repeated, one label each (--classes 'a,b' "
                     "--classes c). Default: the label set is released privately")
    fit.add_argument("--y-bound", type=float, default=None,
                     help="ridge (implies --model ridge): public bound on |y| (default "
                     "with --model ridge: the target's range is released privately)")
    fit.add_argument("--solver", choices=_SolverNames(), metavar="SOLVER",
                     default=None,
                     help="optimiser: %(choices)s (default: the estimator's, auto; sgd needs the "
                     "sgd extra)")
    fit.add_argument("--C", type=float, default=None, dest="C",
                     help="logistic: inverse regularisation (default 'auto'; 'inf': none, "
                     "with --max-coef-norm)")
    fit.add_argument("--alpha", type=float, default=None,
                     help="ridge: regularisation (default 'auto'; 0: none, with "
                     "--max-coef-norm)")
    fit.add_argument("--max-coef-norm", type=float, default=None,
                     help="public radius r of the ball every iterate is projected onto "
                     "(the convex bounded-domain bounds); default none")
    fit.add_argument("--sampling", choices=["poisson", "uniform"], default=None,
                     help="batches of --solver sgd: 'poisson' (default) or 'uniform' "
                     "(fixed size, without replacement)")
    fit.add_argument("--n-jobs", type=int, default=None, help="workers for the gradient sums")
    fit.add_argument("--verbose", type=int, default=None,
                     help="1 or more: the full privacy report and per-column decisions "
                     "(default: one short line each), and progress messages (0, 1, 2)")
    fit.add_argument("--summary", action="store_true",
                     help="also release private standard errors, intervals and p-values "
                     "(inference=True, in the same budget; binary logistic or ridge) and "
                     "print the coefficient table")
    fit.add_argument("--random-state", type=int, default=None,
                     help="seed of the noise (default: fresh OS entropy; a known seed makes "
                     "the noise reproducible by anyone who knows it)")
    fit.set_defaults(run=fit_command)

    predict = sub.add_parser(
        "predict", help="predictions of a model saved by `fit` on a CSV file",
        description="Reads the model's feature columns by name (others, such as the "
        "target, are ignored) and writes one column named after the target, in the type "
        "of the public classes. Load only model files you trust (joblib runs code).",
    )
    predict.add_argument("model", help="the joblib file written by `skdpgd fit --output`")
    predict.add_argument("data", help="CSV file with a header line")
    predict.add_argument("--output", help="where to write the predictions (CSV; default: "
                         "standard output)")
    _add_dialect(predict)
    predict.set_defaults(run=predict_command)
    add_ledger_parser(sub)
    return parser


def main(argv=None):
    """Entry point; returns the exit status (0 on success, 2 on a usage or input error)."""
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.command is None:
        args = parser.parse_args(["demo"])
    try:
        with plain_warnings():  # no source path reaches the terminal
            return args.run(args) or 0
    except KeyboardInterrupt:
        print(f"skdpgd {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the CLI never shows a traceback
        print(f"skdpgd {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return 2


def _one_line(exc):
    """The exception's message on one line; its type when it is not a usage error."""
    if isinstance(exc, LookupError):  # KeyError('a cell'), IndexError: may quote the data
        return (f"{type(exc).__name__} (its text is withheld: it may quote a value of the "
                "file)")
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, (ValueError, FileNotFoundError, ImportError)):
        return text
    return f"{type(exc).__name__}: {text}"
