"""Fashion-MNIST, for real when the network allows, else an announced stand-in of the same form.

The stand-in is written as the same IDX files that Fashion-MNIST ships, so that the real
``torchvision.datasets.FashionMNIST`` class parses it: the loading code a student reads is the
real one either way. A marker file in the raw folder records that the files are a stand-in, and
every load of a stand-in says so.
"""

from __future__ import annotations

import os
import socket
import struct
from pathlib import Path

import torch

CLASSES = (
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
    "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
)
#: Mean and standard deviation of the real training images, scaled to [0, 1].
MEAN, STD = 0.2860, 0.3530
STANDIN_MARKER = "STAND-IN-NOT-FASHION-MNIST.txt"
RAW_FILES = {
    True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}
SIZES = {True: 60_000, False: 10_000}


def default_root() -> Path:
    """``$COURSE_DATA`` if set, else a cache folder shared by every notebook of the course."""
    env = os.environ.get("COURSE_DATA")
    if env:
        return Path(env)
    return Path.home() / ".cache" / "gpucourse" / "data"


# ---------------------------------------------------------------------------------------------
# IDX files: the format Fashion-MNIST (and MNIST) ship in.
# ---------------------------------------------------------------------------------------------
def write_idx(path: str | os.PathLike, array: torch.Tensor) -> None:
    """Write a uint8 tensor as an IDX file (magic 0x0000 08 NDIM, big-endian sizes, raw bytes)."""
    array = torch.as_tensor(array)
    if array.dtype != torch.uint8:
        raise TypeError(f"IDX files here hold uint8, got {array.dtype}")
    header = struct.pack(">HBB", 0, 0x08, array.dim())
    header += b"".join(struct.pack(">I", n) for n in array.shape)
    Path(path).write_bytes(header + array.contiguous().numpy().tobytes())


def _prototypes(generator: torch.Generator) -> torch.Tensor:
    """Ten smooth 28x28 class templates: blurred random blobs, one per class."""
    coarse = torch.rand(len(CLASSES), 1, 7, 7, generator=generator)
    smooth = torch.nn.functional.interpolate(coarse, size=(28, 28), mode="bicubic", align_corners=False)
    yy, xx = torch.meshgrid(torch.linspace(-1, 1, 28), torch.linspace(-1, 1, 28), indexing="ij")
    mask = (1 - (xx**2 + yy**2)).clamp(min=0)  # dark border, like centred clothing
    return (smooth[:, 0] * mask).clamp(0, 1)


def standin_tensors(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` deterministic uint8 images (n, 28, 28) and int64 labels, learnable but not trivial.

    Each image is its class template with random brightness, a shift of up to two pixels and
    pixel noise; a share of the images borrow part of another class's template so that a linear
    model cannot reach 100 %.
    """
    templates = _prototypes(torch.Generator().manual_seed(1234))
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, len(CLASSES), (n,), generator=g)
    other = torch.randint(0, len(CLASSES), (n,), generator=g)
    mix = 0.45 * torch.rand(n, 1, 1, generator=g)
    images = (1 - mix) * templates[labels] + mix * templates[other]
    images = images * (0.6 + 0.4 * torch.rand(n, 1, 1, generator=g))
    shifts = torch.randint(-2, 3, (2,), generator=g).tolist()
    images = torch.roll(images, shifts=tuple(shifts), dims=(1, 2))
    images = images + 0.12 * torch.randn(n, 28, 28, generator=g)
    return (images.clamp(0, 1) * 255).round().to(torch.uint8), labels


def write_standin(root: str | os.PathLike) -> Path:
    """Write the stand-in as Fashion-MNIST's four IDX files under ``root/FashionMNIST/raw``."""
    raw = Path(root) / "FashionMNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    for train, (images_name, labels_name) in RAW_FILES.items():
        images, labels = standin_tensors(SIZES[train], seed=1 if train else 2)
        write_idx(raw / images_name, images)
        write_idx(raw / labels_name, labels.to(torch.uint8))
    (raw / STANDIN_MARKER).write_text(
        "These files are a synthetic stand-in written by gpucourse.data because Fashion-MNIST "
        "could not be downloaded. Delete this folder to try the real download again.\n"
    )
    return raw


def is_standin(root: str | os.PathLike) -> bool:
    return (Path(root) / "FashionMNIST" / "raw" / STANDIN_MARKER).exists()


def _have_raw(root: Path) -> bool:
    raw = root / "FashionMNIST" / "raw"
    return all((raw / name).exists() for pair in RAW_FILES.values() for name in pair)


def _try_download(root: Path, timeout_s: float) -> Exception | None:
    from torchvision.datasets import FashionMNIST

    old = socket.getdefaulttimeout()
    socket.setdefaulttimeout(timeout_s)  # fail fast offline instead of hanging
    try:
        FashionMNIST(root, train=True, download=True)
        FashionMNIST(root, train=False, download=True)
        return None
    except Exception as error:  # any network or mirror failure
        return error
    finally:
        socket.setdefaulttimeout(old)


def fashion_mnist(train: bool = True, root: str | os.PathLike | None = None, download: bool = True,
                  timeout_s: float = 10.0, verbose: bool = True):
    """Fashion-MNIST as ``torchvision.datasets.FashionMNIST`` (uint8 images in ``.data``).

    Downloads only what is missing. Offline, writes the stand-in once and announces it on
    every load, so that nobody mistakes its accuracy figures for Fashion-MNIST's.
    """
    from torchvision.datasets import FashionMNIST

    root = Path(root) if root is not None else default_root()
    root.mkdir(parents=True, exist_ok=True)
    if not _have_raw(root):
        error = _try_download(root, timeout_s) if download else RuntimeError("download=False")
        if error is not None and not _have_raw(root):
            if verbose:
                print(f"Fashion-MNIST is not reachable ({type(error).__name__}); "
                      "writing the offline stand-in instead.")
            write_standin(root)
    dataset = FashionMNIST(root, train=train, download=False)
    dataset.is_standin = is_standin(root)
    if dataset.is_standin and verbose:
        print("NOTE: using the OFFLINE STAND-IN, not Fashion-MNIST: synthetic 28x28 images of the "
              "same shape and type. Accuracy figures below are not comparable with the real data.")
    return dataset


def as_tensors(dataset, limit: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """``(uint8 images (N, 1, 28, 28), int64 labels)`` of a FashionMNIST dataset, optionally the first ``limit``."""
    images, labels = dataset.data, dataset.targets
    if limit is not None:
        images, labels = images[:limit], labels[:limit]
    return images.unsqueeze(1).contiguous(), labels.long()


def float_dataset(dataset, limit: int | None = None) -> torch.utils.data.TensorDataset:
    """A TensorDataset of normalized float32 images and labels, ready for a DataLoader."""
    images, labels = as_tensors(dataset, limit)
    x = (images.float() / 255 - MEAN) / STD
    return torch.utils.data.TensorDataset(x, labels)
