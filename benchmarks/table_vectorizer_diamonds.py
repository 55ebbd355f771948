"""DPTableVectorizer + DPRidge on the raw diamonds table, next to the hand-written pipeline.

The vectorizer sees the raw columns (carat, cut, color, clarity, depth, table, x, y, z)
with nothing hand-written; it gets 10% of mu^2 and 10% of delta (its thresholds), the
estimator the rest, so the total is (epsilon, delta)-DP (docs/theory.md#table-vectorizer).
The target is the same as the hand-written benchmark's: log price mapped by the public
price range to [-1, 1] (``y_bound=1``). The hand-written pipeline
(``benchmarks/datasets.py: load_diamonds``, public bounds from the ggplot2 docs, carat on
a log scale) gets the whole budget. Test R^2, median over seeds, same split.

    SKDPGD_DATA=/path/to/data python benchmarks/table_vectorizer_diamonds.py [--seeds 5]
"""

import argparse
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
from datasets import data_dir, diamonds_target, load_diamonds
from sklearn.model_selection import train_test_split

from skdpgd import DPRidge
from skdpgd.accounting import epsilon_delta_to_gdp, gdp_to_epsilon
from skdpgd.preprocessing import DPTableVectorizer

SHARE = 0.1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 0.5, 1.0, 4.0])
    parser.add_argument("--delta", type=float, default=1e-5)
    args = parser.parse_args()
    df = pd.read_csv(data_dir() / "diamonds" / "diamonds.csv", index_col=0)
    y = diamonds_target(df["price"].to_numpy())
    X_train, X_test, y_train, y_test = train_test_split(
        df.drop(columns="price"), y, test_size=0.2, random_state=0)
    H_train, hy_train, H_test, hy_test = load_diamonds()
    rows = []
    for epsilon in args.epsilons:
        delta_gdp = (1 - SHARE) * args.delta
        mu = epsilon_delta_to_gdp(epsilon, delta_gdp)
        raw, hand = [], []
        for seed in range(args.seeds):
            vec = DPTableVectorizer()._fit_private(
                X_train, mu=math.sqrt(SHARE) * mu, extra_delta=SHARE * args.delta,
                random_state=seed)
            eps_est = float(gdp_to_epsilon(math.sqrt(1 - SHARE) * mu, delta_gdp))
            model = DPRidge(epsilon=eps_est, delta=delta_gdp, y_bound=1.0,
                            data_norm=vec.row_norm_bound_, random_state=seed)
            model.fit(vec.transform(X_train), y_train)
            assert math.hypot(vec.privacy_.mu, model.privacy_.mu) <= mu * (1 + 1e-9)
            raw.append(float(model.score(vec.transform(X_test), y_test)))
            reference = DPRidge(epsilon=epsilon, delta=args.delta, y_bound=1.0,
                                data_norm=1.0, random_state=seed).fit(H_train, hy_train)
            hand.append(float(reference.score(H_test, hy_test)))
        rows.append({"epsilon": epsilon, "delta": args.delta, "share_mu2": SHARE,
                     "median_r2_vectorizer": float(np.median(raw)),
                     "median_r2_hand_written": float(np.median(hand)),
                     "r2_vectorizer": raw, "r2_hand_written": hand})
        print(f"epsilon {epsilon:g}: vectorizer {np.median(raw):.4f}  "
              f"hand-written {np.median(hand):.4f}")
    out = Path(__file__).parent / "results" / "table_vectorizer_diamonds.json"
    out.write_text(json.dumps({"command": "python benchmarks/table_vectorizer_diamonds.py",
                               "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
