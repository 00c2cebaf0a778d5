# Every target sets itself up: a fresh machine needs only python3 (3.11+) and make.
VENV ?= .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Debian packages the tests start for real: Node (the OpenID Provider and @auth/core interop),
# Chromium (the pages), PostgreSQL, PgBouncer, MariaDB and Redis (the database adapters).
SYSTEM_PACKAGES := nodejs npm chromium chromium-driver postgresql pgbouncer mariadb-server redis-server
# and for `make bench`: wrk, the load generator (without it the bench uses a slower Python client),
# and valgrind, which counts what a request costs (python -m bench.callgrind)
BENCH_PACKAGES := wrk valgrind

.PHONY: install system-deps bench-deps docs-deps demo test test-quick lint typecheck bench fuzz docs docs-serve clean soak \
	translations \
	soak-cluster soak-cluster-quick

install: $(VENV)/.installed

# everything the tests use (the demo's extra included)
$(VENV)/.installed: pyproject.toml
	[ -x $(PY) ] || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed-demo $(VENV)/.installed-docs

# the demo only: the runtime and uvicorn
$(VENV)/.installed-demo: pyproject.toml
	[ -x $(PY) ] || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[demo]'
	touch $@

# the documentation site's build only: MkDocs and its plugins
$(VENV)/.installed-docs: pyproject.toml
	[ -x $(PY) ] || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[docs]'
	touch $@

# node and npm: the site serves Mermaid's script, installed from npm (tools/site_hooks.py)
docs-deps:
	@command -v npm >/dev/null || { echo "installing Debian packages: nodejs npm"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends nodejs npm; }

system-deps:
	@missing=""; \
	command -v node >/dev/null || missing="$$missing nodejs"; \
	command -v npm >/dev/null || missing="$$missing npm"; \
	command -v chromium >/dev/null || missing="$$missing chromium chromium-driver"; \
	{ command -v pg_ctl >/dev/null || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; } \
	  || missing="$$missing postgresql"; \
	{ command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ]; } || missing="$$missing pgbouncer"; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	{ command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ]; } || missing="$$missing haproxy"; \
	{ command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ]; } || missing="$$missing mariadb-server"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

bench-deps: system-deps
	@command -v wrk >/dev/null && command -v valgrind >/dev/null || { echo "installing Debian packages: $(BENCH_PACKAGES)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends \
	  $(BENCH_PACKAGES); }

demo: $(VENV)/.installed-demo
	$(PY) -m io_bindings.demo

test: install system-deps lint typecheck
	$(PY) -m pytest -p no:cacheprovider

test-quick: install
	$(PY) -m pytest -p no:cacheprovider -n 2 -m "not e2e and not fuzz"

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: install
	$(VENV)/bin/mypy
	$(VENV)/bin/mypy --strict examples/django_project/myproject examples/django_project/manage.py
	$(VENV)/bin/mypy --strict examples/django_users/usersite examples/django_users/members \
	  examples/django_users/manage.py
	$(VENV)/bin/mypy --strict examples/aiohttp_app.py
	$(VENV)/bin/mypy --strict --explicit-package-bases examples/fastapi_app.py examples/starlette_app.py \
	  examples/fastapi_sqlalchemy_app.py
	MYPYPATH=tests/support $(VENV)/bin/mypy --strict bench

# the built-in pages' catalogues (docs/languages.md): messages extracted into
# sansio_auth/i18n/messages.pot, each <language>.po brought up to date, each compiled into
# sansio_auth/i18n/_<language>.py, which the engine reads
translations: install
	$(PY) -m tools.translations

BENCH_SECONDS ?= 1
BENCH_ROUNDS ?= 10
# every figure with its ratio (Auth.js side by side: node, @auth/core, @auth/pg-adapter installed
# into ~/.cache/sansio-auth/npm on first use), also written to bench/results.json
bench: install bench-deps
	$(PY) -m pip install --quiet -e '.[test,bench]'
	$(PY) -m bench --seconds $(BENCH_SECONDS) --rounds $(BENCH_ROUNDS)

FUZZ_SECONDS ?= 60
# atheris (coverage-guided) targets for FUZZ_SECONDS each, then the hypothesis fuzz tests
fuzz: install
	$(PY) -m fuzz.run --seconds $(FUZZ_SECONDS)
	HYPOTHESIS_PROFILE=long $(PY) -m pytest -p no:cacheprovider -m "not e2e" tests fuzz

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis site

# generated from the code: the route table, the built-in providers (builtin.py and their table),
# the Auth.js migration guide's option and provider lists;
# then the site (MkDocs, strict: a broken link, a missing page or a missing anchor fails) into
# site/, with Mermaid's script (installed from npm) served beside the pages
docs: $(VENV)/.installed-docs docs-deps
	$(PY) -m tools.catalogue
	$(PY) -m tools.migration
	$(PY) -c 'from sansio_auth._routes import routes_markdown as m; print(m(), end="")' > docs/routes.md
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# the site on http://127.0.0.1:8001, rebuilt on every change
docs-serve: docs
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve --dev-addr 127.0.0.1:8001

# 10 minutes of mixed sign-ins, sessions and hostile requests over 64 connections: no 5xx,
# no unexpected error logged, RSS flat (see soak/)
soak: install system-deps
	$(PY) -m soak --minutes 10 --connections 64

# A fleet behind HAProxy (3 nodes x 2 uvicorn workers, PostgreSQL, Redis, the OP) under browsers
# and faults (a node killed mid-refresh, PostgreSQL restarted, Redis stopped 10 s, a secret
# rolled): 0 unexplained 5xx, one token-endpoint call per rotation, revocations everywhere within
# 1 s, no duplicated user, no session lost, RSS flat (see soak/cluster/); about 8 minutes
soak-cluster: install system-deps
	$(PY) -m soak.cluster --keep-logs soak-failed-run

# the same faults and checks in about 3 minutes (also run by `make test`, tests/soak)
soak-cluster-quick: install system-deps
	$(PY) -m soak.cluster --quick --keep-logs soak-failed-run
