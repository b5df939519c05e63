#!/usr/bin/env bash
# The tests: set up what is missing, then run the whole suite (pass pytest options through).
set -euo pipefail
source "$(dirname "$0")/setup.sh"
cd "$COURSE_REPO"
python -m pytest "$@"
