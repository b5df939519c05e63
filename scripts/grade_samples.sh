#!/usr/bin/env bash
# The main job: set up what is missing, build everything generated from sources/, autograde the sample
# submissions in samples/submissions with real nbgrader, print the score table, write graded/grades.csv,
# and say whether every sample scored what it must (exit 1 if not).
set -euo pipefail
source "$(dirname "$0")/setup.sh"
cd "$COURSE_REPO"
python -m graders build
python -m graders autograde --check   # what protects this machine from the submissions (exit 1 if an escape is not contained)
python -m graders autograde samples/submissions --out graded --jobs "${JOBS:-$(nproc)}" "$@"
python -m graders samples --check graded
