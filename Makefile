# The two commands of the README: `make run` and `make test`. Everything else is a helper for them.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run test test-fast setup migrate demo bench bench-http loadtest lint messages backup restore check-deploy

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

setup: $(STAMP)

migrate: setup
	$(PY) manage.py migrate --noinput

demo: migrate
	$(PY) manage.py load_demo
	$(PY) manage.py load_demo_results

run: demo
	$(PY) manage.py runserver 127.0.0.1:8000

# DATABASE_URL=postgres://… make test runs the same suite on PostgreSQL.
# One worker more than cores: a browser test waits on its browser and its server in turn, and the extra
# worker's tests fill that time (2 cores: 3 workers took 8–12 % less time than 2; docs/PERFORMANCE.md).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
test: setup
	$(PY) -m pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

# While working: the suite without the slow tests and those that start a server or a browser (CI runs `make test`).
test-fast: setup
	$(PY) -m pytest -n auto -m "not slow and not server" $(PYTEST_ARGS)

bench: setup
	$(PY) -m bench.meld $(BENCH_ARGS)
	$(PY) -m bench.draws $(BENCH_ARGS)
	$(PY) -m bench.sheets $(BENCH_ARGS)
	$(PY) -m bench.standings $(BENCH_ARGS)
	$(PY) -m bench.taps $(BENCH_ARGS)
	$(PY) -m bench.pages

# Public pages over HTTP beside bare Django: gunicorn, then nginx (needs Debian's wrk, nginx, redis-server).
bench-http: setup
	$(PY) -m bench.http $(BENCH_HTTP_ARGS)

# Bounded load test on loopback (about 5 minutes); DATABASE_URL=postgres://… adds the PostgreSQL run.
# 2,500 phones through nginx: LOADTEST_ARGS="--phones 2500 --wrk-phones 2000 --through-nginx" (loadtest/README.md).
# Issue 31's festival (four events live, 5,000 phones, 80 referees, 2 chiefs, 2 desks; PostgreSQL):
#   LOADTEST_ARGS="--festival" (through nginx; "--only postgres" for PostgreSQL alone; "--app-servers 2": a second gunicorn).
loadtest: setup
	$(PY) -m pip install --quiet -e ".[dev,load]"
	$(PY) -m loadtest.run $(LOADTEST_ARGS)

lint: setup
	$(VENV)/bin/ruff check .

# Refresh the catalogues after changing strings; translate, then `make messages` again compiles them.
messages: setup
	$(PY) manage.py makemessages --no-obsolete --no-location -l ko -l zh_Hant --ignore ".venv/*" --ignore "staticfiles/*"
	$(PY) -m tournament.i18n_compile

# The production settings refuse to serve without collected static files (tournament/checks.py): collect them
# into a scratch directory first, as the image does.
check-deploy: setup
	static=$$(mktemp -d) && trap 'rm -rf "$$static"' EXIT && \
	export DJANGO_SETTINGS_MODULE=config.settings.production DJANGO_STATIC_ROOT="$$static" \
	DJANGO_SECRET_KEY=check-deploy-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJ \
	DJANGO_ALLOWED_HOSTS=example.org && \
	$(PY) manage.py collectstatic --noinput --verbosity 0 && \
	$(PY) manage.py check --deploy --fail-level WARNING

# Two gunicorn servers on one PostgreSQL database and one Redis cache agree while sheets go through both
# (loadtest/two_servers.py; about a minute). Needs DATABASE_URL=postgres://… (it makes its own database).
.PHONY: two-servers
two-servers: setup
	$(PY) -m loadtest.two_servers $(TWO_SERVERS_ARGS)

# A consistent, timestamped copy of the database in use (SQLite file or DATABASE_URL) in backups/, safe while
# the app runs (docs/backup.md). BACKUP_ARGS="--output-dir /mnt/usb" to write it elsewhere.
backup: setup
	$(PY) manage.py backup $(BACKUP_ARGS)

# make restore FILE=backups/…: into an EMPTY database only; FORCE=1 replaces one that holds data.
restore: setup
	@test -n "$(FILE)" || { echo "usage: make restore FILE=backups/<name>.sqlite3|.dump [FORCE=1]" >&2; exit 2; }
	$(PY) manage.py restore "$(FILE)" $(if $(FORCE),--force)
