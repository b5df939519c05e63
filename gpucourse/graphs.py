"""A whole training step captured in one CUDA graph: notebook 08's cure for a host-bound step.

Eager PyTorch pays host time for every kernel of a step (Python, dispatch, the launch itself). A CUDA graph
records the step's kernels once and replays them with one launch, so a step whose GPU work is shorter than
its host work gets faster by roughly the ratio of the two. What a graph needs, and this module arranges:

- static inputs: the graph reads fixed addresses, so each batch is copied into the same tensors;
- a warm-up on a side stream before the capture (lazy initializations such as the optimizer's state and
  cuBLAS's workspace must not happen inside the capture);
- gradients set to None before the capture, so that the captured backward allocates them in the graph's
  own memory and every replay overwrites them;
- an optimizer built with ``capturable=True`` (its step counter lives on the GPU), and no synchronization
  in the step (no ``.item()``, no GradScaler, no learning-rate scheduler changing a Python float: a replay
  keeps the values it was captured with).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def graphed_train_step(model: torch.nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor,
                       warmup: int = 3):
    """``step(x, y) -> loss`` that replays one captured CUDA graph of forward, cross-entropy, backward and
    ``optimizer.step()``; ``x`` and ``y`` give the shapes (every batch must have them) and serve for the warm-up
    steps, which train ``model`` on them. The optimizer must have been built with ``capturable=True``."""
    if x.device.type != "cuda":
        raise RuntimeError(f"CUDA graphs need a CUDA GPU; these tensors are on {x.device}")
    static_x, static_y = x.clone(), y.clone()

    def train_step():
        loss = F.cross_entropy(model(static_x), static_y)
        loss.backward()
        optimizer.step()
        return loss

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup):
            optimizer.zero_grad(set_to_none=True)
            train_step()
    torch.cuda.current_stream().wait_stream(side)

    graph = torch.cuda.CUDAGraph()
    optimizer.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        static_loss = train_step()

    def step(xb: torch.Tensor, yb: torch.Tensor) -> torch.Tensor:
        static_x.copy_(xb, non_blocking=True)
        static_y.copy_(yb, non_blocking=True)
        graph.replay()
        return static_loss

    step.graph = graph            # kept reachable: the graph's memory lives as long as the step
    return step
