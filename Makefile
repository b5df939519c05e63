# The developer loop. `make` lists the targets; each prints its wall time when it ends.
# The tests of a tier are its folder: tests/unit/<package>/, tests/judge/, tests/e2e/<package>/.
# PYTEST="-k name -x" passes options to pytest; TEST_WORKERS=1 runs in one process (default: 3 workers).

SHELL := bash
.DEFAULT_GOAL := help
PYTEST ?=
# run a command, then say how long it took, and keep its exit status
timed = start=$$(date +%s); $(1); rc=$$?; echo "make $@: $$(( $$(date +%s) - start )) s"; exit $$rc

.PHONY: help lint unit judge e2e test ci

help:
	@echo "make lint    ruff and the duplicates check (scripts/lint.sh), seconds"
	@echo "make unit    tests/unit: no notebook run, no nbgrader, no server (its budget: 3 minutes at rest)"
	@echo "make judge   tests/judge: the in-process tier, every test cell in one kernel per notebook"
	@echo "make e2e     tests/e2e: nbgrader, whole notebooks, servers, Slurm (the longest)"
	@echo "make test    every tier, as README's bash scripts/test.sh"
	@echo "make ci      .ci/run: the main job and the tests, each with an empty HOME (its budget: 20 minutes at rest)"

lint:
	@$(call timed,bash scripts/lint.sh)

unit judge e2e:
	@$(call timed,bash scripts/test.sh $@ $(PYTEST))

test:
	@$(call timed,bash scripts/test.sh $(PYTEST))

ci:
	@$(call timed,bash .ci/run)
