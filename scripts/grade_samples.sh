#!/usr/bin/env bash
# The main job: set up what is missing, build notebooks/ from solutions/, autograde the sample
# submissions in samples/submissions with real nbgrader, print the score table, write graded/grades.csv.
source "$(dirname "$0")/setup.sh"
python -m graders build
python -m graders autograde samples/submissions --out graded --jobs "${JOBS:-$(nproc)}" "$@"
