#!/usr/bin/env bash
# The tests: set up what is missing, then run the whole suite (pass pytest options through).
source "$(dirname "$0")/setup.sh"
python -m pytest "$@"
