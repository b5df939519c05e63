#!/usr/bin/env bash
# Lint (`make lint`): ruff with pyproject.toml's rules over the repository, then the duplicates check over the
# uncommitted change (scripts/duplicates.sh). Exit 1 if either finds something.
set -uo pipefail
cd "$(dirname "$0")/.."
ruff=(ruff)
command -v ruff >/dev/null 2>&1 || ruff=(python -m ruff)
rc=0
"${ruff[@]}" check . || rc=1
bash scripts/duplicates.sh || rc=1
exit "$rc"
