#!/usr/bin/env bash
# The tests: set up what is missing, then run them in two pytest-xdist workers (a 2-core machine: never more).
#   bash scripts/test.sh [pytest options or paths]        every tier (tests/unit, tests/judge, tests/e2e)
#   bash scripts/test.sh unit|judge|e2e [pytest options]  one tier (`make unit`, `make judge`, `make e2e`)
# TEST_WORKERS=1 runs them in this one process. The run ends with each tier's test time (tests/conftest.py)
# and this script's wall time.
set -euo pipefail
source "$(dirname "$0")/setup.sh"
cd "$COURSE_REPO"
tier=all
case "${1:-}" in
    unit|judge|e2e) tier=$1; shift; set -- "tests/$tier" "$@" ;;
esac
# a path among the arguments (tests/unit/intake, tests/e2e/x.py::test_y) narrows the run; else: every tier
paths=0
for arg in "$@"; do
    case "$arg" in -*) ;; *) [ -e "${arg%%::*}" ] && paths=1 ;; esac
done
# every tier: the longest files first, the many short ones last (they fill in while the last long one ends)
if [ "$paths" = 1 ]; then [ "$tier" = all ] && tier=selected; else set -- tests/judge tests/e2e tests/unit "$@"; fi
workers=${TEST_WORKERS:-$(( $(nproc) < 2 ? 1 : 2 ))}
xdist=()
# a file's tests in one worker (its fixtures made once), files handed out in the order given: pytest-xdist's
# default reorders them by their number of tests, which leaves the slow one-test end-to-end files for last
[ "$workers" -gt 1 ] && xdist=(-n "$workers" --dist loadfile --no-loadscope-reorder)
start=$(date +%s)
rc=0
python -m pytest "${xdist[@]}" "$@" || rc=$?
echo "tests ($tier, $workers worker(s)): $(( $(date +%s) - start )) s wall, exit $rc"
exit "$rc"
