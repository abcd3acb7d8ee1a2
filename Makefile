# Every target uses the project's own virtual environment in .venv (created on demand).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PYTEST := $(BIN)/python -m pytest

.PHONY: install dev docs-deps run test lint bench binary snapshots openapi sdk sdk-python sdk-go docs docs-build e2e kube-build kube-up kube-down kube-status clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

install: $(BIN)/python          ## the gpuctl command alone
	$(BIN)/pip install -q .

dev: $(BIN)/python              ## editable install with the test and lint tools (and the Python SDK)
	$(BIN)/pip install -q -e '.[test]' -e sdk/python

docs-deps: $(BIN)/python        ## editable install with what the docs site needs (the docs extra)
	$(BIN)/pip install -q -e '.[docs]'

run: install                    ## the README's first command: a sandbox with every example on it
	eval "$$($(BIN)/gpuctl sandbox up --config examples/sandbox/cluster.yaml)" && $(BIN)/gpuctl apply -f examples/ && $(BIN)/gpuctl get jobs

test: dev
	$(PYTEST) -n auto

lint: dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: dev                      ## speed targets; a report, not a test (fails if one is missed)
	@status=0; for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || status=1; done; exit $$status

binary: dev                     ## the single-file gpuctl, no Python needed: dist/gpuctl-linux-amd64
	$(BIN)/pyinstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build/pyinstaller packaging/gpuctl.spec

snapshots: dev                  ## rewrite the syrupy snapshots; read the diff before committing
	$(PYTEST) --snapshot-update tests/core tests/operate

openapi: dev                    ## rewrite docs/openapi.json, the API's committed contract, from the app
	$(BIN)/python -m gpuctl.server.write_contract docs/openapi.json

sdk: sdk-python sdk-go          ## rewrite both SDKs' generated code from docs/openapi.json

sdk-python: dev                 ## rewrite the Python SDK's generated code (sdk/python) from docs/openapi.json
	$(BIN)/python sdk/python/generate.py

sdk-go:                         ## rewrite sdk/go/types.gen.go (the Go SDK's models) from docs/openapi.json
	cd sdk/go && GOTOOLCHAIN=local go generate ./...

docs: docs-deps                 ## serve the docs site (docs/, mkdocs.yml) at http://127.0.0.1:8000
	$(BIN)/mkdocs serve

docs-build: docs-deps           ## build it into site/; a broken link or anchor fails the build
	$(BIN)/mkdocs build --strict

e2e: dev                        ## the cluster scenarios against the real cluster in KUBECONFIG
	GPUCTL_E2E=1 $(PYTEST) -m e2e

# A real control plane (Kubernetes from source, kwok nodes) on loopback ports: tests/kube/.
# REAL_NODES=2 adds real nodes beside the kwok ones (kubelet, containerd: tests/kube/nodes.py).
KUBE := $(BIN)/python -m tests.kube.controlplane
REAL_NODES ?= 0

kube-build: dev                 ## compile it and Kueue once (REAL_NODES=2: CoreDNS and the real nodes' images too; cached under ~/.cache/gpuctl-kube)
	$(KUBE) build --real-nodes $(REAL_NODES)

kube-up: dev                    ## start it (REAL_NODES=2: with real nodes); the last line is KUBECONFIG=...
	@$(KUBE) up --real-nodes $(REAL_NODES)

kube-down: dev
	$(KUBE) down

kube-status: dev
	@$(KUBE) status

clean:
	rm -rf $(VENV) dist build .pytest_cache .mypy_cache .ruff_cache
