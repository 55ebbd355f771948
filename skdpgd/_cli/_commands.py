"""The bodies of the CLI commands (argparse namespace -> printed output)."""

from .._demo import run_demo
from ..linear_model import DPLogisticRegression, DPRidge
from ._account import account_lines
from ._config import check_config, load_config, parse_bound, parse_categories
from ._table import parse_classes


def demo_command(args):
    """``skdpgd demo``: the README's main job."""
    run_demo(epsilons=tuple(args.epsilons), seeds=tuple(args.seeds), solver=args.solver)


def account_command(args):
    """``skdpgd account``: print the planned run and the baselines."""
    common = dict(
        epsilon=args.epsilon, delta=args.delta, data_norm=args.data_norm,
        fit_intercept=not args.no_intercept, intercept_scaling=args.intercept_scaling,
        solver=args.solver, batch_size=args.batch_size, max_iter=args.max_iter,
        residual_clip=args.residual_clip,
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


def _fit_config(args):
    """Merge the config file (if any) with the flags; flags win."""
    config = check_config(load_config(args.config) if args.config else {})
    config["bounds"].update(parse_bound(text) for text in args.bounds)
    config["categories"].update(parse_categories(text) for text in args.categories)
    config["drop"] += args.drop
    for key in ("numeric", "categorical"):  # --numeric a,b --numeric c
        names = [name.strip() for text in getattr(args, key, []) for name in text.split(",")]
        if names:
            config[key] = list(config.get(key, [])) + names
    for key in ("target", "model", "y_bound", "epsilon", "delta", "random_state", "solver",
                "C", "alpha", "n_jobs", "verbose"):
        value = getattr(args, key)
        if value is not None:
            config[key] = value
    if args.classes:
        config["classes"] = parse_classes(args.classes)  # "0,1" -> ints 0 and 1
    if getattr(args, "summary", False):
        config["inference"] = True
    for key in ("target", "epsilon"):
        if key not in config:
            raise ValueError(f"--{key} is required (as a flag or in the config).")
    return check_config(config)


def fit_command(args):
    """``skdpgd fit``: fit, save, print the privacy report."""
    from ._fit import fit_csv  # imports joblib/ColumnTransformer only when needed
    from ._fit_table import fit_table, needs_private_preparation

    config = _fit_config(args)
    if needs_private_preparation(args.data, config):
        pipeline, _ = fit_table(
            args.data, config, epsilon=float(config["epsilon"]),
            delta=config.get("delta", "auto"), random_state=config.get("random_state"),
            output=args.output,
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
    print(repr(model.privacy_))
    if config.get("inference"):
        print(_coefficient_table(bundle["pipeline"]))
    if args.output:
        print(f"saved to {args.output} (joblib bundle: pipeline, feature_columns, privacy)")
    else:
        print("(no --output given: the model was not saved)")


def _coefficient_table(pipeline):
    """The private coefficient table of a fitted pipeline's model, named by the columns
    its last transformer produced (when that transformer names them)."""
    from ..inference import CoefficientTable

    table = pipeline[-1].inference_
    try:
        names = [str(name) for name in pipeline[:-1].get_feature_names_out()]
    except Exception:  # noqa: BLE001 - a step without feature names: keep x0, x1, ...
        names = None
    if names is not None and len(names) == pipeline[-1].n_features_in_:
        table = CoefficientTable(names + table.names[len(names):], table.estimate,
                                 table.covariance, table.notes)
    return table.text(title="Private coefficient table (units: the model's input columns)")
