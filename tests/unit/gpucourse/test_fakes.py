"""The fakes behind every device-dependent test: whichever device API a correct answer asks, it gets the
same answer as the reference under each faked machine, so an answer scores the same on a CPU-only grader
and on a Colab GPU (issue 22, "same score on CPU and GPU"); and a wrong answer still loses."""

import pytest
import torch

from gpucourse.fakes import RecordTransfers, fake_accelerators
from graders import nbtools
from graders.authoring import source

#: the four machines a device test fakes: (cuda, mps)
MACHINES = {"none": (False, False), "cuda only": (True, False), "mps only": (False, True), "both": (True, True)}

# 01 pick_device, written the ways current PyTorch allows (torch.accelerator is what its docs now recommend)
PICK_DEVICE = {
    "accelerator-check-available": '''
def pick_device() -> torch.device:
    accelerator = torch.accelerator.current_accelerator(check_available=True)
    return accelerator if accelerator is not None else torch.device("cpu")
''',
    "accelerator-is-available": '''
def pick_device() -> torch.device:
    if torch.accelerator.is_available():
        return torch.device(torch.accelerator.current_accelerator().type)
    return torch.device("cpu")
''',
    "accelerator-device-count": '''
def pick_device():
    if torch.accelerator.device_count() > 0:
        return torch.accelerator.current_accelerator()
    return torch.device("cpu")
''',
    "cuda-device-count-and-torch-mps": '''
def pick_device():
    if torch.cuda.device_count() > 0:
        return torch.device("cuda")
    return torch.device("mps" if torch.mps.is_available() else "cpu")
''',
    "built-and-available": '''
def pick_device():
    if torch.backends.cuda.is_built() and torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_built() and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
''',
}

# wrong answers that ask the same APIs: each must still lose
WRONG_PICK_DEVICE = {
    # without check_available it names the accelerator torch was built for, GPU or not
    "accelerator-unchecked": '''
def pick_device():
    return torch.accelerator.current_accelerator() or torch.device("cpu")
''',
    # where new tensors go by default, not what the machine has
    "default-device": '''
def pick_device():
    return torch.device(torch.get_default_device().type)
''',
    "cuda-count-no-mps": '''
def pick_device():
    return torch.device("cuda" if torch.cuda.device_count() else "cpu")
''',
}

# 06 choose_amp_dtype: the capability asked in other ways
CHOOSE_AMP_DTYPE = {
    "device-properties": '''
def choose_amp_dtype(device):
    device = torch.device(device)
    if device.type != "cuda":
        return torch.bfloat16, False
    props = torch.cuda.get_device_properties(device)
    return (torch.bfloat16, False) if props.major >= 8 else (torch.float16, True)
''',
    "native-bf16-flag": '''
def choose_amp_dtype(device):
    if torch.device(device).type == "cuda" and not torch.cuda.is_bf16_supported(including_emulation=False):
        return torch.float16, True
    return torch.bfloat16, False
''',
    "capability-of-current-device": '''
def choose_amp_dtype(device):
    if torch.device(device).type == "cuda":
        major, _ = torch.cuda.get_device_capability(torch.accelerator.current_device_index())
        return (torch.float16, True) if major < 8 else (torch.bfloat16, False)
    return (torch.bfloat16, False)
''',
}

WRONG_CHOOSE_AMP_DTYPE = {
    # True on a T4 too: since torch 2.3 it counts emulation (the catalogue's trusts-is-bf16-supported)
    "trusts-is-bf16-supported": '''
def choose_amp_dtype(device):
    if torch.device(device).type == "cuda" and not torch.cuda.is_bf16_supported():
        return torch.float16, True
    return torch.bfloat16, False
''',
    # the machine decides, not the device asked for
    "asks-the-machine": '''
def choose_amp_dtype(device):
    if torch.accelerator.is_available() and torch.cuda.get_device_capability() < (8, 0):
        return torch.float16, True
    return torch.bfloat16, False
''',
}


def define(code: str, name: str):
    """The answer as a notebook cell defines it (its own globals, torch imported)."""
    namespace = {"__name__": "__main__", "torch": torch}
    exec(compile(code, "<answer cell>", "exec"), namespace)
    return namespace[name]


def reference(notebook: str, cell: str):
    return define(source.reference_answers(source.solution(notebook))[cell], cell)


def grade(notebook: str, test: str, name: str, answer) -> str | None:
    """Run the notebook's own test cell (visible checks and hidden tests) on ``answer``; what failed, or None."""
    cell = next(c for c in source.solution(notebook).cells if nbtools.grade_id(c) == test)
    namespace = {"__name__": "__main__", "torch": torch, name: answer}
    try:
        exec(compile(cell.source, f"<{test}>", "exec"), namespace)
    except Exception as error:  # a failed check or assert: the cell scores 0
        return f"{type(error).__name__}: {error}"
    return None


def under_each_machine(fn, *args) -> dict:
    results = {}
    for machine, (cuda, mps) in MACHINES.items():
        with fake_accelerators(cuda=cuda, mps=mps, capability=(7, 5)):
            try:
                results[machine] = fn(*args)
            except Exception as error:
                results[machine] = type(error).__name__
    return results


@pytest.mark.parametrize("key", sorted(PICK_DEVICE))
def test_pick_device_answers_agree_with_the_reference_on_every_machine(key):
    answer, ref = define(PICK_DEVICE[key], "pick_device"), reference("01_devices", "pick_device")
    assert under_each_machine(answer) == under_each_machine(ref) == {
        "none": torch.device("cpu"), "cuda only": torch.device("cuda"), "mps only": torch.device("mps"),
        "both": torch.device("cuda")}
    assert grade("01_devices", "test_pick_device", "pick_device", answer) is None


@pytest.mark.parametrize("key", sorted(WRONG_PICK_DEVICE))
def test_wrong_pick_device_answers_still_lose(key):
    answer, ref = define(WRONG_PICK_DEVICE[key], "pick_device"), reference("01_devices", "pick_device")
    assert under_each_machine(answer) != under_each_machine(ref)
    assert grade("01_devices", "test_pick_device", "pick_device", answer) is not None


@pytest.mark.parametrize("key", sorted(CHOOSE_AMP_DTYPE))
def test_choose_amp_dtype_answers_agree_with_the_reference_on_every_capability(key):
    answer, ref = define(CHOOSE_AMP_DTYPE[key], "choose_amp_dtype"), reference("06_bf16", "choose_amp_dtype")
    for capability in [(6, 1), (7, 5), (8, 0), (9, 0), (12, 0)]:
        for device in ("cpu", "cuda", "cuda:0", torch.device("cuda", 0)):
            with fake_accelerators(cuda=True, capability=capability):
                assert answer(device) == ref(device), (capability, device)
    assert grade("06_bf16", "test_choose_amp_dtype", "choose_amp_dtype", answer) is None


@pytest.mark.parametrize("key", sorted(WRONG_CHOOSE_AMP_DTYPE))
def test_wrong_choose_amp_dtype_answers_still_lose(key):
    answer = define(WRONG_CHOOSE_AMP_DTYPE[key], "choose_amp_dtype")
    assert grade("06_bf16", "test_choose_amp_dtype", "choose_amp_dtype", answer) is not None


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_every_device_query_tells_one_story(machine):
    cuda, mps = MACHINES[machine]
    with fake_accelerators(cuda=cuda, mps=mps, capability=(8, 6), name="RTX 3090"):
        assert torch.cuda.is_available() is cuda and (torch.cuda.device_count() > 0) is cuda
        assert torch.backends.mps.is_available() is mps and torch.mps.is_available() is mps
        assert torch.accelerator.is_available() is (cuda or mps)
        assert torch.accelerator.device_count() == int(cuda or mps)
        kind = "cuda" if cuda else "mps" if mps else None
        checked = torch.accelerator.current_accelerator(check_available=True)
        assert (checked.type if checked is not None else None) == kind
        if cuda:
            assert torch.cuda.get_device_capability("cuda:0") == (8, 6) == torch.cuda.get_device_capability()
            assert torch.cuda.get_device_name(0) == "RTX 3090" == torch.cuda.get_device_properties("cuda").name
            assert torch.cuda.is_bf16_supported(including_emulation=False)
            assert torch.accelerator.current_device_index() == torch.cuda.current_device() == 0
            with pytest.raises(ValueError, match="Expected a cuda device"):  # as torch says for "cpu"
                torch.cuda.get_device_capability("cpu")
        else:  # a query about a GPU that is not there raises, as on a real machine without one
            assert not torch.cuda.is_bf16_supported()
            with pytest.raises(RuntimeError):
                torch.cuda.get_device_capability()
        if kind is None:
            with pytest.raises(RuntimeError):
                torch.accelerator.current_device_index()


def test_a_t4_supports_bf16_only_by_emulation():
    with fake_accelerators(cuda=True, capability=(7, 5)):
        assert torch.cuda.is_bf16_supported() and not torch.cuda.is_bf16_supported(including_emulation=False)


def test_fake_accelerators_restores():
    real = torch.cuda.is_available()
    real_accelerator = torch.accelerator.is_available()
    with fake_accelerators(cuda=not real, capability=(8, 0)):
        assert torch.cuda.is_available() is (not real)
        if not real:  # on a real GPU the fake is a machine without one
            assert torch.cuda.get_device_capability() == (8, 0)
    assert torch.cuda.is_available() is real
    assert torch.accelerator.is_available() is real_accelerator


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
