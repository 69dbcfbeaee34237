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

# The official MCP conformance suite (npm). 0.1.14 and later need Node 22 (fs.globSync); Debian has Node 20.
CONFORMANCE_VERSION ?= 0.1.13
CONFORMANCE := .tools/conformance/node_modules/.bin/conformance

.PHONY: setup test lint run query bench clean conformance browser

$(UV):
	$(PYTHON) -m venv .tools
	.tools/bin/python -m pip install --quiet --disable-pip-version-check "uv>=0.9,<1"

.venv/.synced: $(UV) pyproject.toml uv.lock
	$(UV) sync --locked --python $(PYTHON) --quiet
	touch $@

setup: .venv/.synced  ## create .venv with the package and the dev tools

$(CONFORMANCE):
	-mkdir -p .tools/conformance && npm install --prefix .tools/conformance --no-audit --no-fund --silent \
		@modelcontextprotocol/conformance@$(CONFORMANCE_VERSION)

conformance: $(CONFORMANCE)  ## install the MCP conformance suite (its test skips offline, fails under CI=true)

browser:  ## Debian's Chromium and its driver, for the web page test (skips without them, fails under CI=true)
	@command -v chromedriver >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq chromium chromium-driver >/dev/null) || echo "chromium not installed"

test: setup conformance browser  ## run the whole test suite
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

clean:
	rm -rf .venv .tools
