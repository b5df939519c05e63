"""Grading on any Python layout (issue 33): a venv over another prefix (``--system-site-packages``, a ``.pth`` file's
``site.addsitedir``), a user site, and a GPU machine whose driver lives outside the system's library folders.

- the in-kernel guard counts as library code what the interpreter imports from the folders on its ``sys.path`` when
  it installs, never the notebook's folder, HOME or TMPDIR (``guard._library_roots``);
- the sandbox shows every such folder read-only, and the NVIDIA devices and driver libraries when present
  (``sandbox.bwrap_args``, ``sandbox.gpu_args``);
- a kernel keeps the grader's user site although its HOME is its own (``interpreter.user_site_env``).
End to end, graded from such a venv: tests/e2e/grading/test_layouts_e2e.py.
"""

from __future__ import annotations

import posixpath
import site
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

from graders.grading import guard, interpreter, sandbox
from tests.helpers.guard_helpers import grade, notebook, ran_clean, released
from tests.helpers.layouts import venv_over


# -- the guard ------------------------------------------------------------------------------------------------
def test_library_roots_are_the_folders_on_sys_path_outside_what_a_notebook_writes(tmp_path, monkeypatch):
    elsewhere, nb, home, tmp = (tmp_path / n for n in ("other-prefix/site-packages", "nb", "home", "tmp"))
    for folder in (elsewhere, nb / "sub", home / ".local", tmp / "x"):
        folder.mkdir(parents=True)
    monkeypatch.chdir(nb)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(sys, "path", [*sys.path, str(elsewhere), "", str(nb), str(nb / "sub"), str(home),
                                      str(home / ".local"), str(tmp / "x"), str(tmp_path), "/"])
    lib_roots, _ = guard._library_roots({"library_roots": []}, posixpath)
    assert str(elsewhere) in lib_roots  # another prefix's site-packages, reached through a .pth file
    for writable in (nb, nb / "sub", home, home / ".local", tmp / "x", tmp_path, Path("/")):
        assert str(writable) not in lib_roots, writable  # the notebook's, HOME, TMPDIR, a folder above them


def test_a_class_from_a_site_folder_outside_the_prefix_is_library_code(tmp_path):
    """A library class that defines ``__eq__`` (as torch.Tensor defines ``__torch_function__``), imported from a
    folder a ``.pth`` file put on sys.path: no finding. On the H200 image the correct sample lost 6 of 10 here."""
    lib = tmp_path / "image-site-packages"
    lib.mkdir()
    (lib / "imagelib.py").write_text("class Value:\n    def __init__(self, v):\n        self.v = v\n"
                                     "    def __eq__(self, other):\n        return self.v == other\n")
    answer = "import imagelib\n\ndef make():\n    return imagelib.Value(3)"
    nb = notebook(("course", "setup", "import imagelib"), ("answer", "answers", answer),
                  ("test", "test_make", "assert make() == 3"))
    run = grade(tmp_path, nb, release=released(nb, answers="def make():\n    ..."), env={"PYTHONPATH": str(lib)})
    ran_clean(run, "test_make")
    assert run.report().per_test == {}


def test_a_class_the_student_wrote_in_the_notebook_folder_is_still_the_students(tmp_path):
    """The same class, written by the notebook into its own folder (first on a kernel's sys.path): a finding."""
    answer = ("open('mylib.py', 'w').write('class Value:\\n    def __eq__(self, other):\\n        return True\\n')\n"
              "import mylib\n\ndef make():\n    return mylib.Value()")
    nb = notebook(("answer", "answers", answer), ("test", "test_make", "assert make() == 3"))
    run = grade(tmp_path, nb, release=released(nb, answers="def make():\n    ..."))
    assert run.report().per_test == {"test_make": ["make returned an object of class Value that defines its own "
                                                   "__eq__"]}


# -- where the interpreter imports from ------------------------------------------------------------------------
def test_import_folders_include_a_site_folder_outside_the_prefix(tmp_path, monkeypatch):
    site_folder = tmp_path / "image" / "site-packages"
    site_folder.mkdir(parents=True)
    python = venv_over(tmp_path / "venv", site_folder)
    monkeypatch.setattr(sys, "executable", str(python))
    interpreter.import_folders.cache_clear()
    try:
        folders = interpreter.import_folders()
        args = sandbox.bwrap_args([str(tmp_path / "k")])
    finally:
        interpreter.import_folders.cache_clear()
    assert str(site_folder) in folders
    assert ["--ro-bind", str(site_folder), str(site_folder)] == args[args.index(str(site_folder)) - 1:][:3]


def test_the_repository_on_sys_path_is_never_shown(monkeypatch):
    """An editable install in setuptools' "compat" mode puts the repository itself on sys.path: the sandbox still
    shows only the helper package of it, never solutions/ or the graders."""
    from graders.paths import REPO
    monkeypatch.setattr(interpreter, "import_folders", lambda: (str(REPO), str(REPO.parent), "/usr/lib/python3"))
    paths = sandbox.system_paths()
    assert str(REPO) not in paths and str(REPO.parent) not in paths and "/usr/lib/python3" in paths
    assert str(REPO / "gpucourse") in sandbox.readonly_paths()


def test_the_user_site_reaches_the_kernel_whose_home_is_its_own(tmp_path, monkeypatch):
    user_site = tmp_path / "home" / ".local" / "lib" / "site-packages"
    user_site.mkdir(parents=True)
    monkeypatch.setattr(site, "ENABLE_USER_SITE", True)
    monkeypatch.setattr(site, "getusersitepackages", lambda: str(user_site))
    monkeypatch.setattr(site, "getuserbase", lambda: str(tmp_path / "home" / ".local"))
    assert interpreter.user_site_env() == {"PYTHONNOUSERSITE": "1"}  # not on this interpreter's path: not used
    monkeypatch.setattr(sys, "path", [*sys.path, str(user_site)])
    assert interpreter.user_site_env() == {"PYTHONUSERBASE": str(tmp_path / "home" / ".local")}
    from graders.grading import rundir
    with mock.patch.object(rundir.machine, "data_dir", return_value=tmp_path / "data"):
        env = rundir.environment(tmp_path / "run", "key")
    assert env["PYTHONUSERBASE"] == str(tmp_path / "home" / ".local") and "PYTHONNOUSERSITE" not in env
    assert env["HOME"] != str(tmp_path / "home")


# -- a GPU machine -------------------------------------------------------------------------------------------
@pytest.fixture()
def gpu_machine(tmp_path):
    """The H200 image's layout (shared/gpu-runs/2026-12-04-h200): the device files, the driver's libraries in a
    folder of their own named by LD_LIBRARY_PATH (there /usr/local/nvidia/lib64), another in an ld.so.conf file."""
    dev = tmp_path / "dev"
    dev.mkdir()
    for name in ("nvidia0", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "null"):
        (dev / name).touch()
    driver, compat, conf = tmp_path / "nvidia" / "lib64", tmp_path / "cuda" / "compat", tmp_path / "ld.so.conf.d"
    for folder in (driver, compat, conf):
        folder.mkdir(parents=True)
    (conf / "cuda-compat.conf").write_text(f"# CUDA forward compatibility\n{compat}\n")
    return dev, {"LD_LIBRARY_PATH": f"{driver}:relative/ignored"}, conf, driver, compat


def test_the_sandbox_shows_the_nvidia_devices_and_the_drivers_libraries(gpu_machine):
    dev, environ, conf, driver, compat = gpu_machine
    args = sandbox.gpu_args(dev, environ, conf)
    pairs = {(args[i], args[i + 1]) for i in range(len(args) - 1)}
    for name in ("nvidia0", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools"):
        assert ("--dev-bind-try", str(dev / name)) in pairs
    assert ("--dev-bind-try", str(dev / "null")) not in pairs
    assert ("--ro-bind", str(driver)) in pairs and ("--ro-bind", str(compat)) in pairs
    assert ("--ro-bind-try", "/sys") in pairs
    assert "relative/ignored" not in args


def test_a_machine_without_a_gpu_gets_none_of_it(gpu_machine, tmp_path):
    _, environ, conf, driver, _ = gpu_machine
    empty = tmp_path / "no-gpu-dev"
    empty.mkdir()
    assert sandbox.gpu_args(empty, environ, conf) == []


def test_bwrap_args_carry_the_gpu_args(gpu_machine, monkeypatch):
    dev, environ, conf, driver, _ = gpu_machine
    real = sandbox.gpu_args
    monkeypatch.setattr(sandbox, "gpu_args", lambda: real(dev, environ, conf))
    args = sandbox.bwrap_args([])
    assert str(driver) in args and str(dev / "nvidia0") in args


def test_jupyter_finds_nbconvert_templates_of_another_prefix(tmp_path):
    """nbgrader's feedback renders with nbconvert's templates, which Jupyter looks for under sys.prefix and the
    system's folders only: from a venv over another prefix they were not found ("No template sub-directory with
    name 'classic'"), and `python -m graders feedback` failed there."""
    python = venv_over(tmp_path / "venv")
    probe = ("import graders.course as c, nbconvert.exporters as e; c.add_jupyter_data_paths(); "
             "print(len(e.HTMLExporter(template_name='classic').template_paths) > 0)")
    from graders.paths import REPO
    out = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr[-2000:]
