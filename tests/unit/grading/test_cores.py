"""Kernels running side by side share the cores instead of each taking all of them."""

from __future__ import annotations

import os
import subprocess
import sys

from graders.grading import cores


def test_each_kernel_gets_its_share_and_the_share_is_undone(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    with cores.cores_shared(4) as threads:
        assert threads == 2 and os.environ["OMP_NUM_THREADS"] == "2"
    assert "OMP_NUM_THREADS" not in os.environ


def test_a_child_process_inherits_the_share(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    with cores.cores_shared(2):
        out = subprocess.run([sys.executable, "-c", "import torch; print(torch.get_num_threads())"],
                             capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1"


def test_one_job_or_a_users_setting_is_left_alone(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    with cores.cores_shared(1) as threads:
        assert threads is None and "OMP_NUM_THREADS" not in os.environ
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    with cores.cores_shared(2) as threads:
        assert threads is None and os.environ["OMP_NUM_THREADS"] == "3"
    assert os.environ["OMP_NUM_THREADS"] == "3"


def test_never_fewer_than_one_thread(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert cores.threads_per_kernel(8) == 1
