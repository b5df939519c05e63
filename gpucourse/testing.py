"""Independent references and probes used by the notebooks' test cells.

The tests compute what a correct answer must return with the code here, on fresh random inputs,
so that no expected value is ever written into a test by hand.
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


def reference_train_epoch(model: nn.Module, loader, lr: float) -> float:
    """One epoch of plain SGD with cross-entropy; the mean loss per example, before each step."""
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    criterion = nn.CrossEntropyLoss()
    total, count = 0.0, 0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(x)
        count += len(x)
    if isinstance(model, ModeProbe):
        model.seen_modes.clear()  # the reference's own forward calls are not the student's
    return total / count


def reference_accuracy(model: nn.Module, loader) -> float:
    """Fraction of correct argmax predictions over every example, without touching the probe's records."""
    inner = model.inner if isinstance(model, ModeProbe) else model
    was_training = inner.training
    inner.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (inner(x).argmax(1) == y).sum().item()
            total += len(y)
    inner.train(was_training)
    return correct / total
