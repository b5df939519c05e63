import torch

from gpucourse.fakes import RecordTransfers, fake_accelerators


def test_fake_accelerators_restores():
    real = torch.cuda.is_available()
    with fake_accelerators(cuda=not real, capability=(8, 0)):
        assert torch.cuda.is_available() is (not real)
        assert torch.cuda.get_device_capability() == (8, 0)
    assert torch.cuda.is_available() is real


def test_record_transfers_sees_device_dtype_and_non_blocking():
    x = torch.ones(3, dtype=torch.uint8)
    with RecordTransfers() as rec:
        x.to("meta", non_blocking=True)
        x.to(torch.device("cpu"), torch.float16, True)
        x.to(dtype=torch.float32)
        torch.empty(3).copy_(x, non_blocking=True)
    to = rec.transfers
    assert [t.method for t in to] == ["to", "to", "to", "copy_"]
    assert to[0].device == "meta" and to[0].non_blocking and to[0].source_dtype == torch.uint8
    assert to[1].dtype == torch.float16 and to[1].non_blocking
    assert to[2].device is None and not to[2].non_blocking
    assert to[3].non_blocking
    assert not rec.all_non_blocking


def test_record_transfers_ignores_other_ops():
    with RecordTransfers() as rec:
        torch.ones(2) + 1
    assert rec.transfers == []
