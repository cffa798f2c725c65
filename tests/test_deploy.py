"""The deployment files: `docker compose up --scale web=3` behind nginx must work.

No Docker engine runs on the test machines, so these read docker-compose.yml, the Dockerfile and
deploy/nginx.conf and check the shape that scaling needs: a stateless web service (no fixed name or host
port, shared PostgreSQL and Redis), migrations once before any replica, and a proxy that finds every
replica through Docker's DNS and compresses only what is safe to compress.
"""

import ipaddress
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.urls import get_resolver

ROOT = Path(__file__).resolve().parent.parent
STAFF_PREFIXES = ("manage", "desk", "referee", "accounts", "admin")


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


@pytest.fixture(scope="module")
def nginx() -> str:
    # Comments out, so a directive only mentioned in a comment does not count.
    return re.sub(r"#[^\n]*", "", (ROOT / "deploy" / "nginx.conf").read_text())


def test_every_service_is_there(compose):
    assert set(compose["services"]) == {"db", "redis", "migrate", "web", "erasure", "guardian-holds", "proxy"}


def test_personal_data_is_erased_daily_against_the_same_database(compose):
    erasure, web = compose["services"]["erasure"], compose["services"]["web"]
    assert "manage.py erase_expired_personal_data" in erasure["command"][-1]
    assert "sleep 86400" in erasure["command"][-1]
    assert erasure["image"] == web["image"] and erasure["restart"] == "unless-stopped"
    assert erasure["environment"]["DATABASE_URL"] == web["environment"]["DATABASE_URL"]
    assert erasure["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}


def test_places_held_for_a_guardian_are_released_every_few_minutes_against_the_same_database(compose):
    holds, web = compose["services"]["guardian-holds"], compose["services"]["web"]
    assert "manage.py release_guardian_holds" in holds["command"][-1] and "sleep 300" in holds["command"][-1]
    assert holds["image"] == web["image"] and holds["restart"] == "unless-stopped"
    assert holds["environment"]["DATABASE_URL"] == web["environment"]["DATABASE_URL"]
    assert holds["environment"]["DJANGO_EMAIL_HOST"] == web["environment"]["DJANGO_EMAIL_HOST"]
    assert holds["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}


def test_web_can_run_as_many_replicas(compose):
    web = compose["services"]["web"]
    assert "container_name" not in web  # a fixed name allows one container only
    assert "ports" not in web  # a fixed host port too; the proxy reaches replicas on the compose network
    assert [str(port) for port in web["expose"]] == ["8000"]
    assert "volumes" not in web  # nothing of its own: static files are in the image
    env = web["environment"]
    assert env["DATABASE_URL"].startswith("postgres://") and "@db:5432/" in env["DATABASE_URL"]
    assert env["REDIS_URL"].startswith("redis://redis:6379/")
    assert env["DJANGO_SETTINGS_MODULE"] == "config.settings.production"


def test_migrations_run_once_before_the_replicas(compose):
    services = compose["services"]
    assert services["migrate"]["command"][-3:] == ["manage.py", "migrate", "--noinput"]
    assert services["migrate"]["image"] == services["web"]["image"]
    assert services["web"]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert services["migrate"]["depends_on"]["db"] == {"condition": "service_healthy"}
    assert services["migrate"]["environment"]["DATABASE_URL"] == services["web"]["environment"]["DATABASE_URL"]
    # The image itself must not migrate on start: three replicas would race.
    assert "migrate" not in " ".join(dockerfile_command())


def test_static_files_are_built_into_the_image():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^RUN python manage.py collectstatic --noinput --settings=config.settings.collectstatic$",
                     dockerfile, re.M)
    from config.settings import base

    assert base.STORAGES["staticfiles"]["BACKEND"] == "whitenoise.storage.CompressedManifestStaticFilesStorage"
    assert "whitenoise.middleware.WhiteNoiseMiddleware" in base.MIDDLEWARE


def test_the_proxy_finds_every_replica_through_dockers_dns(compose, nginx):
    proxy = compose["services"]["proxy"]
    image, _, tag = proxy["image"].partition(":")
    assert image == "nginx"
    assert tuple(int(part) for part in tag.split(".")[:2]) >= (1, 28), "`server … resolve` needs nginx >= 1.27.3"
    assert any(volume.startswith("./deploy/nginx.conf:") for volume in proxy["volumes"])
    assert proxy["ports"] and "expose" not in proxy
    assert re.search(r"^\s*resolver\s+127\.0\.0\.11\b", nginx, re.M)
    upstream = re.search(r"upstream\s+(\w+)\s*\{(.*?)\}", nginx, re.S)
    assert upstream, "an upstream block"
    name, body = upstream.groups()
    assert re.search(r"^\s*zone\s+\w+", body, re.M), "`resolve` needs a shared zone"
    assert re.search(r"^\s*server\s+web:8000\b[^;]*\bresolve\b", body, re.M)
    assert re.findall(r"proxy_pass\s+http://(\w+);", nginx) and set(re.findall(r"proxy_pass\s+http://(\w+);", nginx)) == {name}


def web_environment(compose, **variables: str) -> dict[str, str]:
    """The web service's environment as `docker compose up` gives it, the shell holding `variables` and the
    README's two required ones."""
    shell = {"DJANGO_SECRET_KEY": "k" * 64, "DJANGO_ALLOWED_HOSTS": "rummikub.example.org", **variables}

    def substitute(match):
        name, operator, default = match.groups()
        if operator == ":?":
            return shell[name]
        return shell.get(name) or default

    return {name: re.sub(r"\$\{(\w+)(:[-?])([^}]*)\}", substitute, str(value))
            for name, value in compose["services"]["web"]["environment"].items()}


def in_deployment(code: str, environment: dict[str, str], stdin: str = "") -> str:
    """What `code` prints in a fresh process with `environment` (none of this machine's DJANGO_* settings), the
    cache in memory instead of Redis; the code must not open the database."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("DJANGO_")}
    env |= environment | {"REDIS_URL": ""}
    result = subprocess.run([sys.executable, "-c", code], env=env, input=stdin, cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


CLIENT_ADDRESS = """
import json, django
django.setup()
from axes.helpers import get_client_ip_address
from django.test import RequestFactory
from django_ratelimit.core import _get_ip
answers = []
for remote, header in json.loads(input()):
    request = RequestFactory().get("/", REMOTE_ADDR=remote, headers={"X-Real-IP": header, "X-Forwarded-For": header})
    answers.append([get_client_ip_address(request), _get_ip(request)])
print(json.dumps(answers))
"""


def test_the_deployment_reads_the_client_address_from_its_proxy_alike_for_lockouts_and_rate_limits(compose, nginx):
    """Sign-in lock-outs (django-axes) and rate limits (django-ratelimit) tell clients apart by the address nginx
    puts in X-Real-IP, from nginx's fixed address only; anything else is the connection's own address."""
    proxy = compose["services"]["proxy"]
    proxy_address = proxy["networks"]["default"]["ipv4_address"]
    [pool] = compose["networks"]["default"]["ipam"]["config"]
    assert ipaddress.ip_address(proxy_address) in ipaddress.ip_network(pool["subnet"])
    assert ipaddress.ip_address(proxy_address) not in ipaddress.ip_network(pool["ip_range"]), \
        "the replicas' addresses come from ip_range: the proxy's fixed one must lie outside it"
    assert re.search(r"proxy_set_header\s+X-Real-IP\s+\$remote_addr;", nginx)
    environment = web_environment(compose)
    assert environment["DJANGO_TRUSTED_PROXIES"] == proxy_address

    cases = [[proxy_address, "203.0.113.5"], ["198.51.100.7", "203.0.113.5"], ["198.51.100.7", ""]]
    answers = json.loads(in_deployment(CLIENT_ADDRESS, environment, stdin=json.dumps(cases)))
    assert answers == [["203.0.113.5"] * 2, ["198.51.100.7"] * 2, ["198.51.100.7"] * 2]


def test_compression_is_nginx_s_and_spares_staff_pages(nginx):
    # BREACH: Django never compresses (it cannot tell which pages hold secrets); nginx compresses public pages.
    assert "django.middleware.gzip.GZipMiddleware" not in settings.MIDDLEWARE
    from config.settings import base

    assert "django.middleware.gzip.GZipMiddleware" not in base.MIDDLEWARE
    assert re.search(r"^\s*gzip\s+on;", nginx, re.M)
    level = re.search(r"^\s*gzip_comp_level\s+(\d);", nginx, re.M)
    assert level and 4 <= int(level.group(1)) <= 6
    types = re.search(r"gzip_types([^;]*);", nginx).group(1).split()
    assert {"application/json", "text/css", "application/javascript"} <= set(types)
    private = re.search(r"location\s+~\s+\^/\(([\w|]+)\)/\s*\{([^}]*)\}", nginx)
    assert private, "a location for the staff pages"
    assert set(private.group(1).split("|")) == set(STAFF_PREFIXES)
    assert re.search(r"^\s*gzip\s+off;", private.group(2), re.M)


def first_segments(patterns, prefix: str = "") -> set[str]:
    """The first path segment of every route, through the includes with an empty prefix (each app's URLconf)."""
    segments = set()
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if "/" not in route and hasattr(pattern, "url_patterns"):
            segments |= first_segments(pattern.url_patterns, route)
        else:
            segments.add(route.split("/")[0])
    return segments


def test_the_staff_prefixes_are_the_apps_own():
    """A renamed staff area would silently be compressed again: the prefixes must exist in the URLconf."""
    segments = first_segments(get_resolver().url_patterns)
    for prefix in STAFF_PREFIXES:
        assert prefix in segments, prefix


def dockerfile_command() -> list[str]:
    line = next(line for line in (ROOT / "Dockerfile").read_text().splitlines() if line.startswith("CMD "))
    return json.loads(line[len("CMD "):])


def test_the_image_serves_and_gets_signals():
    """`sh -c "exec gunicorn …"`: gunicorn is PID 1, so `docker compose stop` or scaling down lets it finish
    the requests under way."""
    shell, flag, script = dockerfile_command()
    assert (shell, flag) == ("sh", "-c")
    assert script.startswith("exec gunicorn config.wsgi:application ")
    assert "--bind 0.0.0.0:8000" in script


@pytest.mark.parametrize("shell, plain", [
    ({}, False), ({"DJANGO_PLAIN_HTTP": "true"}, True), ({"DJANGO_SECURE_SSL_REDIRECT": "false"}, True),
], ids=["https-by-default", "DJANGO_PLAIN_HTTP", "older-spelling"])
def test_compose_passes_the_plain_http_switch_on(compose, shell, plain):
    settings_seen = in_deployment(
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps([s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, "
        "s.SECURE_HSTS_SECONDS > 0]))", web_environment(compose, **shell))
    assert json.loads(settings_seen) == [not plain] * 4
