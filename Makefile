# Flotilla: set-up, build, demo and tests. Every target installs what is missing first
# (scripts/setup.sh is idempotent), so a fresh clone needs only `make demo` or `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

DURATION ?= 60
SCENARIO ?= lily_15
ENV := build/env.sh
CARGO := source $(ENV) && cargo

.PHONY: help setup build demo test measure-molemod env clean

help:
	@echo "make demo   set up, build and run the main scenario (DURATION=$(DURATION) sim s; 0 = until Ctrl-C)"
	@echo "make test   set up, build and run every test (unit + end-to-end); .ci/run calls this"
	@echo "make measure-molemod   the long MoleMOD physics measurements left out of make test (FILTER=nextest expression)"
	@echo "make env    print the ROS environment: eval \"\$$(make -s env)\""

setup:
	@bash scripts/setup.sh

build: setup
	@$(CARGO) build --release --workspace --bins

demo: build
	@source $(ENV) && scripts/demo.sh "$(DURATION)" "$(SCENARIO)"

test: build
	@source $(ENV) && scripts/test.sh

measure-molemod: setup
	@bash scripts/molemod_measure.sh "$(FILTER)"

env:
	@bash scripts/setup.sh && cat $(ENV)

clean:
	rm -rf build target
