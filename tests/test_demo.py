"""``skdpgd demo``: Adult, next to scikit-learn, with the privacy report."""

import math

from skdpgd._demo import run_demo


def test_demo_shows_private_learning_that_works():
    lines = []
    rows = run_demo(epsilons=(2.0, math.inf), seeds=(0,), out=lines.append)
    text = "\n".join(lines)
    scores = {(label.split("(")[0], eps): acc for label, eps, acc in rows}
    sklearn = scores[("scikit-learn LogisticRegression", None)]
    private = scores[("DPLogisticRegression", 2.0)]
    # Adult: the majority class is 0.764 of the test rows and scikit-learn reaches about
    # 0.848. At epsilon = 2 the private model must be far above the majority class and
    # within 0.02 of scikit-learn (measured: 0.846 with seed 0, benchmarks/README.md has
    # 5 seeds within 0.003 of each other), so a broken pipeline cannot pass.
    assert sklearn > 0.84
    assert private > sklearn - 0.02
    # the default solver ("auto" -> preconditioned on Adult's 105 columns): composition
    assert "PrivacyReport((2, " in text and "Corollary 3.3" in text
    assert "one noisy Gram matrix" in text
    assert "CC BY 4.0" in text and "(majority class)" in text
