# Developer entry points. Every target bootstraps what it needs, so `make test`
# works on a fresh machine that has only Python 3.11 (and make).
PYTHON ?= python3.11
UV := .tools/bin/uv
DATA_DIR ?= ../shared/data
QUESTION ?= Which missions did Jim Lovell fly, and when were they launched?
QUERY ?= PREFIX ex: <http://example.org/space/> SELECT ?mission ?launched WHERE { ?mission ex:crewMember/ex:name "Jim Lovell" ; ex:launchDate ?launched } ORDER BY ?launched

export LANGSMITH_TRACING := false
export LANGSMITH_TEST_TRACKING := false
export LANGGRAPH_CLI_NO_ANALYTICS := 1
export LANGGRAPH_NO_VERSION_CHECK := true
unexport LANGCHAIN_TRACING_V2

# The official MCP conformance suite (npm): 0.2.0-alpha runs both requirement sets (2025-11-25, 2026-07-28).
# It needs Node 22 (fs.globSync); Debian has Node 20, so Node 22 comes from npm's `node` package beside it
# (tests/integration/serve/test_mcp_conformance.py puts that folder's .bin first on PATH).
CONFORMANCE_VERSION ?= 0.2.0-alpha.12
CONFORMANCE_NODE ?= 22.23.3
CONFORMANCE := .tools/conformance/node_modules/.bin/conformance

.PHONY: setup test lint run query bench clean conformance browser docs node postgres data prerequisites dist dist-check

$(UV):
	$(PYTHON) -m venv .tools
	.tools/bin/python -m pip install --quiet --disable-pip-version-check "uv>=0.9,<1"

# Bytecode is compiled at install time, as pip does for wheels: where PYTHONDONTWRITEBYTECODE is set
# (containers, CI), every command would otherwise compile ~1,200 modules from source at start-up
# (measured: `saga search` 0.69 s of CPU without, 0.37 s with).
.venv/.synced: $(UV) pyproject.toml uv.lock
	$(UV) sync --locked --python $(PYTHON) --quiet --compile-bytecode
	.venv/bin/python -m compileall -q src/saga_kgqa
	touch $@

setup: .venv/.synced  ## create .venv with the package and the dev tools

# System prerequisites of `make test`, each an idempotent step: present, else installed from Debian (as
# root, never upgrading other packages), else a warning (its tests skip) or, under CI=true, a failure.
PG_PROBE := command -v initdb || ls /usr/lib/postgresql/*/bin/initdb

node:  ## Node.js and npm, for the MCP conformance suite
	@.ci/prerequisite npm 'command -v npm' nodejs npm

postgres:  ## the PostgreSQL server binaries (initdb, pg_ctl), for the PostgreSQL checkpoint tests
	@.ci/prerequisite postgresql '$(PG_PROBE)' postgresql

browser:  ## Debian's Chromium and its driver, for the web page test
	@.ci/prerequisite chromium 'command -v chromedriver' chromium chromium-driver

data:  ## the third-party data the data-dependent tests read ($$SAGA_DATA_DIR, else ../shared/data)
	@test -d "$${SAGA_DATA_DIR:-$(DATA_DIR)}" || { \
		if [ "$${CI:-}" = true ]; then echo "error: no data at $${SAGA_DATA_DIR:-$(DATA_DIR)}; CI=true needs it" >&2; exit 1; fi; \
		echo "warning: no data at $${SAGA_DATA_DIR:-$(DATA_DIR)}; the tests that need it will skip" >&2; }

$(CONFORMANCE):
	@command -v npm >/dev/null || { [ "$${CI:-}" != true ] || { echo "error: npm is missing" >&2; exit 1; }; \
		echo "warning: npm is missing; the conformance test will skip" >&2; exit 0; }
	mkdir -p .tools/conformance && npm install --prefix .tools/conformance --no-audit --no-fund --silent \
		node@$(CONFORMANCE_NODE) @modelcontextprotocol/conformance@$(CONFORMANCE_VERSION) || { [ "$${CI:-}" != true ] && \
		echo "warning: the conformance suite did not install (offline?); its test will skip" >&2; }

conformance: node $(CONFORMANCE)  ## install the MCP conformance suite (its test skips without it, fails under CI=true)

prerequisites: node postgres browser data conformance  ## every system prerequisite of the tests

test: setup prerequisites  ## run the whole test suite (its prerequisites first)
	.venv/bin/python -m pytest -q

lint: setup  ## ruff (lint and format) and mypy --strict
	.venv/bin/ruff check src tests bench
	.venv/bin/ruff format --check src tests bench
	.venv/bin/mypy

run: setup  ## the main job: ask the example graph a question (needs SAGA_BASE_URL and SAGA_MODEL)
	.venv/bin/saga ask '$(QUESTION)'

query: setup  ## one SPARQL query on the example graph, no model needed
	.venv/bin/saga sparql '$(QUERY)'

bench: setup  ## every benchmark under bench/
	.venv/bin/python bench/store_latency.py --data-dir $(DATA_DIR)
	.venv/bin/python bench/guard_latency.py --data-dir $(DATA_DIR)
	.venv/bin/python bench/grounding.py --data-dir $(DATA_DIR)
	.venv/bin/python bench/virtuoso_latency.py --data-dir $(DATA_DIR)
	.venv/bin/python bench/startup.py --data-dir $(DATA_DIR)

docs: $(UV)  ## build the manual (docs/) into site/ with MkDocs; warnings are errors, internal links checked
	NO_MKDOCS_2_WARNING=1 $(UV) run --locked --python $(PYTHON) --group docs mkdocs build --strict --clean --site-dir site

dist: $(UV)  ## build the wheel and the sdist into dist/
	rm -rf dist && $(UV) build --quiet --python $(PYTHON) --out-dir dist

dist-check: dist  ## install the wheel with its extras into a fresh venv; run saga --help, saga sparql, saga mcp from it
	UV=$(UV) PYTHON=$(PYTHON) .ci/wheel-check

clean:
	rm -rf .venv .tools site dist
