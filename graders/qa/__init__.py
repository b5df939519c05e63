"""The author's quality checks of the graders themselves (the samples' verdict, the judge, selftest, stress);
not to be confused with ``gpucourse.checks``, the students' visible checks."""
