#!/usr/bin/env bash
# CI's second grading of the samples (issue 33): the way most GPU images, conda bases and cluster modules are used,
# and without the OS sandbox. A venv whose torch, nbgrader and helpers live outside its prefix (a .pth file calling
# site.addsitedir on .venv's site-packages: what `python3 -m venv --system-site-packages` does; tests/helpers/
# layouts.py), GRADER_SANDBOX=0, the same 24 expectations as scripts/grade_samples.sh, and no row in review.
# Run after scripts/grade_samples.sh (it builds and prepares the data). Results in graded-elsewhere/.
set -euo pipefail
source "$(dirname "$0")/setup.sh"
cd "$COURSE_REPO"
rm -rf graded-elsewhere  # a check, not a class: every row graded again here
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python="$(python tests/helpers/layouts.py "$work/venv-over")"
echo "elsewhere: grading from $python (its packages: $(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')), GRADER_SANDBOX=0"
PATH="$(dirname "$python"):$PATH" GRADER_SANDBOX=0 "$python" -m graders autograde samples/submissions \
    --out graded-elsewhere --jobs "${JOBS:-$(nproc)}" "$@"
"$python" -m graders samples --check graded-elsewhere
