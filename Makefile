# gpuserver.io sizing assistant. `make serve` and `make test` work on a fresh machine.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
UV_VERSION := 0.13.9
UV := $(VENV)/bin/uv
RUN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# apt waits this long for another process's dpkg lock (unattended-upgrades, a parallel install)
# instead of failing at once
APT_LOCK_WAIT_S ?= 600
APT := apt-get -o DPkg::Lock::Timeout=$(APT_LOCK_WAIT_S)

.PHONY: install serve test test-fast lint format index bench browser-deps pg-deps clean help eval audit

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/\t/'

$(VENV)/.installed: pyproject.toml uv.lock
	test -x $(VENV)/bin/python || $(PY) -m venv $(VENV)
	test -x $(UV) || $(VENV)/bin/pip install --quiet uv==$(UV_VERSION)
	UV_PROJECT_ENVIRONMENT=$(VENV) $(UV) sync --frozen --quiet --compile-bytecode
	touch $@

install: $(VENV)/.installed  ## create .venv and install the locked dependencies

index: install  ## build (or refresh) the retrieval index from knowledge/guides
	$(RUN)/sizing index

serve: install index  ## install, prepare the data and serve the API + widget on http://$(HOST):$(PORT)/
	$(RUN)/sizing serve --host $(HOST) --port $(PORT)

browser-deps:  ## Debian chromium + chromedriver for the widget tests (skipped when present)
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing chromium (Debian package) for the browser tests"; \
	  ($(APT) update -qq || true) && DEBIAN_FRONTEND=noninteractive $(APT) install -y -qq chromium chromium-driver >/dev/null; }

pg-deps: install  ## a PostgreSQL for the scale-out tests: the pgserver wheel, else Debian's package
	@$(RUN)/python -c "import pgserver" 2>/dev/null || command -v /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  echo "installing postgresql (Debian package) for the scale-out tests"; \
	  ($(APT) update -qq || true) && DEBIAN_FRONTEND=noninteractive $(APT) install -y -qq postgresql >/dev/null; }

test: install browser-deps pg-deps  ## install everything and run the whole test suite
	$(RUN)/pytest

test-fast: install  ## unit tests only (no servers, no browser)
	$(RUN)/pytest -m "not browser and not server and not slow"

lint: install  ## ruff (lint + format check) and mypy on every package
	$(RUN)/ruff check .
	$(RUN)/ruff format --check .
	$(RUN)/mypy tools store knowledge assistant api evals cli

format: install
	$(RUN)/ruff format .
	$(RUN)/ruff check --fix .

eval: install  ## run the shipped question sets offline; reports in out/eval (json, junit, html)
	$(RUN)/sizing eval evals/datasets/*.yaml --report out/eval

audit: install  ## check every figure in the guides against the catalog and the tools
	$(RUN)/sizing audit

bench: install  ## run the benchmark scripts and print their numbers
	@for f in bench/bench_*.py; do echo "== $$f"; $(RUN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .data out
