#!/usr/bin/env bash
# Lint (`make lint`): ruff with pyproject.toml's rules over the repository, then the duplicates check over the
# uncommitted change (scripts/duplicates.sh). Exit 1 if either finds something.
set -uo pipefail
source "$(dirname "$0")/setup.sh"   # the venv's ruff (requirements.txt), as the tests use
cd "$COURSE_REPO"
rc=0
ruff check . || rc=1
bash scripts/duplicates.sh || rc=1
exit "$rc"
