"""The short account ``skdpgd fit`` prints: one line per column, each at most 100 characters.

By default the command prints what a reader needs to trust and use the model: the
guarantee in one line, one line per column of the table (its type, where its range or
categories came from, its rule, a fallback flagged), the warnings of the fit as plain
lines (never Python's ``file:line: Category`` form with a source path), and where the
model went. ``--verbose 1`` (or more) prints the full privacy report (every release, its
mechanism and theorem, every note) and the vectorizer's ``summary_text()`` instead of
the short lines; in Python, ``pipeline.privacy_`` and ``summary_text()`` give the same.
Everything here is a function of the released statistics and public parameters (the
report and the vectorizer's summary); nothing is read from the data.
"""

import contextlib
import sys
import textwrap
import warnings

#: The width no line of the short account exceeds.
LINE_WIDTH = 100


def fit_line(text, width=LINE_WIDTH):
    """``text`` cut to ``width`` characters, ending in ``...`` when it was cut."""
    return text if len(text) <= width else text[: width - 3] + "..."


def guarantee_line(report):
    """The guarantee of a fit in one line: (epsilon, delta), its GDP form, what was spent."""
    head = f"privacy: ({report.epsilon:.4g}, {report.delta:.3g})-DP"
    mu = getattr(report, "mu", None)
    if mu is not None:
        head += f", mu={mu:.4g}-GDP"
        extra = getattr(report, "extra_delta", 0.0) or 0.0
        if extra > 0.0:
            head += f" + delta {extra:.3g}"
    return fit_line(head + " (replace-one); --verbose 1 prints every release")


def _units(dtype):
    """" years" or " days" for a temporal column (read as decimal years or days by the
    vectorizer; its ``summary()`` names the dtype), else "". The prefixes of
    ``preprocessing._schema.temporal_kind``, written here: the command line starts without
    importing the preprocessing package."""
    text = str(dtype)
    if text.startswith(("timedelta64", "Duration")):
        return " days"
    return " years" if text.startswith(("datetime64", "Datetime", "Date")) else ""


def _number(value):
    return f"{value:.4g}"


def column_line(row):
    """One column of the vectorizer's summary (a dict of its ``summary()`` fields)."""
    name, kind = row["column"], row["type"]
    text = f"  {name}: {kind}"
    if kind == "dropped":
        return fit_line(f"{text} ({row['type_from']})")
    text += f" ({row['type_from']})"
    if kind == "numeric":
        text += (f", [{_number(row['low'])}, {_number(row['high'])}]"
                 f"{_units(row.get('dtype'))} {row['range_from']}, "
                 f"{row['rule']}, missing -> "
                 # beside an indicator the written value is a parametrisation (--verbose)
                 + ("indicator" if row["missing_indicator"] else _number(row["imputed"])))
    elif kind == "categorical":
        source = str(row["encoding"]).split(",")[0]
        text += f", {row['categories']} kept ({source})"
    if row["fallback"]:
        text += ", FALLBACK"
    return fit_line(text)


def column_lines(vectorizer, type_from=None):
    """The short lines of every column of a fitted DPTableVectorizer, in the table's order."""
    type_from = type_from or {}
    rows = []
    for column, values in vectorizer.summary().iterrows():
        row = dict(values)
        row["column"] = str(column)
        if row["type"] != "dropped":
            row["type_from"] = type_from.get(str(column), row["type_from"])
        rows.append(column_line(row))
    return ["columns (--verbose 1: the full decisions):", *rows]


@contextlib.contextmanager
def warnings_as_lines(lines):
    """Collect the warnings raised inside into ``lines`` (``"warning: message"``, once each)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    seen = set()
    for item in caught:
        text = f"warning: {item.message}"
        if text not in seen:
            seen.add(text)
            lines.extend(warning_lines(item.message))


def warning_lines(message, width=LINE_WIDTH):
    """A warning as plain lines of at most ``width`` characters: ``warning: ...`` and
    its continuation aligned under the message (never a source path or a class name)."""
    text = " ".join(str(message).split())
    return textwrap.wrap(f"warning: {text}", width=width, subsequent_indent=" " * len("warning: "),
                         break_on_hyphens=False) or ["warning:"]


@contextlib.contextmanager
def plain_warnings(stream=None):
    """Inside, every warning that reaches Python's display is printed as
    :func:`warning_lines` on ``stream`` (default: standard error), not as Python's
    ``file:line: Category: message`` form."""
    def show(message, category, filename, lineno, file=None, line=None):
        target = stream if stream is not None else sys.stderr
        print("\n".join(warning_lines(message)), file=target)

    original = warnings.showwarning
    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = original
