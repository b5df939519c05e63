#!/usr/bin/env bash
# The `duplicates` tool over what the uncommitted change adds: a pair of places where one side is written by the
# change fails (put the code in one place); a pair marked boilerplate does not. Where the tool is not installed,
# one line says so and nothing fails. The copies within sources/ are tests/unit/test_lint.py's. Run by
# scripts/lint.sh (`make lint`) and by pre-commit's `duplicates` hook.
set -uo pipefail
cd "$(dirname "$0")/.."
if ! command -v duplicates >/dev/null 2>&1; then
    echo "duplicates: the tool is not installed here; skipped"
    exit 0
fi
out=$(duplicates --change --most 50)
echo "duplicates --change: ${out%%$'\n'*}"
copied=$(grep -E '^D[0-9]+ ' <<<"$out" | grep -v 'boilerplate' || true)
if [ -n "$copied" ]; then
    echo "$copied"
    echo "duplicates: the change writes again code that is already there (put it in one place)"
    exit 1
fi
