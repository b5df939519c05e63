"""Notebook 08's final run on real Fashion-MNIST, on this machine: test accuracy, time, examples/s, and the floor.

Trains exactly the configuration the notebook trains in full mode (``gpucourse.training.FINAL``, through the same
``gpucourse.training.train``), with the 60,000 training images resident in memory as uint8 and batches drawn by
``resident_batches`` (benchmarks/loader_speed.py's copy of the notebook's ``gpu_resident_batches``), once per seed.

    python benchmarks/final_run.py [--seeds 0 1 2] [--epochs N] [--precision float32|bfloat16] [--compiled]
                                   [--threads 0] [--device cpu|cuda]

Prints, per seed, the test accuracy after the last epoch, the epochs, the training seconds (evaluation excluded),
examples per second, and the ratio of the measured time per epoch to the compute floor per epoch:

    floor = FLOPs per epoch / matmul FLOP/s measured here at the same shapes,

with FLOPs per epoch = steps x 3 x the forward pass's matmul FLOPs (forward, and a backward that computes the
gradient of every matmul's two inputs), layer by layer for the layers of ``FINAL.model``. The FLOP/s is the best of
several timings of exactly those matmuls (three per layer) at the run's batch size and precision (bfloat16 matmuls
for ``--precision bfloat16``), in this process, with the same threads, taken before and after each run (on a shared
machine the rate moves with the load; the load average is printed with it). Autograd skips the gradient of the
images themselves (the first layer's input-gradient matmul), so the step really runs less, about 2x the forward
matmuls with one hidden layer: the second ratio printed uses that floor.
The course's target on a CPU with the data resident in memory: within 3x of the 3x-forward floor.

Seeded: the same seed gives the same accuracy on the same machine and torch build (threads can change the last
digits of float sums, and so, rarely, an image's class). Exit status 1 when any seed ends below 91.0 %, 2 without
the real data.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import torch
from tqdm.auto import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from loader_speed import resident_batches  # noqa: E402  (the benchmarks' copy of gpu_resident_batches)

from gpucourse.data import as_tensors, fashion_mnist  # noqa: E402
from gpucourse.timing import synchronize  # noqa: E402
from gpucourse.training import FINAL, normalize, train  # noqa: E402

TARGET = 0.91


def layer_widths(cfg) -> list[int]:
    """The widths the run's matmuls go through: 784 inputs, each hidden layer of ``FINAL.model``, 10 classes."""
    return [layer.in_features for layer in cfg.model() if isinstance(layer, torch.nn.Linear)] + [10]


def forward_matmul_flops(batch: int, widths: list[int]) -> int:
    """Matmul FLOPs of one forward pass of the MLP on a batch (2 per multiply-add), layer by layer."""
    return sum(2 * batch * n_in * n_out for n_in, n_out in zip(widths, widths[1:]))


def matmul_flops_per_s(batch: int, widths: list[int], device: torch.device, dtype=torch.float32,
                       repeats: int = 30) -> float:
    """Best FLOP/s of the 3 matmuls per layer of a forward plus full backward at the run's shapes and dtype."""
    g = torch.Generator().manual_seed(0)
    acts = [torch.randn(batch, n, generator=g).to(device, dtype) for n in widths]      # each layer's input / output
    weights = [torch.randn(n_out, n_in, generator=g).to(device, dtype) for n_in, n_out in zip(widths, widths[1:])]

    def all_matmuls():
        for x, w, out in zip(acts, weights, acts[1:]):       # out stands in for the output and for its gradient
            x @ w.T                                          # forward
            out.T @ x                                        # weight gradient
            out @ w                                          # input gradient
    flops = 3 * forward_matmul_flops(batch, widths)
    best = float("inf")
    for _ in range(repeats):
        synchronize(device)
        start = time.perf_counter()
        for _ in range(5):
            all_matmuls()
        synchronize(device)
        best = min(best, (time.perf_counter() - start) / 5)
    return flops / best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[FINAL.seed])
    parser.add_argument("--epochs", type=int, default=FINAL.epochs)
    parser.add_argument("--precision", choices=("float32", "bfloat16", "float16"), default="float32",
                        help="autocast dtype (float32: none); the notebook uses its fastest measured configuration")
    parser.add_argument("--compiled", action="store_true", help="torch.compile the model, as the 'compiled' rows")
    parser.add_argument("--threads", type=int, default=0, help="torch intra-op threads (0: torch's default)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args(argv)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    amp_dtype = None if args.precision == "float32" else getattr(torch, args.precision)
    matmul_dtype = amp_dtype or torch.float32      # autocast runs the matmuls in its dtype: the floor does too

    train_set, test_set = fashion_mnist(train=True), fashion_mnist(train=False)
    if train_set.is_standin:
        print("No real Fashion-MNIST here (the stand-in was loaded): install dataset-fashion-mnist or go online.")
        return 2
    images, labels = as_tensors(train_set)
    x_train, y_train = images.to(device), labels.to(device)           # resident, uint8 as shipped
    images, labels = as_tensors(test_set)
    x_test, y_test = normalize(images.to(device)), labels.to(device)

    compile_fn = None
    if args.compiled:
        from gpucourse.compiling import try_compile
        compile_fn = lambda model, example: try_compile(model, example_inputs=(example,)).fn  # noqa: E731

    cfg = FINAL
    steps = len(x_train) // cfg.batch_size
    widths = layer_widths(cfg)
    epoch_flops = steps * 3 * forward_matmul_flops(cfg.batch_size, widths)
    step_share = 1 - 2 * cfg.batch_size * widths[0] * widths[1] * steps / epoch_flops   # no gradient for the images
    print(f"torch {torch.__version__}, device {device}, {torch.get_num_threads()} CPU threads, "
          f"precision {args.precision}{', compiled' if args.compiled else ''}")
    print(f"configuration: {cfg}")
    print(f"work per epoch: {epoch_flops / 1e12:.3f} TFLOP (3x the forward matmuls of {steps} steps, "
          f"layers {' -> '.join(map(str, widths))})")

    rows = []
    for seed in args.seeds:
        rate_before = matmul_flops_per_s(cfg.batch_size, widths, device, matmul_dtype)
        result, _ = train(resident_batches, x_train, y_train, x_test, y_test, cfg, epochs=args.epochs,
                          amp_dtype=amp_dtype, compile_fn=compile_fn, seed=seed,
                          progress=lambda r, s=seed: tqdm(r, desc=f"seed {s}", file=sys.stdout, mininterval=5))
        flop_rate = max(rate_before, matmul_flops_per_s(cfg.batch_size, widths, device, matmul_dtype))
        floor_3x = epoch_flops / flop_rate
        print(f"matmul rate at these shapes: {flop_rate / 1e9:.1f} GFLOP/s (best before/after; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs); floor per epoch {floor_3x:.2f} s (3x forward), "
              f"{floor_3x * step_share:.2f} s (the matmuls the step runs)")
        per_epoch = result.seconds / args.epochs
        rows.append((seed, result.accuracy, result.seconds, result.examples_per_s, per_epoch / floor_3x))
        print(f"seed {seed}: test accuracy {result.accuracy:.2%} after {args.epochs} epochs, "
              f"{result.seconds:.1f} s of training, {result.examples_per_s:,.0f} examples/s, "
              f"{per_epoch:.2f} s per epoch = {per_epoch / floor_3x:.2f}x the 3x-forward floor "
              f"({per_epoch / (floor_3x * step_share):.2f}x the floor of the matmuls it runs)", flush=True)

    accuracies = [r[1] for r in rows]
    print(f"\nsummary over seeds {args.seeds}: test accuracy min {min(accuracies):.2%}, "
          f"mean {statistics.mean(accuracies):.2%}, max {max(accuracies):.2%} (target {TARGET:.1%}); "
          f"median {statistics.median(r[2] for r in rows):.1f} s, {statistics.median(r[3] for r in rows):,.0f} "
          f"examples/s, {statistics.median(r[4] for r in rows):.2f}x the floor per epoch (target: within 3x)")
    return 0 if min(accuracies) >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
