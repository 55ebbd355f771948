"""Runs Opacus DP-SGD fits INSIDE benchmarks/.venv-opacus (see setup_opacus.sh).

Not imported by the main environment; ``peers.run_opacus`` starts it as

    .venv-opacus/bin/python _opacus_worker.py DATA.npz SPEC.json OUT.json

DATA.npz holds X_train, y_train (in {0, 1}), X_test, y_test.  SPEC.json:

    {"delta": 1e-5,
     "jobs": [{"epsilon": 1.0, "seed": 0, "config": "b1024-lr4-e20",
               "batch_size": 1024, "lr": 4.0, "epochs": 20, "momentum": 0.0,
               "clip": 1.0, "noise_multiplier": 3.1,
               "sample_rate": 0.03125, "steps": 640}, ...]}

``noise_multiplier`` (z) was calibrated in the main environment for the run that Opacus
makes of (n, batch_size, epochs): ``sample_rate`` and ``steps`` are what the main
environment expects Opacus to do; the worker checks both against what it really did and
fails loudly if they differ.

The fit (timed as ``fit_time``): logistic regression ``torch.nn.Linear(d, 1)`` with a bias,
zero-initialised, ``BCEWithLogitsLoss`` (mean), ``torch.optim.SGD(lr, momentum,
weight_decay=0)``, made private by ``PrivacyEngine(secure_mode=False).make_private(...,
noise_multiplier=z, max_grad_norm=clip, poisson_sampling=True)`` from a plain
``DataLoader(batch_size=batch_size)``, then ``epochs`` passes over the DP data loader.  What
Opacus 1.6 does with that (read in its source, checked here at run time):

* ``DPDataLoader``: sample_rate q = 1 / len(DataLoader) = 1 / ceil(n / batch_size), each
  step keeps every row independently with probability q (``UniformWithReplacementSampler``:
  ``torch.rand(n) < q``), int(1/q) steps per epoch.
* ``DPOptimizer``: per-example gradients (of weight and bias together) clipped to norm
  ``clip``, summed, plus N(0, (z clip)^2 I), then divided by
  ``expected_batch_size = int(n q)`` (loss_reduction="mean"), then the SGD step.

The data loader's batches are fetched with one fancy-index per batch
(``_RowsDataset.__getitems__``) instead of one ``__getitem__`` per row: the batches are the
same (Opacus's sampler picks the indices), only the Python overhead per row goes away.

OUT.json: {"versions": {...}, "results": [{**job, "score": test accuracy, "fit_time": s,
"opacus_epsilon": Opacus's own epsilon (its default "prv" accountant, ADD/REMOVE
neighbours, for information), "opacus_sample_rate", "opacus_steps",
"expected_batch_size"}, ...]}.
"""

import json
import math
import sys
import time
import warnings


def _make_dataset_class():
    import torch
    from torch.utils.data import Dataset

    class _RowsDataset(Dataset):
        """(X[i], y[i]) rows; ``__getitems__`` returns one stacked batch (torch >= 2.1)."""

        def __init__(self, X, y):
            self.X = X
            self.y = y

        def __len__(self):
            return self.X.shape[0]

        def __getitem__(self, i):
            return self.X[i], self.y[i]

        def __getitems__(self, idx):
            idx = torch.as_tensor(idx, dtype=torch.long)
            return [self.X[idx], self.y[idx]]

    return _RowsDataset


def _collate_stacked(batch):
    # batch is already [X_batch, y_batch] (from __getitems__); Opacus wraps this function
    # to handle empty Poisson batches.
    return batch


def _fit_one(job, data, delta, Dataset):
    import torch
    from opacus import PrivacyEngine
    from torch.utils.data import DataLoader

    X, y, Xt, yt = data
    _n, d = X.shape
    seed = int(job["seed"])
    torch.manual_seed(seed)
    sample_gen = torch.Generator().manual_seed(2 * seed + 1)
    noise_gen = torch.Generator().manual_seed(2 * seed + 2)

    t0 = time.perf_counter()
    model = torch.nn.Linear(d, 1, bias=True)
    with torch.no_grad():
        model.weight.zero_()
        model.bias.zero_()
    optimizer = torch.optim.SGD(model.parameters(), lr=float(job["lr"]),
                                momentum=float(job.get("momentum", 0.0)), weight_decay=0.0)
    loader = DataLoader(Dataset(X, y), batch_size=int(job["batch_size"]),
                        collate_fn=_collate_stacked, generator=sample_gen)
    engine = PrivacyEngine(secure_mode=False)
    model, optimizer, dp_loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=loader,
        noise_multiplier=float(job["noise_multiplier"]), max_grad_norm=float(job["clip"]),
        poisson_sampling=True, noise_generator=noise_gen,
    )
    q = float(dp_loader.sample_rate)
    steps_per_epoch = len(dp_loader)
    if not math.isclose(q, float(job["sample_rate"]), rel_tol=1e-12):
        raise RuntimeError(f"Opacus sample rate {q} != calibrated {job['sample_rate']}")
    if steps_per_epoch * int(job["epochs"]) != int(job["steps"]):
        raise RuntimeError(f"Opacus steps {steps_per_epoch} x {job['epochs']} epochs != "
                           f"calibrated {job['steps']}")
    if optimizer.noise_multiplier != float(job["noise_multiplier"]) or \
            optimizer.max_grad_norm != float(job["clip"]):
        raise RuntimeError("DPOptimizer noise_multiplier / max_grad_norm not as passed")
    criterion = torch.nn.BCEWithLogitsLoss()
    model.train()
    n_steps = 0
    for _ in range(int(job["epochs"])):
        for xb, yb in dp_loader:
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()
            n_steps += 1
    fit_time = time.perf_counter() - t0
    if n_steps != int(job["steps"]):
        raise RuntimeError(f"ran {n_steps} steps, calibrated for {job['steps']}")
    # Opacus's accountant history: one (noise_multiplier, sample_rate, n_steps) entry.
    history = list(engine.accountant.history)
    if history != [(float(job["noise_multiplier"]), q, n_steps)]:
        raise RuntimeError(f"unexpected Opacus accountant history {history}")

    model.eval()
    with torch.no_grad():
        pred = (model(Xt).squeeze(1) > 0).to(yt.dtype)
        score = float((pred == yt).to(torch.float64).mean())
        w = model._module.weight if hasattr(model, "_module") else model.weight
        finite = bool(torch.isfinite(w).all())
    try:
        opacus_eps = float(engine.get_epsilon(delta))
    except Exception as exc:  # the PRV accountant can fail at extreme settings
        opacus_eps = f"{type(exc).__name__}: {exc}"[:200]
    return {**job, "score": score if finite else None, "fit_time": fit_time,
            "opacus_epsilon": opacus_eps, "opacus_sample_rate": q,
            "opacus_steps": n_steps,
            "expected_batch_size": int(optimizer.expected_batch_size)}


def main(data_path, spec_path, out_path):
    import numpy as np
    import opacus
    import torch

    torch.set_num_threads(1)
    warnings.simplefilter("ignore")  # Opacus's secure_mode / RNG notices
    import logging
    logging.getLogger("opacus").setLevel(logging.ERROR)

    with open(spec_path) as fh:
        spec = json.load(fh)
    with np.load(data_path) as npz:
        data = tuple(torch.from_numpy(np.ascontiguousarray(npz[k], dtype=np.float32))
                     for k in ("X_train", "y_train", "X_test", "y_test"))
    Dataset = _make_dataset_class()
    if spec["jobs"]:  # untimed warm-up fit (first-call costs of torch / Opacus), discarded
        _fit_one(spec["jobs"][0], data, float(spec["delta"]), Dataset)
    results = []
    for job in spec["jobs"]:
        results.append(_fit_one(job, data, float(spec["delta"]), Dataset))
        if spec.get("progress"):
            r = results[-1]
            print(f"{r['config']} eps={r['epsilon']:g} seed={r['seed']}: acc {r['score']} "
                  f"fit {r['fit_time']:.2f} s", file=sys.stderr, flush=True)
    out = {
        "versions": {
            "opacus": opacus.__version__,
            "torch": torch.__version__,
            "numpy": np.__version__,
            "python": sys.version.split()[0],
            "torch_threads": torch.get_num_threads(),
        },
        "results": results,
    }
    with open(out_path, "w") as fh:
        json.dump(out, fh)


if __name__ == "__main__":
    main(*sys.argv[1:4])
