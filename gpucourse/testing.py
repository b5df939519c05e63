"""Probes and inputs used by the notebooks' test cells.

Nothing here answers an exercise: the reference answers the hidden tests compare with live in the
hidden tests themselves, which students never receive.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class ModeProbe(nn.Module):
    """Wraps a module and records, at every forward call, ``training`` and whether autograd was on."""

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner
        self.seen_modes: list[bool] = []
        self.seen_grad: list[bool] = []

    def forward(self, x):
        self.seen_modes.append(self.training)
        self.seen_grad.append(torch.is_grad_enabled())
        return self.inner(x)


def toy_loader(n: int, batch_size: int, features: int, classes: int, seed: int) -> DataLoader:
    """A small classification loader in a fixed order (no shuffle), so two passes see the same batches."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, features, generator=g)
    y = torch.randint(0, classes, (n,), generator=g)
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=False)
