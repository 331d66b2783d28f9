# Private surveys: `make run` to try it, `make test` to check everything. `make help` lists all.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
BIND ?= 127.0.0.1:8000
WORKERS ?= 4
# pytest's processes running the tests side by side (pytest-xdist; "auto": one per core; an
# idle one takes tests queued for another, as the load tests take minutes), and any other
# arguments for it, e.g. `make test-python PYTEST_ARGS="-m browser"`.
TEST_PROCESSES ?= auto
PYTEST_ARGS ?=

.DEFAULT_GOAL := help
.PHONY: help install languages test-deps run serve test test-python test-js lint migrations-check vectors bench clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  make %-18s %s\n", $$1, $$2}'

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

# axe-core, injected into pages by the accessibility browser tests (package.json).
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $(NODE_STAMP)

install: $(STAMP) languages ## Create .venv and install every dependency the site needs

languages: $(STAMP) ## Compile the respondents' pages' translations (locale/*.po)
	$(BIN)/python manage.py compile_languages

test-deps: install $(NODE_STAMP) ## What the tests need besides: axe-core, from npm

run: install ## Set up SQLite with demo accounts and a demo survey, then serve on http://127.0.0.1:8000
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py demo
	$(BIN)/python manage.py runserver 127.0.0.1:8000

serve: install ## Production server (gunicorn). Needs SECRET_KEY and ALLOWED_HOSTS; see README
	DEBUG=false $(BIN)/python manage.py migrate --noinput
	DEBUG=false $(BIN)/python manage.py collectstatic --noinput --verbosity 0
	DEBUG=false $(BIN)/gunicorn surveysite.wsgi --bind $(BIND) --workers $(WORKERS) \
		--graceful-timeout 30 --max-requests 10000 --max-requests-jitter 1000

test: test-deps lint migrations-check test-js test-python ## Run every suite: lint, migrations, JavaScript, Python and browser tests

test-python: test-deps ## Python and headless-browser tests (pytest, one process per core)
	$(BIN)/pytest -n $(TEST_PROCESSES) --dist worksteal $(PYTEST_ARGS)

test-js: ## Browser JavaScript tests (node --test)
	node --test tests/js/

lint: install ## ruff, and the import contracts of the layers (pyproject.toml)
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache

migrations-check: install ## Fail if a model changed without a migration
	$(BIN)/python manage.py makemigrations --check --dry-run

vectors: install ## Regenerate the shared LDP test vectors
	$(BIN)/python -m surveys.ldp > tests/ldp_vectors.json

bench: install ## Run the benchmarks (prints figures; not part of the tests)
	$(BIN)/pip install --quiet -r requirements-bench.txt
	status=0; for script in bench/bench_*.py; do $(BIN)/python $$script || status=1; done; exit $$status

clean: ## Remove the virtualenv, the SQLite database and collected static files
	rm -rf $(VENV) node_modules db.sqlite3 staticfiles
