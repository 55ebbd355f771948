"""The bodies of the CLI commands (argparse namespace -> printed output)."""

from ._config import check_config, load_config, parse_bound, parse_categories

MODEL_REQUIRED = (
    "--model is required (logistic or ridge): the model kind is public input and has no "
    "default (a numeric target never becomes a classifier by itself). --classes implies "
    "logistic, --y-bound implies ridge; `model` in the config works too."
)


def classes_from_flags(values):
    """``--classes`` as typed labels.

    One flag: CSV-style, comma-separated, a label holding a comma quoted
    (``'"a,b",c'``); the flag repeated: one label per flag, taken whole. Ints if every
    label is an int, else floats if every label is a number, else strings (``"0,1"`` ->
    ``[0, 1]``; ``"yes,no"`` -> strings).
    """
    import csv

    if len(values) == 1:
        labels = next(csv.reader([values[0]], skipinitialspace=True), [])
    else:
        labels = list(values)
    labels = [label.strip() for label in labels]
    for kind in (int, float):
        try:
            return [kind(label) for label in labels]
        except ValueError:
            continue
    return labels


def resolve_model(config):
    """The model kind from public input only: ``model``, else implied by ``classes``
    (logistic) or ``y_bound`` (ridge); a conflict or nothing is an error."""
    implied = {kind for kind, key in (("logistic", "classes"), ("ridge", "y_bound"))
               if key in config}
    model = config.get("model")
    if model is None:
        if len(implied) != 1:
            raise ValueError(MODEL_REQUIRED if not implied else
                             "--classes (logistic) and --y-bound (ridge) contradict each "
                             "other: give one, or --model.")
        model = implied.pop()
    if model == "logistic" and "y_bound" in config:
        raise ValueError("--y-bound is for --model ridge; a logistic model takes --classes.")
    if model == "ridge" and "classes" in config:
        raise ValueError("--classes is for --model logistic; a ridge model takes --y-bound.")
    return model


def demo_command(args):
    """``skdpgd demo``: the README's main job."""
    from .._demo import run_demo

    run_demo(epsilons=tuple(args.epsilons), seeds=tuple(args.seeds), solver=args.solver)


def account_table(args):
    """``skdpgd account --table CSV``: the raw-table pipeline's planned releases."""
    from ._fit_table import (
        build_table_pipeline,
        cli_spelling,
        count_rows,
        read_header,
        table_plan,
    )

    config = {key: value for key, value in (
        ("target", args.target), ("epsilon", args.epsilon), ("delta", args.delta),
        ("sep", args.sep), ("decimal", args.decimal)) if value is not None}
    if args.target is None:
        raise ValueError("--table needs --target (the column to predict).")
    if args.n_classes is not None:
        raise ValueError("--n-classes does not apply with --table: give the public label "
                         "set with --classes, or leave it to the private release.")
    if args.classes:
        config["classes"] = classes_from_flags(args.classes)
    if args.model is not None:
        config["model"] = args.model
    if args.y_bound is not None:
        config["y_bound"] = args.y_bound
    config["model"] = resolve_model(config)
    config = check_config(config)
    header = read_header(args.table, config)
    features, numeric, categorical = table_plan(header, config)
    n = count_rows(args.table) if args.n is None else args.n
    pipeline = build_table_pipeline(features, numeric, categorical, config,
                                    epsilon=args.epsilon, delta=args.delta,
                                    random_state=None)
    report = pipeline.plan_privacy(n)
    print(f"skdpgd account: the pipeline `skdpgd fit {args.table} --target {args.target}` "
          f"would run on n={n} rows ({len(features)} feature columns: {len(numeric)} "
          f"declared numeric, {len(categorical)} declared categorical, "
          f"{len(features) - len(numeric) - len(categorical)} typed by the private vote)")
    print(cli_spelling(repr(report)))
    print(f"the estimator's width is known after the vectorizer's release: 2 columns per "
          f"numeric feature (value, missing indicator), and per categorical one its "
          f"released categories + 2 (other, missing); with the header's "
          f"{len(features)} columns all numeric, {2 * len(features)}")


def account_command(args):
    """``skdpgd account``: print the planned run and the baselines."""
    from ..linear_model import DPLogisticRegression, DPRidge
    from ._account import account_lines

    if args.table is not None:
        return account_table(args)
    if args.n is None:
        raise ValueError("--n is required (or --table CSV to plan a raw-table pipeline).")
    _model_without_table(args)

    common = dict(
        epsilon=args.epsilon, delta=args.delta, data_norm=args.data_norm,
        fit_intercept=not args.no_intercept, intercept_scaling=args.intercept_scaling,
        solver=args.solver, batch_size=args.batch_size, max_iter=args.max_iter,
        residual_clip=args.residual_clip, max_coef_norm=args.max_coef_norm,
    )
    auto = "auto" if args.regularization is None else args.regularization
    if args.model == "logistic":
        estimator = DPLogisticRegression(C=auto, **common)
    else:
        estimator = DPRidge(alpha=auto, y_bound=args.y_bound, **common)
    # the estimator's own planner: exactly the run fit would make on data of that shape
    report = estimator.plan_privacy(args.n, args.n_features, args.n_classes)
    print(f"skdpgd account: {type(estimator).__name__}, n={args.n}, d={args.n_features}, "
          f"data_norm={args.data_norm:g}" + (f", {args.n_classes} classes"
                                              if args.model == "logistic" else ""))
    for line in account_lines(report, args.epsilon):
        print(line)


def _model_without_table(args):
    """``account`` without ``--table``: the model kind, the label-set size and the target
    bound from the flags, as ``fit`` reads them (``--classes`` implies logistic and gives
    the label set's size, ``--y-bound`` implies ridge), logistic with 2 classes when none
    is given; a flag that would be ignored is an error."""
    ignored = [flag for flag, value in (("--target", args.target), ("--sep", args.sep),
                                         ("--decimal", args.decimal)) if value is not None]
    if ignored:
        raise ValueError(f"{', '.join(ignored)} {'applies' if len(ignored) == 1 else 'apply'} "
                         "only with --table CSV.")
    given = {key: value for key, value in (("model", args.model), ("y_bound", args.y_bound))
             if value is not None}
    if args.classes:
        given["classes"] = classes_from_flags(args.classes)
    args.model = resolve_model(given) if given else "logistic"
    if args.model == "logistic":
        size = len(set(given["classes"])) if "classes" in given else None
        if size is not None and args.n_classes not in (None, size):
            raise ValueError(f"--classes lists {size} labels but --n-classes is "
                             f"{args.n_classes}: give one of them.")
        args.n_classes = size or args.n_classes or 2
    elif args.n_classes is not None:
        raise ValueError("--n-classes is for --model logistic; a ridge model takes --y-bound.")
    args.y_bound = 1.0 if args.y_bound is None else args.y_bound


def _fit_config(args):
    """Merge the config file (if any) with the flags; flags win."""
    config = check_config(load_config(args.config) if args.config else {})
    config["bounds"].update(parse_bound(text) for text in args.bounds)
    config["categories"].update(parse_categories(text) for text in args.categories)
    config["drop"] += args.drop
    for key in ("numeric", "categorical", "dates"):  # --numeric a,b --numeric c
        names = [name.strip() for text in getattr(args, key, []) for name in text.split(",")]
        if names:
            config[key] = list(config.get(key, [])) + names
    for key in ("target", "model", "y_bound", "epsilon", "delta", "random_state", "solver",
                "C", "alpha", "max_coef_norm", "sampling", "n_jobs", "verbose", "sep",
                "decimal", "date_format"):
        value = getattr(args, key)
        if value is not None:
            config[key] = value
    if args.classes:
        config["classes"] = classes_from_flags(args.classes)  # "0,1" -> ints 0 and 1
    if getattr(args, "summary", False):
        config["inference"] = True
    for key in ("target", "epsilon"):
        if key not in config:
            raise ValueError(f"--{key} is required (as a flag or in the config).")
    config["model"] = resolve_model(config)
    return check_config(config)


def open_ledger(args):
    """The ``--ledger`` file as a PrivacyLedger (created if missing), or None."""
    if args.ledger is None:
        if args.ledger_cap is not None or args.key_file is not None:
            raise ValueError("--ledger-cap and --key-file need --ledger FILE.")
        return None
    from .._ledger import PrivacyLedger

    epsilon = delta = None
    if args.ledger_cap is not None:
        text, _, delta_text = args.ledger_cap.partition(",")
        try:
            epsilon, delta = float(text), float(delta_text)
        except ValueError:
            raise ValueError(f"--ledger-cap expects EPSILON,DELTA (two numbers), got "
                             f"{args.ledger_cap!r}.") from None
    return PrivacyLedger(epsilon, delta, path=args.ledger, key_file=args.key_file)


def fit_command(args):
    """``skdpgd fit``: fit, save, print the privacy report."""
    from ._brief import guarantee_line
    from ._fit import fit_csv  # imports joblib/ColumnTransformer only when needed
    from ._fit_table import fit_table, needs_private_preparation

    config = _fit_config(args)
    ledger = open_ledger(args)
    # with a ledger every value is read after the charge, inside the DP pipeline
    if ledger is not None or needs_private_preparation(args.data, config):
        pipeline, _ = fit_table(
            args.data, config, epsilon=float(config["epsilon"]),
            delta=config.get("delta", "auto"), random_state=config.get("random_state"),
            output=args.output, ledger=ledger,
        )
        if config.get("inference"):
            print(_coefficient_table(pipeline.pipeline_))
        return
    _, bundle = fit_csv(
        args.data, config, epsilon=float(config["epsilon"]), delta=config.get("delta", "auto"),
        random_state=config.get("random_state"), output=args.output,
    )
    model = bundle["pipeline"][-1]
    print(f"skdpgd fit: {type(model).__name__} on {args.data} "
          f"({len(bundle['feature_columns'])} columns -> {model.n_features_in_} features, "
          f"target {config['target']!r})")
    if config.get("verbose", 0) >= 1:
        print(repr(model.privacy_))
    else:
        print(guarantee_line(model.privacy_))
    if config.get("inference"):
        print(_coefficient_table(bundle["pipeline"]))
    if args.output:
        print(f"saved to {args.output} (joblib bundle: pipeline, feature_columns, privacy)")
    else:
        print("(no --output given: the model was not saved)")


def _coefficient_table(pipeline):
    """The private coefficient table of a fitted pipeline's model, named by the columns
    its last transformer produced (when that transformer names them), in the units of
    the model's ``coef_`` and ``intercept_`` (y's for a ridge on a released range)."""
    table = pipeline[-1].inference_
    try:
        names = [str(name) for name in pipeline[:-1].get_feature_names_out()]
    except Exception:  # a step without feature names: keep x0, x1, ...
        names = None
    if names is not None and len(names) == pipeline[-1].n_features_in_:
        table = table.replace(names=names + table.names[len(names):])
    return table.text(title="Private coefficient table (rows: the model's input columns)")
