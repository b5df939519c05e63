import pytest
import torch

from gpucourse import env
from gpucourse.fakes import fake_accelerators


@pytest.mark.parametrize("values, expected", [
    ({}, False),
    ({"NBGRADER_EXECUTION": "autograde"}, True),
    ({"CI": "true"}, True),
    ({"CI": "true", "COURSE_QUICK": "0"}, False),
    ({"COURSE_QUICK": "1"}, True),
    ({"COURSE_QUICK": "no"}, False),
])
def test_quick_mode(monkeypatch, values, expected):
    for name in ("NBGRADER_EXECUTION", "CI", "COURSE_QUICK"):
        monkeypatch.delenv(name, raising=False)
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    assert env.quick_mode() is expected


def test_best_device_order():
    with fake_accelerators(cuda=True, mps=True):
        assert env.best_device() == torch.device("cuda")
    with fake_accelerators(cuda=False, mps=True):
        assert env.best_device() == torch.device("mps")
    with fake_accelerators(cuda=False, mps=False):
        assert env.best_device() == torch.device("cpu")


def test_report_without_gpu_says_what_is_simulated(monkeypatch, capsys):
    monkeypatch.setitem(__import__("sys").modules, "google.colab", object())
    with fake_accelerators(cuda=False, mps=False):
        device = env.environment_report()
    text = capsys.readouterr().out
    assert device == torch.device("cpu")
    assert torch.__version__ in text and "No CUDA GPU" in text and "simulated" in text
    assert "T4" in text  # the Colab advice


def test_report_with_gpu_names_it(monkeypatch, capsys):
    monkeypatch.setattr(env, "gpu_summary", lambda: {"name": "Tesla T4", "capability": (7, 5), "memory_gib": 14.7})
    with fake_accelerators(cuda=True):
        env.environment_report()
    text = capsys.readouterr().out
    assert "Tesla T4" in text and "compute capability 7.5" in text
