"""A new gradebook carries the schema version nbgrader's own ``alembic heads`` reports, found in this process
(``graders.course.gradebook_version``) instead of in a new one each time a course is made."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path
from unittest import mock

from nbgrader.dbutil import write_alembic_ini

from graders import course
from graders.limits import Limits


def test_the_version_is_what_alembic_heads_says(tmp_path):
    ini = tmp_path / "alembic.ini"
    write_alembic_ini(str(ini), f"sqlite:///{tmp_path / 'gradebook.db'}")
    alembic = Path(sys.executable).with_name("alembic")
    heads = subprocess.check_output([str(alembic), "-c", str(ini), "heads"], text=True)
    assert heads.split()[0] == course.gradebook_version()


def test_a_new_course_gradebook_is_stamped_without_a_subprocess(tmp_path):
    with mock.patch("subprocess.check_output", side_effect=AssertionError("a subprocess was started")):
        course.ensure(tmp_path / "course", ["01_devices"], limits=Limits())
    with sqlite3.connect(tmp_path / "course" / "gradebook.db") as db:
        (version,), = db.execute("SELECT version_num FROM alembic_version").fetchall()
    assert version == course.gradebook_version()
