"""Runs diffprivlib fits INSIDE benchmarks/.venv-peers (see setup_peers.sh).

Not imported by the main environment; ``peers.run_diffprivlib`` starts it as

    .venv-peers/bin/python _diffprivlib_worker.py DATA.npz SPEC.json OUT.json

DATA.npz holds X_train, y_train, X_test, y_test.  SPEC.json:

    {"task": "logistic" | "linear",
     "jobs": [{"epsilon": 1.0, "seed": 0, "C": 1.0}, ...],   # C for logistic only
     "data_norm": 1.0,                                        # logistic
     "bounds_X": [lower, upper], "bounds_y": [lower, upper],  # linear (scalars or lists)
     "n_jobs": 1}

OUT.json: {"versions": {...}, "results": [{**job, "score": s, "fit_time": t}, ...]}
with score = test accuracy (logistic) or test R^2 (linear).  Only numpy,
scikit-learn, joblib and diffprivlib are used here.
"""

import json
import sys
import time
import warnings


def _fit_one(task, job, spec, data):
    import numpy as np
    from diffprivlib.models import LinearRegression, LogisticRegression

    warnings.simplefilter("ignore")  # diffprivlib / scipy deprecation chatter
    X, y, Xt, yt = data
    if task == "logistic":
        model = LogisticRegression(
            epsilon=job["epsilon"], data_norm=spec["data_norm"], C=job["C"],
            random_state=job["seed"],
        )
    elif task == "linear":
        bx = spec["bounds_X"]
        by = spec["bounds_y"]
        model = LinearRegression(
            epsilon=job["epsilon"],
            bounds_X=(np.asarray(bx[0], dtype=float), np.asarray(bx[1], dtype=float)),
            bounds_y=(float(by[0]), float(by[1])),
            random_state=job["seed"],
        )
    else:
        raise ValueError(task)
    t0 = time.perf_counter()
    model.fit(X, y)
    fit_time = time.perf_counter() - t0
    score = float(model.score(Xt, yt))
    if not np.isfinite(score):
        score = None
    return {**job, "score": score, "fit_time": fit_time}


def main(data_path, spec_path, out_path):
    import diffprivlib
    import numpy as np
    import sklearn
    from joblib import Parallel, delayed

    with open(spec_path) as fh:
        spec = json.load(fh)
    with np.load(data_path) as npz:
        data = tuple(npz[k] for k in ("X_train", "y_train", "X_test", "y_test"))
    results = Parallel(n_jobs=int(spec.get("n_jobs", 1)))(
        delayed(_fit_one)(spec["task"], job, spec, data) for job in spec["jobs"]
    )
    out = {
        "versions": {
            "diffprivlib": diffprivlib.__version__,
            "scikit-learn": sklearn.__version__,
            "numpy": np.__version__,
            "python": sys.version.split()[0],
        },
        "results": results,
    }
    with open(out_path, "w") as fh:
        json.dump(out, fh)


if __name__ == "__main__":
    main(*sys.argv[1:4])
