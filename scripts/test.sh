#!/usr/bin/env bash
# The tests: set up what is missing, then run them in three pytest-xdist workers (one on a 1-core machine). Three
# on two cores: much of the judge's and the end-to-end tier's time is the simulated device's sleeps, servers and
# Slurm starting, when a third worker finds the cores free (fresh-clone CI here: 1,188 s with two, 1,060 s with three).
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
if [ "$paths" = 1 ]; then [ "$tier" = all ] && tier=selected; else set -- tests "$@"; fi
workers=${TEST_WORKERS:-$(( $(nproc) < 2 ? 1 : 3 ))}
xdist=()
# a file's tests in one worker (its fixtures made once), files handed out in tests/conftest.py's order (run_order:
# the long ones first); pytest-xdist's default, most tests first, left the slow one-test files for last
[ "$workers" -gt 1 ] && xdist=(-n "$workers" --dist loadfile --no-loadscope-reorder)
start=$(date +%s)
rc=0
python -m pytest "${xdist[@]}" "$@" || rc=$?
echo "tests ($tier, $workers worker(s)): $(( $(date +%s) - start )) s wall, exit $rc"
exit "$rc"
