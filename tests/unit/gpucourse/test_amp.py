"""gpucourse.amp (notebooks 04 to 06), and the reference answers of those notebooks that the tests
rely on, checked against PyTorch itself: GradScaler's update rule on 1,000 random sequences."""

from __future__ import annotations

import math
import random
import struct

import pytest
import torch

from gpucourse import amp
from graders.authoring.samples import reference_answers

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def reference(notebook: str, name: str, **namespace):
    """The reference answer ``name`` of ``solutions/<notebook>.ipynb``, executed and returned."""
    scope = {"torch": torch, "math": math, **namespace}
    exec(reference_answers(notebook)[name], scope)
    return scope[name]


# -- constants ---------------------------------------------------------------------------------
def test_constants_agree_with_finfo():
    fp16, bf16 = torch.finfo(torch.float16), torch.finfo(torch.bfloat16)
    assert amp.FP16_MAX == fp16.max
    assert amp.FP16_SMALLEST_NORMAL == fp16.smallest_normal
    assert amp.FP16_EPS == fp16.eps and amp.BF16_EPS == bf16.eps
    assert torch.tensor(amp.FP16_SMALLEST_SUBNORMAL).half().item() == amp.FP16_SMALLEST_SUBNORMAL
    assert torch.tensor(amp.FP16_SMALLEST_SUBNORMAL / 2).half().item() == 0.0


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_layouts(dtype):
    sign, exponent, mantissa = amp.LAYOUTS[dtype]
    assert sign + exponent + mantissa == 8 * torch.empty((), dtype=dtype).element_size()
    assert torch.finfo(dtype).eps == 2.0**-mantissa


def test_native_bf16_is_ampere_and_newer():
    assert not amp.native_bf16((7, 5)) and not amp.native_bf16((7, 0))
    assert amp.native_bf16((8, 0)) and amp.native_bf16((8, 9)) and amp.native_bf16((12, 0))
    assert all(amp.native_bf16(cap) == (cap[0] >= 8) for _, cap in amp.GPU_CAPABILITIES)


# -- autocast probes ---------------------------------------------------------------------------
def test_op_dtypes_records_what_cpu_autocast_did():
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU())
    with amp.OpDtypes() as record, torch.autocast("cpu", dtype=torch.bfloat16):
        model(torch.randn(2, 4))
    ops = {op: out for op, _, out in record.rows}
    assert ops["addmm"] == torch.bfloat16 and ops["relu"] == torch.bfloat16
    assert any(op == "_to_copy" and ins == (torch.float32,) for op, ins, _ in record.rows)


def cuda_documented() -> dict:
    """04's reference answer: what the docs' Autocast Op Reference says for CUDA with float16."""
    namespace = {"torch": torch}
    exec(reference_answers("04_autocast")["CUDA_AUTOCAST_ANSWERS"], namespace)
    return namespace["CUDA_AUTOCAST_ANSWERS"]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_cpu_autocast_lists_differ_from_cuda(dtype):
    got = amp.autocast_op_dtypes("cpu", dtype)
    assert got == {"matmul": dtype, "softmax": dtype, "cross_entropy": torch.float32, "sum": dtype,
                   "add": torch.float32}
    assert got["softmax"] != cuda_documented()["softmax"]   # the myth box of notebook 04


@cuda
@pytest.mark.cuda
def test_cuda_autocast_matches_the_documented_lists():
    assert amp.autocast_op_dtypes("cuda", torch.float16) == cuda_documented()


def test_saved_tensor_bytes_halves_under_autocast():
    layer = torch.nn.Linear(64, 32)
    x = torch.randn(128, 64)
    fp32 = amp.saved_tensor_bytes(lambda: layer(x).sum())
    assert fp32 >= x.numel() * 4                     # the input is saved for the weight gradient

    def low():
        with torch.autocast("cpu", dtype=torch.bfloat16):
            layer(x).float().sum()
    assert amp.saved_tensor_bytes(low) < fp32


# -- GradScaler --------------------------------------------------------------------------------
def test_drive_grad_scaler_matches_the_documented_rule():
    history = amp.drive_grad_scaler([False] * 6 + [True], init_scale=8.0, growth_interval=3)
    assert history == [(8.0, 1), (8.0, 2), (16.0, 0), (16.0, 1), (16.0, 2), (32.0, 0), (16.0, 0)]


def test_next_scale_reference_agrees_with_grad_scaler_on_1000_sequences():
    next_scale = reference("05_gradscaler", "next_scale")
    rng = random.Random(1234)
    for _ in range(1000):
        flags = [rng.random() < rng.choice([0.05, 0.2, 0.5]) for _ in range(rng.randint(1, 12))]
        rule = dict(growth_factor=rng.choice([2.0, 4.0, 1.5]), backoff_factor=rng.choice([0.5, 0.25, 0.8]),
                    growth_interval=rng.randint(1, 4))
        init = rng.choice([2.0**16, 1.0, 8.0, 3.0])
        real = amp.drive_grad_scaler(flags, init_scale=init, **rule)
        scale, tracker = init, 0
        for flag, (real_scale, real_tracker) in zip(flags, real, strict=True):
            scale, tracker = next_scale(scale, tracker, flag, **rule)
            assert math.isclose(scale, real_scale, rel_tol=1e-5), (flags, rule)
            assert tracker == real_tracker, (flags, rule)


def test_grad_scaler_cuda_disables_itself_without_cuda():
    if torch.cuda.is_available():
        pytest.skip("CUDA present")
    with pytest.warns(UserWarning, match="CUDA is not available"):
        assert not torch.amp.GradScaler("cuda").is_enabled()
    assert torch.amp.GradScaler("cpu").is_enabled()


def test_forgotten_update_raises_at_the_next_step():
    param = torch.nn.Parameter(torch.ones(2))
    optimizer = torch.optim.SGD([param], lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    for step in range(2):
        scaler.scale(param.sum()).backward()
        if step == 0:
            scaler.step(optimizer)
        else:
            with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last update\(\)"):
                scaler.step(optimizer)


# -- fake GPUs ---------------------------------------------------------------------------------
def test_fake_gpu_says_what_a_t4_says_and_restores():
    real = torch.cuda.is_bf16_supported
    with amp.fake_gpu((7, 5), name="Tesla T4") as props:
        assert torch.cuda.is_available()
        assert torch.cuda.is_bf16_supported() is True
        assert torch.cuda.is_bf16_supported(including_emulation=False) is False
        assert torch.cuda.get_device_capability() == (7, 5)
        assert torch.cuda.get_device_properties(0).major == 7 and props.name == "Tesla T4"
    with amp.fake_gpu((8, 6)):
        assert torch.cuda.is_bf16_supported(including_emulation=False) is True
    assert torch.cuda.is_bf16_supported is real


def test_choose_amp_dtype_reference():
    choose = reference("06_bf16", "choose_amp_dtype")
    assert choose("cpu") == (torch.bfloat16, False)
    with amp.fake_gpu((7, 5)):
        assert choose("cuda") == (torch.float16, True)
        assert choose("cpu") == (torch.bfloat16, False)
    with amp.fake_gpu((8, 0)):
        assert choose("cuda:0") == (torch.bfloat16, False)


# -- bits --------------------------------------------------------------------------------------
def test_bit_string():
    assert amp.bit_string(-1.5, torch.float16) == "1" + "01111" + "1000000000"
    assert amp.bit_string(1.0, torch.bfloat16) == "0" + "01111111" + "0000000"
    assert amp.bit_string(1.0, torch.float32) == format(struct.unpack(">I", struct.pack(">f", 1.0))[0], "032b")


def test_bit_fields_reference_agrees_with_bit_string():
    bit_fields = reference("06_bf16", "bit_fields", LAYOUTS=amp.LAYOUTS)
    rng = random.Random(7)
    for _ in range(300):
        x = float(torch.tensor(rng.uniform(-1, 1) * 10 ** rng.uniform(-9, 6)))
        for dtype, (s, e, _m) in amp.LAYOUTS.items():
            bits = amp.bit_string(x, dtype)
            assert bit_fields(x, dtype) == (int(bits[0], 2), int(bits[s:s + e], 2), int(bits[s + e:], 2))


def test_draw_bit_layouts_runs():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ax = amp.draw_bit_layouts(3.14)
    assert len(ax.patches) == 32 + 16 + 16
    plt.close("all")
