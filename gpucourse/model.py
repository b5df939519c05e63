"""Module 5's Fashion-MNIST MLP (optionally wider, with dropout), notebook 08's small CNN, module 6's AdamW + cosine."""

from __future__ import annotations

import math

import torch
from torch import nn


def make_mlp(hidden: int = 256, num_classes: int = 10, seed: int | None = 0, dropout: float = 0.0) -> nn.Sequential:
    """``Flatten, Linear(784, hidden), ReLU, Linear(hidden, num_classes)``, seeded for repeatability.

    ``dropout > 0`` puts a ``Dropout`` after the ReLU (notebook 08's final run); the default is module 5's MLP.
    """
    if seed is not None:
        torch.manual_seed(seed)
    layers = [nn.Flatten(), nn.Linear(28 * 28, hidden), nn.ReLU()]
    if dropout > 0:
        layers.append(nn.Dropout(dropout))
    return nn.Sequential(*layers, nn.Linear(hidden, num_classes))


def make_cnn(channels: tuple[int, int] = (16, 32), hidden: int = 128, num_classes: int = 10, seed: int | None = 0,
             dropout: float = 0.3) -> nn.Sequential:
    """Two 3x3 convolutions (each ReLU, then 2x2 max-pooling: 28 -> 14 -> 7), then module 5's head, seeded.

    ``Conv(1, c1), ReLU, MaxPool, Conv(c1, c2), ReLU, MaxPool, Flatten, Dropout, Linear(c2*7*7, hidden), ReLU,
    Dropout, Linear(hidden, num_classes)``: notebook 08's final run, which the MLP does not get to 91 %.
    """
    if seed is not None:
        torch.manual_seed(seed)
    c1, c2 = channels
    return nn.Sequential(
        nn.Conv2d(1, c1, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(c1, c2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(dropout), nn.Linear(c2 * 7 * 7, hidden), nn.ReLU(),
        nn.Dropout(dropout), nn.Linear(hidden, num_classes))


def make_adamw_cosine(
    model: nn.Module,
    total_steps: int,
    lr: float = 1e-3,
    weight_decay: float = 1e-2,
    warmup_steps: int = 0,
):
    """AdamW with a linear warm-up and a cosine decay to zero over ``total_steps`` steps.

    Returns ``(optimizer, scheduler)``; call ``scheduler.step()`` once per optimizer step.
    """
    if total_steps < 1:
        raise ValueError("total_steps must be at least 1")
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)

    def factor(step: int) -> float:
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
        return 0.5 * (1.0 + math.cos(math.pi * progress))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
    return optimizer, scheduler
