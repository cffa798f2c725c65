"""Hardening: every response carries the Content-Security-Policy, and no page the app renders holds
anything that policy would block (tests/csp_markup.py) — found by crawling a whole event day's pages as a
player, the check-in desk and the organiser, fragments (htmx) included."""

import datetime as dt
import json
import os
import re
import subprocess
import sys
from collections import deque
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest
from django.conf import settings
from django.urls import Resolver404, resolve
from django.utils import timezone

from scoring.services.links import ensure_links
from scoring.services.sheets import confirm_sheet, submit_sheet
from scoring.simulation import simulate, simulate_word
from tests.csp_markup import csp_problems, is_html
from tests.factories import make_event, make_player, make_registration, make_staff, released_stage
from tests.scoring.helpers import entry_for, key
from tournament.models import Event, Registration
from tournament.services.audit import Actor

pytestmark = pytest.mark.django_db

POLICY = {
    "default-src": {"'self'"},
    "script-src": {"'self'"},
    "style-src": {"'self'"},
    "img-src": {"'self'", "data:"},
    "connect-src": {"'self'"},
    "worker-src": {"'self'"},  # the service worker (/sw.js)
    "manifest-src": {"'self'"},  # the table link's web app manifest
    "frame-ancestors": {"'none'"},
    "base-uri": {"'self'"},
    "form-action": {"'self'"},
    "object-src": {"'none'"},
}


def policy_of(response) -> dict[str, set[str]]:
    header = response.get("Content-Security-Policy")
    assert header, f"no Content-Security-Policy on {response.request['PATH_INFO']}"
    directives = {}
    for part in header.split(";"):
        name, *values = part.split()
        assert name not in directives, f"{name} twice in {header}"
        directives[name] = set(values)
    return directives


def assert_strict_policy(response):
    assert policy_of(response) == POLICY
    assert "unsafe" not in response["Content-Security-Policy"]


@pytest.fixture
def live_round():
    """A released Busan round of 8 (two tables) with private links; table 1 has a sheet waiting for the chief
    referee, table 2 a confirmed one."""
    stage = released_stage(8)
    links = ensure_links(event=stage.event, actor=Actor(label="organiser"))
    chief = make_staff(stage.event.festival, "chief referee")
    for table, confirm in ((1, False), (2, True)):
        sheet = submit_sheet(stage=stage, game=1, table_number=table, entry=entry_for(stage, 1, table, [0, 5, 10, 15]),
                             accept_warnings=False, idempotency_key=key(), actor=Actor(label="link"), via="link")
        if confirm:
            confirm_sheet(sheet=sheet, actor=Actor(user=chief))
    return stage, links


def test_a_public_page_has_the_strict_policy_and_clickjacking_headers(client, live_round):
    stage, _ = live_round
    response = client.get(f"/f/{stage.event.festival.slug}/{stage.event.slug}/standings/")
    assert response.status_code == 200
    assert_strict_policy(response)
    assert response["X-Frame-Options"] == "DENY"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_a_signed_in_page_has_the_strict_policy(client, live_round):
    stage, _ = live_round
    client.force_login(make_staff(stage.event.festival, "organiser"))
    response = client.get(f"/manage/{stage.event.festival.slug}/{stage.event.slug}/board/")
    assert response.status_code == 200
    assert_strict_policy(response)
    assert not csp_problems(response.content.decode())


def test_an_htmx_fragment_has_the_strict_policy(client, live_round):
    stage, _ = live_round
    response = client.get(f"/f/{stage.event.festival.slug}/{stage.event.slug}/standings/live/",
                          headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert b"<html" not in response.content, "expected the fragment, not the whole page"
    assert_strict_policy(response)


def test_error_pages_and_json_have_the_policy_too(client):
    assert_strict_policy(client.get("/f/no-such-festival/"))
    response = client.get("/api/events/nope/nope/")
    assert response.status_code == 404
    assert "Content-Security-Policy" in response


def test_a_refused_csrf_token_gets_the_apps_own_page_without_inline_style(client, live_round):
    """Django's default CSRF failure page styles itself with a <style> block the policy would block."""
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    response = strict.post("/accounts/login/", {"username": "x", "password": "y"})
    assert response.status_code == 403
    assert_strict_policy(response)
    assert not csp_problems(response.content.decode())
    assert b"app.css" in response.content, "the CSRF failure page should use the normal layout"


# --- the checker itself: each kind of problem is caught, a clean page passes ---

CLEAN = ('<html><head><meta name="htmx-config" content=\'{"includeIndicatorStyles": false, "allowEval": false, '
         '"allowScriptTags": false}\'><link rel="stylesheet" href="/static/css/app.css"></head><body>'
         '<a href="/f/x/">x</a><img src="data:image/png;base64,AA" alt=""><svg><path fill="#000" d="M0 0"/></svg>'
         '<script type="application/json" id="d">{"a": 1}</script>'
         '<script src="/static/vendor/htmx-2.0.11.min.js" defer></script></body></html>')


@pytest.mark.parametrize("bad, what", [
    ("<script>alert(1)</script>", "inline <script>"),
    ("<button onclick=\"go()\">x</button>", "inline event handler"),
    ("<body ONLOAD='x()'>", "inline event handler"),
    ("<p style=\"color:red\">x</p>", "inline style"),
    ("<style>p{}</style>", "<style> element"),
    ("<a href=\" JavaScript:void(0)\">x</a>", "javascript: URL"),
    ("<div hx-on:click=\"x()\"></div>", "htmx inline handler"),
    ("<div hx-vals='js:{a: 1}'></div>", "needs eval"),
    ("<script src=\"https://cdn.example/x.js\"></script>", "another origin"),
    ("<link rel=\"stylesheet\" href=\"//cdn.example/x.css\">", "another origin"),
    ("<object data=\"/x.swf\"></object>", "blocked by the policy"),
])
def test_the_markup_checker_finds_each_kind_of_problem(bad, what):
    assert csp_problems(CLEAN) == []
    found = csp_problems(CLEAN.replace("<body>", "<body>" + bad))
    assert len(found) == 1 and what in found[0], found


def test_the_markup_checker_wants_the_htmx_config_where_htmx_is_loaded():
    without_meta = re.sub(r"<meta name=\"htmx-config\"[^>]*>", "", CLEAN)
    assert "htmx-config" in csp_problems(without_meta)[0]
    evaluating = CLEAN.replace('"allowEval": false', '"allowEval": true')
    assert "htmx-config" in csp_problems(evaluating)[0]
    assert csp_problems(without_meta.replace("htmx-2.0.11.min.js", "app.js")) == []


# --- every page of an event day, crawled ---

SKIP_PREFIXES = ("/static/", "/admin/", "/i18n/", "/accounts/logout/")
MAX_PAGES = 1500  # a runaway crawl (an endless query-string loop) fails instead of taking forever
QUERY_VARIANTS_PER_PATH = 4


class _Links(HTMLParser):
    """Where a page leads with GET: links, htmx GETs (fetched as fragments) and GET forms."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.pages: list[str] = []
        self.fragments: list[str] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag == "a" and values.get("href"):
            self.pages.append(values["href"])
        if values.get("hx-get"):
            self.fragments.append(values["hx-get"])
        if tag == "form" and (values.get("method") or "get").lower() == "get" and values.get("action"):
            self.pages.append(values["action"])


def crawl(client, seeds: list[str]) -> tuple[dict[str, list[str]], set[str]]:
    """Every same-site page reachable from `seeds`: {url: problems} and the URL names seen."""
    queue = deque((seed, False) for seed in seeds)
    seen, per_path, problems, names = set(), {}, {}, set()
    while queue:
        url, fragment = queue.popleft()
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not parts.path.startswith("/") or parts.path.startswith(SKIP_PREFIXES):
            continue
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        if (target, fragment) in seen:
            continue
        if parts.query:
            per_path[parts.path] = per_path.get(parts.path, 0) + 1
            if per_path[parts.path] > QUERY_VARIANTS_PER_PATH:
                continue
        seen.add((target, fragment))
        assert len(seen) <= MAX_PAGES, "the crawl does not end: raise MAX_PAGES or skip the looping links"
        response = client.get(target, headers={"HX-Request": "true"} if fragment else {})
        assert response.status_code < 500, (target, response.status_code)
        assert "Content-Security-Policy" in response, target
        if response.status_code in (301, 302, 303, 307, 308):
            queue.append((urljoin(target, response["Location"]), fragment))
            continue
        try:
            names.add(resolve(parts.path).url_name)
        except Resolver404:
            pass
        if response.status_code != 200 or not is_html(response):
            continue
        html = response.content.decode()
        found = csp_problems(html)
        if found:
            problems[target + (" (htmx)" if fragment else "")] = found
        links = _Links()
        links.feed(html)
        queue.extend((urljoin(target, link.split("#")[0]), False) for link in links.pages if link.split("#")[0])
        queue.extend((urljoin(target, link), True) for link in links.fragments)
    return problems, names


@pytest.fixture
def event_day(live_round):
    """One festival on its day: a live Busan round (see live_round), a live Rummikub Word round, a Busan, a
    Hong Kong and a Word event played to the end, and an event at its check-in desk with a waiting list."""
    stage, links = live_round
    festival = stage.event.festival
    word_stage = released_stage(4, festival=festival, game=Event.Game.WORD)
    word_links = ensure_links(event=word_stage.event, actor=Actor(label="organiser"))
    simulate("busan", 9, 3, festival=festival)
    simulate("hk", 8, 3, festival=festival)
    simulate_word(8, 3, festival=festival)
    desk_event = make_event(festival, checkin_override=Event.CheckinOverride.OPEN)
    player = make_player(festival, name="김민준")
    make_registration(desk_event, player)
    make_registration(desk_event, make_player(festival), checked_in_at=desk_event.checkin_opens_at)
    make_registration(desk_event, make_player(festival), status=Registration.Status.WAITLISTED)
    make_event(festival, start=timezone.now() + dt.timedelta(days=7))  # registration open
    live = f"/f/{festival.slug}/{stage.event.slug}"
    return {
        "festival": festival,
        # A player's QR link, a table card's QR code, a referee's private links: reached from outside.
        "outside_links": [f"/p/{player.token}/", f"{live}/table/1/", f"{live}/seat/?q=Player",
                          *(f"/t/{link.token}/" for link in [*links, *word_links])],
        "desk_search": f"/desk/{festival.slug}/{desk_event.slug}/search/?q=김",
        "referee_account": f"/referee/{stage.pk}/1/",
    }


# Pages the crawl must reach; a missing one means a seed or a link is gone and the check silently shrank.
PUBLIC_PAGES = {
    "home", "festival", "event", "event-register", "login", "public-draw", "public-seat", "public-table",
    "public-standings", "public-standings-live", "public-standings-stage", "public-standings-stage-live",
    "public-find-player", "public-player", "public-player-live", "public-hall", "public-hall-live", "results",
    "results-print", "player-page", "referee-link-table", "referee-link-game", "season",
}
STAFF_PAGES = {
    "manage-home", "manage-festival", "manage-event", "manage-import", "manage-draws", "draw-print",
    "draw-cards", "board", "board-stage", "board-sheet", "board-correct", "board-links", "board-print",
    "board-referees", "desk",
    "desk-search", "desk-counts", "desk-missing", "referee-table", "referee-game", "manage-results",
    "manage-results-print", "conduct", "manage-checkin",
}


@pytest.mark.slow
def test_no_page_of_an_event_day_holds_anything_the_policy_blocks(client, event_day):
    public_seeds = ["/", "/season/", *event_day["outside_links"]]
    problems, public_names = crawl(client, public_seeds)
    missing = PUBLIC_PAGES - public_names
    assert not missing, f"the public crawl no longer reaches {sorted(missing)}"

    client.force_login(make_staff(event_day["festival"], "organiser"))
    staff_problems, staff_names = crawl(client, ["/manage/", event_day["desk_search"], event_day["referee_account"],
                                                   *public_seeds])
    problems.update(staff_problems)
    missing = STAFF_PAGES - staff_names
    assert not missing, f"the organiser's crawl no longer reaches {sorted(missing)}"

    assert not problems, "\n".join(f"{url}:\n  " + "\n  ".join(found) for url, found in problems.items())


# --- production settings (they refuse to load without a secret key and hosts, so in a fresh process) ---

PRODUCTION_ENV = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "DJANGO_SECRET_KEY": "test-" + "k" * 60,
    "DJANGO_ALLOWED_HOSTS": "rummikub.example.org",
}


def run_in_production(code: str, **env: str) -> subprocess.CompletedProcess:
    # Only the defaults of production.py and `env`: none of this machine's DJANGO_* or DATABASE_URL overrides.
    env = {name: value for name, value in os.environ.items()
           if not name.startswith("DJANGO_") and name != "DATABASE_URL"} | PRODUCTION_ENV | env
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=settings.BASE_DIR, capture_output=True,
                          text=True, timeout=120)


def in_production(code: str, **env: str) -> str:
    result = run_in_production(code, **env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_production_sends_cookies_only_over_https_and_asks_for_hsts():
    names = ["SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SESSION_COOKIE_HTTPONLY", "SESSION_COOKIE_SAMESITE",
             "CSRF_COOKIE_SAMESITE", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS",
             "X_FRAME_OPTIONS", "SECURE_CROSS_ORIGIN_OPENER_POLICY", "DEBUG"]
    out = in_production("import json, django; django.setup(); from django.conf import settings as s; "
                        f"print(json.dumps({{n: getattr(s, n) for n in {names!r}}}))")
    values = json.loads(out)
    assert values == {
        "SESSION_COOKIE_SECURE": True, "CSRF_COOKIE_SECURE": True, "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax", "CSRF_COOKIE_SAMESITE": "Lax", "SECURE_SSL_REDIRECT": True,
        "SECURE_HSTS_SECONDS": 31_536_000, "SECURE_HSTS_INCLUDE_SUBDOMAINS": True, "X_FRAME_OPTIONS": "DENY",
        "SECURE_CROSS_ORIGIN_OPENER_POLICY": "same-origin", "DEBUG": False,
    }


def test_the_deployment_check_passes_with_production_settings(tmp_path):
    """`make check-deploy` (CI runs it too, after a real collectstatic); here so `make test` catches a regression
    first. The static files stand collected by their manifest (tests/test_static_files_check.py)."""
    (tmp_path / "staticfiles.json").write_text('{"paths": {}, "version": "1.1", "hash": ""}')
    in_production("from django.core.management import execute_from_command_line; "
                  "execute_from_command_line(['manage.py', 'check', '--deploy', '--fail-level', 'WARNING'])",
                  DJANGO_STATIC_ROOT=str(tmp_path))


# What a browser gets: the served application (config/wsgi.py, so its start-up warning too) asked through
# Django's test client, over HTTP and over HTTPS as the proxy reports it. tests/production_settings.py is
# production's with static files from static/ (no collectstatic manifest needed to render a page).
SERVED = """
import json
from django.test import Client
import config.wsgi
client = Client(HTTP_HOST="rummikub.example.org")
answers = {}
for scheme in ("http", "https"):
    response = client.get("/accounts/login/", headers={"X-Forwarded-Proto": scheme})
    cookie = response.cookies.get("csrftoken")
    answers[scheme] = {"status": response.status_code, "location": response.get("Location"),
                       "hsts": response.get("Strict-Transport-Security"),
                       "secure_cookie": None if cookie is None else bool(cookie["secure"])}
print(json.dumps(answers))
"""


def served(**env: str) -> tuple[dict, str]:
    result = run_in_production(SERVED, DJANGO_SETTINGS_MODULE="tests.production_settings", **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), result.stderr


def test_https_mode_redirects_and_sends_secure_cookies_and_hsts():
    answers, log = served()
    assert answers["http"] == {"status": 301, "location": "https://rummikub.example.org/accounts/login/",
                               "hsts": None, "secure_cookie": None}
    assert answers["https"] == {"status": 200, "location": None, "secure_cookie": True,
                                "hsts": "max-age=31536000; includeSubDomains; preload"}
    assert "plain HTTP" not in log


@pytest.mark.parametrize("switch", [{"DJANGO_PLAIN_HTTP": "true"}, {"DJANGO_SECURE_SSL_REDIRECT": "false"},
                                    {"DJANGO_PLAIN_HTTP": "yes", "DJANGO_SECURE_SSL_REDIRECT": "no"}])
def test_the_plain_http_switch_turns_off_the_redirect_secure_cookies_and_hsts_together_and_warns(switch):
    answers, log = served(**switch)
    for scheme in ("http", "https"):
        assert answers[scheme] == {"status": 200, "location": None, "hsts": None, "secure_cookie": False}, scheme
    assert "plain HTTP" in log and "closed hall network" in log


@pytest.mark.parametrize("switch, problem", [
    ({"DJANGO_PLAIN_HTTP": "true", "DJANGO_SECURE_SSL_REDIRECT": "true"}, "contradict"),
    ({"DJANGO_PLAIN_HTTP": "false", "DJANGO_SECURE_SSL_REDIRECT": "false"}, "contradict"),
    ({"DJANGO_PLAIN_HTTP": "ture"}, "DJANGO_PLAIN_HTTP must be true or false"),
])
def test_an_unclear_plain_http_switch_stops_the_start(switch, problem):
    result = run_in_production("import django; django.setup()", **switch)
    assert result.returncode != 0
    assert problem in result.stderr
