"""
Training on a table bigger than memory: Parquet, dask and a memory-limited cluster
===================================================================================

A private fit never needs the whole table in one process. This example trains
:class:`skdpgd.DPLogisticRegression` from a directory of Parquet files:

1. ``dask.dataframe.read_parquet`` reads the files lazily, one partition per file;
2. every partition goes through **public-bound** preprocessing (a scikit-learn
   ``ColumnTransformer`` of :class:`~skdpgd.preprocessing.BoundedScaler` and
   :func:`~skdpgd.preprocessing.public_one_hot`), fitted on a row of public constants,
   never on the data;
3. the result is a ``dask.array`` whose row counts come from the Parquet footers, so n and
   d, which are public, are known before any value is read (the privacy report and a
   ledger charge need nothing else);
4. the fit runs on a ``distributed.LocalCluster`` whose memory limit is *below* the size
   of X: every row block is clipped where it is read and kept on a worker, which spills
   to disk what exceeds its limit; each pass computes one partial gradient per block
   where the block lives and only those sums (a vector of d + 1 numbers each) come back.

The table here is small so that the page builds in seconds; the same code with
:repo:`benchmarks/out_of_memory.py` trains on millions of rows (see the scaling guide).
"""

import math
import shutil
import tempfile
from pathlib import Path

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow.parquet as pq
from distributed import Client, LocalCluster
from sklearn.compose import ColumnTransformer

from skdpgd import DPLogisticRegression
from skdpgd.preprocessing import BoundedScaler, public_one_hot

# %%
# A directory of Parquet files
# ----------------------------
# Eight files of a census-like table: six numeric columns whose public range is
# [-4, 4], a region over a public code list, and a binary label.

REGIONS = ["north", "south", "east", "west", "centre", "islands"]
NUMERIC = [f"x{j}" for j in range(6)]
rng = np.random.default_rng(0)
folder = Path(tempfile.mkdtemp()) / "table"
folder.mkdir()
for k in range(8):
    frame = pd.DataFrame(rng.standard_normal((5000, 6)), columns=NUMERIC)
    frame["region"] = rng.choice(REGIONS, size=5000)
    score = frame[NUMERIC].to_numpy() @ np.linspace(-1, 1, 6) + (frame["region"] == "north")
    frame["label"] = (score + rng.logistic(size=5000) > 0).astype(float)
    frame.to_parquet(folder / f"part-{k:02d}.parquet", index=False)

# %%
# Public-bound preprocessing, applied partition by partition
# ----------------------------------------------------------
# The transformer's constants are public (ranges, code list); it is fitted on one row
# built from them. After it a row has 6 values in [0, 1] and one one-hot 1: its norm is
# at most sqrt(7), the public ``data_norm``.

preprocess = ColumnTransformer(
    [("numeric", BoundedScaler(bounds=(-4.0, 4.0)), NUMERIC),
     ("region", public_one_hot([REGIONS]), ["region"])],
    sparse_threshold=0.0,
).fit(pd.DataFrame([[-4.0] * 6 + [REGIONS[0]]], columns=[*NUMERIC, "region"]))
width = len(preprocess.get_feature_names_out())
columns = [f"f{j}" for j in range(width)] + ["label"]


def transform(part):
    values = np.column_stack([preprocess.transform(part), part["label"].to_numpy()])
    return pd.DataFrame(values, columns=columns, index=part.index)


files = sorted(folder.glob("*.parquet"))
lengths = [pq.ParquetFile(f).metadata.num_rows for f in files]  # structure, not values
table = dd.read_parquet([str(f) for f in files], split_row_groups=False)
values = table.map_partitions(
    transform, meta=pd.DataFrame({c: pd.Series(dtype=float) for c in columns})
).to_dask_array(lengths=lengths)
X, y = values[:, :width], values[:, width]
print(f"X: {X.shape[0]} rows x {X.shape[1]} features = {X.nbytes / 1e6:.1f} MB, lazily")

# %%
# The fit on a cluster with less memory than X
# --------------------------------------------
# Two workers (threads here, so that the page builds fast; processes on a real machine)
# may each hold 500 kB of data before spilling to disk.

config = {"distributed.worker.memory.target": 0.5, "distributed.worker.memory.spill": False,
          "distributed.worker.memory.pause": False, "distributed.worker.memory.terminate": False}
with dask.config.set(config), LocalCluster(
    n_workers=2, threads_per_worker=1, memory_limit="1MB", processes=False,
    dashboard_address=":0",
) as cluster, Client(cluster) as client:
    model = DPLogisticRegression(
        epsilon=1.0, classes=[0.0, 1.0], data_norm=math.sqrt(7.0), solver="gd",
        max_iter=5, random_state=0,
    ).fit(X, y)
    on_disk = client.run(lambda dask_worker: int(dask_worker.data.spilled_total.disk))
print(f"spilled to disk: {sum(on_disk.values()) / 1e6:.1f} MB")
print(model.privacy_)

# %%
# The same model as in memory
# ---------------------------
# The same pipeline with pandas and numpy on one machine gives the same model: the
# partial sums are only grouped by block instead of by row chunk (rounding).

frame = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
in_memory = DPLogisticRegression(
    epsilon=1.0, classes=[0.0, 1.0], data_norm=math.sqrt(7.0), solver="gd", max_iter=5,
    random_state=0,
).fit(preprocess.transform(frame), frame["label"].to_numpy())
print("largest coefficient difference:", np.max(np.abs(model.coef_ - in_memory.coef_)))

import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(4, 4))
ax.scatter(in_memory.coef_.ravel(), model.coef_.ravel())
ax.axline((0, 0), slope=1, color="k", lw=0.8)
ax.set_xlabel("coefficient, in memory (numpy)")
ax.set_ylabel("coefficient, on the cluster (dask)")
fig.tight_layout()

shutil.rmtree(folder.parent)  # the example's files
