"""The loader stays the real torchvision one; the stand-in is used, and said, when offline."""

import torch
from torchvision.datasets import FashionMNIST

from gpucourse import data


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


def test_offline_falls_back_to_announced_standin(tmp_path, capsys):
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
