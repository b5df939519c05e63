"""Fashion-MNIST: the official files from the system, else downloaded, else an announced stand-in.

Three sources, tried in this order until one works:

1. the official files a system package installed (Debian's ``dataset-fashion-mnist`` puts the
   four ``.gz`` files in ``/usr/share/datasets/fashion-mnist/``). Their gzip bytes differ from
   the official download's, so torchvision's MD5 check of the archives would reject them; they
   are decompressed here instead and the *decompressed* content is checked against its known
   size and SHA-256 (:data:`OFFICIAL_FILES`);
2. torchvision's own download;
3. a stand-in of the same form, written as the same IDX files.

Whatever the source, ``torchvision.datasets.FashionMNIST`` parses the files: the loading code a
student reads is the real one. A marker file in the raw folder records that the files are a
stand-in, and every load of a stand-in says so.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import socket
import struct
import tempfile
import zlib
from pathlib import Path

import torch

from gpucourse.datacache import (  # noqa: F401  (still this module's names: where readers and tests look)
    OFFICIAL_FILES,
    RAW_FILES,
    SIZES,
    STANDIN_MARKER,
    SYSTEM_DIR,
    SYSTEM_DIR_ENV,
    _have_raw,
    cache_ready,
    default_root,
    is_standin,
    system_dir,
    system_files_present,
)

CLASSES = (
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
    "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
)
#: Mean and standard deviation of the real training images, scaled to [0, 1].
MEAN, STD = 0.2860, 0.3530


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
        "could not be downloaded. Delete this folder to try the real download again; installing the "
        "system package dataset-fashion-mnist replaces them at the next load.\n"
    )
    return raw


def _decompress_verified(source: Path, target_dir: Path, size: int, sha256: str) -> Path:
    """Decompress ``source`` to a temporary file in ``target_dir``; raise ValueError unless size and SHA-256 match."""
    digest, written = hashlib.sha256(), 0
    fd, part = tempfile.mkstemp(dir=target_dir, prefix=".", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out, gzip.open(source, "rb") as compressed:
            while chunk := compressed.read(1 << 20):
                digest.update(chunk)
                written += len(chunk)
                out.write(chunk)
        if written != size:
            raise ValueError(f"{source.name} decompresses to {written:,} bytes, expected {size:,}")
        if digest.hexdigest() != sha256:
            raise ValueError(f"{source.name} has the right size but the wrong SHA-256 (not the official file)")
        return Path(part)
    except (OSError, EOFError, zlib.error) as error:  # missing, unreadable, not gzip, truncated archive
        os.unlink(part)
        raise ValueError(f"{source.name}: {type(error).__name__}: {error}") from None
    except ValueError:
        os.unlink(part)
        raise


def _try_system_files(root: Path) -> str | None:
    """Put the system's official files, verified, into torchvision's raw layout; ``None`` on success, else why not.

    All four are checked before any is put in place, so that a bad file leaves the cache as it was.
    """
    source = system_dir()
    if not system_files_present():
        return f"no official files in {source}"
    raw = root / "FashionMNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    parts: dict[str, Path] = {}
    try:
        for name, (size, sha256) in OFFICIAL_FILES.items():
            parts[name] = _decompress_verified(source / f"{name}.gz", raw, size, sha256)
    except ValueError as error:
        for part in parts.values():
            os.unlink(part)
        return str(error)
    for name, part in parts.items():
        os.replace(part, raw / name)  # atomic: a concurrent reader sees the old file or the new one
    (raw / STANDIN_MARKER).unlink(missing_ok=True)
    return None


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

    Fills the cache once, from the first source that works: the system's official files, the
    download, the stand-in. A cached stand-in is replaced by the system's files as soon as they
    exist. Every load of a stand-in announces it, so that nobody mistakes its accuracy figures for
    Fashion-MNIST's.
    """
    from torchvision.datasets import FashionMNIST

    root = Path(root) if root is not None else default_root()
    root.mkdir(parents=True, exist_ok=True)
    source = "cache"
    if not cache_ready(root):
        source = _fill_cache(root, download, timeout_s, verbose)
    dataset = FashionMNIST(root, train=train, download=False)
    dataset.is_standin = is_standin(root)
    dataset.source = source  # where the files came from on this call: cache, system, download or stand-in
    if dataset.is_standin and verbose:
        print("NOTE: using the OFFLINE STAND-IN, not Fashion-MNIST: synthetic 28x28 images of the "
              "same shape and type. Accuracy figures below are not comparable with the real data.")
    return dataset


def _fill_cache(root: Path, download: bool, timeout_s: float, verbose: bool) -> str:
    """System files, else download, else the stand-in; returns which.

    A cached stand-in is only upgraded to system files."""
    had_standin = is_standin(root)
    reason = _try_system_files(root)
    if reason is None:
        if verbose:
            print(f"Fashion-MNIST: the official files from {system_dir()} (checksums verified)"
                  + (", replacing the offline stand-in." if had_standin else "."))
        return "system"
    if system_files_present():  # the package is there but unusable: always say why
        print(f"Fashion-MNIST: not using {system_dir()}: {reason}.")
    if had_standin:
        return "stand-in"  # the stand-in's marker says how to retry the download
    error = _try_download(root, timeout_s) if download else RuntimeError("download=False")
    if error is not None and not _have_raw(root):
        if verbose:
            print(f"Fashion-MNIST is not reachable ({type(error).__name__}); "
                  "writing the offline stand-in instead.")
        write_standin(root)
        return "stand-in"
    return "download"


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
