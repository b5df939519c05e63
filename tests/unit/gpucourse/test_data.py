"""The loader stays the real torchvision one: the system's official files when there are, verified by checksum;
a bad system file falls through with its reason; the stand-in is used, and said, when nothing else works."""

import gzip
import hashlib
import shutil
from pathlib import Path

import pytest
import torch
from torchvision.datasets import FashionMNIST

from gpucourse import data


@pytest.fixture
def no_system_files(tmp_path, monkeypatch):
    """The package "absent": the system-files location is an empty folder."""
    empty = tmp_path / "no-system-files"
    empty.mkdir()
    monkeypatch.setenv(data.SYSTEM_DIR_ENV, str(empty))
    return empty



def write_tiny_fashion_mnist(root, n_train=12, n_test=5):
    raw = root / "FashionMNIST" / "raw"
    raw.mkdir(parents=True)
    g = torch.Generator().manual_seed(7)
    content = {}
    for train, n in ((True, n_train), (False, n_test)):
        images = torch.randint(0, 256, (n, 28, 28), generator=g, dtype=torch.uint8)
        labels = torch.randint(0, 10, (n,), generator=g, dtype=torch.uint8)
        images_name, labels_name = data.RAW_FILES[train]
        data.write_idx(raw / images_name, images)
        data.write_idx(raw / labels_name, labels)
        content[train] = (images, labels)
    return content


def test_idx_files_parse_through_torchvision(tmp_path):
    content = write_tiny_fashion_mnist(tmp_path)
    for train in (True, False):
        ds = FashionMNIST(tmp_path, train=train, download=False)
        images, labels = content[train]
        assert torch.equal(ds.data, images) and torch.equal(ds.targets, labels.long())


def test_fashion_mnist_uses_existing_files_without_download(tmp_path, capsys):
    write_tiny_fashion_mnist(tmp_path)
    ds = data.fashion_mnist(train=True, root=tmp_path, download=False)
    assert len(ds) == 12 and not ds.is_standin
    assert "STAND-IN" not in capsys.readouterr().out


def test_offline_falls_back_to_announced_standin(tmp_path, no_system_files, capsys):
    ds = data.fashion_mnist(train=False, root=tmp_path, download=False)
    out = capsys.readouterr().out
    assert ds.is_standin and "OFFLINE STAND-IN" in out
    assert isinstance(ds, FashionMNIST)
    assert ds.data.shape == (10_000, 28, 28) and ds.data.dtype == torch.uint8
    assert set(ds.targets.unique().tolist()) == set(range(10))
    # loaded again: no rewrite, still announced
    again = data.fashion_mnist(train=False, root=tmp_path, download=False)
    assert torch.equal(again.data, ds.data) and "OFFLINE STAND-IN" in capsys.readouterr().out


def test_standin_is_deterministic():
    a, b = data.standin_tensors(100, seed=5), data.standin_tensors(100, seed=5)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])


def test_standin_is_learnable_but_not_trivial():
    x, y = data.standin_tensors(3000, seed=1)
    x = x.float().flatten(1) / 255
    model = torch.nn.Linear(784, 10)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(60):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x[:2000]), y[:2000]).backward()
        opt.step()
    accuracy = (model(x[2000:]).argmax(1) == y[2000:]).float().mean().item()
    assert 0.5 < accuracy < 0.999


def test_float_dataset_normalises():
    class Fake:
        data = torch.full((4, 28, 28), 255, dtype=torch.uint8)
        targets = torch.arange(4)
    ds = data.float_dataset(Fake(), limit=3)
    x, y = ds.tensors
    assert x.shape == (3, 1, 28, 28) and x.dtype == torch.float32 and y.tolist() == [0, 1, 2]
    assert torch.allclose(x, torch.full_like(x, (1 - data.MEAN) / data.STD))


# --- the official files from the system (Debian's dataset-fashion-mnist) -----------------------------------------
HAVE_SYSTEM_FILES = data.SYSTEM_DIR.is_dir()
needs_system_files = pytest.mark.skipif(
    not HAVE_SYSTEM_FILES,
    reason=f"{data.SYSTEM_DIR} is absent: install the Debian package dataset-fashion-mnist to test the real files")

#: The official sizes, written out here rather than read from the module, so that a wrong constant fails.
OFFICIAL_SIZES = {"train-images-idx3-ubyte": 47_040_016, "train-labels-idx1-ubyte": 60_008,
                  "t10k-images-idx3-ubyte": 7_840_016, "t10k-labels-idx1-ubyte": 10_008}


@pytest.fixture(scope="module")
def real_root(tmp_path_factory):
    """A fresh cache filled from the system files (no download: the test must not depend on the network)."""
    if not HAVE_SYSTEM_FILES:
        pytest.skip(f"{data.SYSTEM_DIR} is absent: install the Debian package dataset-fashion-mnist")
    root = tmp_path_factory.mktemp("real")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(data.SYSTEM_DIR_ENV, raising=False)
        train = data.fashion_mnist(train=True, root=root, download=False)
        test = data.fashion_mnist(train=False, root=root, download=False)
    return root, train, test


@needs_system_files
def test_real_files_have_the_official_sizes_and_checksums(real_root):
    root, train, test = real_root
    raw = root / "FashionMNIST" / "raw"
    assert train.source == "system" and test.source == "cache"
    assert not train.is_standin and not (raw / data.STANDIN_MARKER).exists()
    assert set(data.OFFICIAL_FILES) == set(OFFICIAL_SIZES)
    for name, size in OFFICIAL_SIZES.items():
        content = (raw / name).read_bytes()
        assert len(content) == size == data.OFFICIAL_FILES[name][0]
        assert hashlib.sha256(content).hexdigest() == data.OFFICIAL_FILES[name][1]
    assert not list(raw.glob(".*.part")), "temporary files left behind"


@needs_system_files
def test_real_files_have_6000_and_1000_examples_per_class(real_root):
    _, train, test = real_root
    assert isinstance(train, FashionMNIST)
    assert train.data.shape == (60_000, 28, 28) and test.data.shape == (10_000, 28, 28)
    assert train.data.dtype == torch.uint8
    assert torch.bincount(train.targets, minlength=10).tolist() == [6_000] * 10
    assert torch.bincount(test.targets, minlength=10).tolist() == [1_000] * 10
    # the real images' statistics are the ones the course normalizes with
    pixels = train.data.float() / 255
    assert abs(pixels.mean().item() - data.MEAN) < 5e-4 and abs(pixels.std().item() - data.STD) < 5e-4


def fake_system_dir(tmp_path, corrupt=None):
    """A copy of the system folder's four .gz files, with one of them damaged by ``corrupt(path)``."""
    folder = tmp_path / "system"
    folder.mkdir()
    for name in data.OFFICIAL_FILES:
        shutil.copy(data.SYSTEM_DIR / f"{name}.gz", folder / f"{name}.gz")
    if corrupt is not None:
        corrupt(folder)
    return folder


def truncate_archive(folder):
    path = folder / "t10k-labels-idx1-ubyte.gz"
    path.write_bytes(path.read_bytes()[:2000])


def change_one_byte(folder):
    """Valid gzip, right size, one label changed: only the checksum can tell."""
    path = folder / "t10k-labels-idx1-ubyte.gz"
    content = bytearray(gzip.decompress(path.read_bytes()))
    content[-1] = (content[-1] + 1) % 10
    path.write_bytes(gzip.compress(bytes(content)))


def not_gzip(folder):
    (folder / "train-labels-idx1-ubyte.gz").write_bytes(b"this is not a gzip file")


def remove_one(folder):
    (folder / "t10k-images-idx3-ubyte.gz").unlink()


@needs_system_files
@pytest.mark.parametrize("corrupt, reason", [
    (truncate_archive, "EOFError"), (change_one_byte, "wrong SHA-256"), (not_gzip, "BadGzipFile"),
    (remove_one, "FileNotFoundError"),
])
def test_bad_system_file_falls_through_with_a_reason(tmp_path, monkeypatch, capsys, corrupt, reason):
    monkeypatch.setenv(data.SYSTEM_DIR_ENV, str(fake_system_dir(tmp_path, corrupt)))
    root = tmp_path / "cache"
    ds = data.fashion_mnist(train=False, root=root, download=False)   # next source: download (off), then stand-in
    out = capsys.readouterr().out
    assert "not using" in out and reason in out and "OFFLINE STAND-IN" in out
    assert ds.is_standin and ds.source == "stand-in"
    assert not list((root / "FashionMNIST" / "raw").glob(".*.part")), "temporary files left behind"


@needs_system_files
def test_wrong_size_is_reported(tmp_path, monkeypatch, capsys):
    def short_by_one_image(folder):
        path = folder / "t10k-images-idx3-ubyte.gz"
        path.write_bytes(gzip.compress(gzip.decompress(path.read_bytes())[:-784]))
    monkeypatch.setenv(data.SYSTEM_DIR_ENV, str(fake_system_dir(tmp_path, short_by_one_image)))
    data.fashion_mnist(train=False, root=tmp_path / "cache", download=False)
    assert "decompresses to 7,839,232 bytes, expected 7,840,016" in capsys.readouterr().out


@needs_system_files
def test_system_files_replace_a_cached_standin(tmp_path, monkeypatch, capsys):
    root = tmp_path / "cache"
    monkeypatch.setenv(data.SYSTEM_DIR_ENV, str(tmp_path / "absent"))
    assert data.fashion_mnist(train=False, root=root, download=False).is_standin
    monkeypatch.setenv(data.SYSTEM_DIR_ENV, str(fake_system_dir(tmp_path)))
    assert not data.cache_ready(root)               # a stand-in the system files can replace
    ds = data.fashion_mnist(train=False, root=root, download=False)
    assert not ds.is_standin and ds.source == "system" and "replacing the offline stand-in" in capsys.readouterr().out
    assert torch.bincount(ds.targets, minlength=10).tolist() == [1_000] * 10
    assert data.cache_ready(root)


def test_standin_when_the_package_is_absent(tmp_path, no_system_files, capsys):
    ds = data.fashion_mnist(train=True, root=tmp_path / "cache", download=False)
    out = capsys.readouterr().out
    assert ds.is_standin and ds.source == "stand-in" and "OFFLINE STAND-IN" in out
    assert "not using" not in out        # an absent package is normal, not an error to report
    assert ds.data.shape == (60_000, 28, 28)
    assert data.cache_ready(tmp_path / "cache")   # nothing could replace it: no more work each load


def test_system_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(data.SYSTEM_DIR_ENV, str(tmp_path))
    assert data.system_dir() == tmp_path
    monkeypatch.delenv(data.SYSTEM_DIR_ENV)
    assert data.system_dir() == Path("/usr/share/datasets/fashion-mnist")


def test_ensure_data_reports_each_source(tmp_path, no_system_files, monkeypatch):
    from gpucourse import bootstrap

    root = tmp_path / "cache"
    monkeypatch.setattr(data, "_try_download", lambda root, timeout_s: OSError("offline"))
    assert not bootstrap.data_present(root)
    assert bootstrap.ensure_data(root) == "stand-in"
    assert bootstrap.data_present(root) and bootstrap.ensure_data(root) == "cached"
    if HAVE_SYSTEM_FILES:
        monkeypatch.delenv(data.SYSTEM_DIR_ENV)
        assert not bootstrap.data_present(root)     # the stand-in is now replaceable
        assert bootstrap.ensure_data(root) == "system"
        assert bootstrap.data_present(root) and not data.is_standin(root)
