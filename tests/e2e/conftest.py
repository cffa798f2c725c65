"""Real-browser tests: Playwright driving Debian's Chromium, headless, at phone size.

Fixtures, reusable by every module in tests/e2e/:
- `browser` — one headless Chromium per module (/usr/bin/chromium; no browser download: the CI machine has
  no internet). Missing Chromium: the tests FAIL when `CI` is set (CI must run them) and SKIP otherwise.
- `phone(name, lang=...)` — a new "phone": its own browser context (cookies, localStorage) at 360×740 and
  one page in it. Several phones in one test are several people (referee, chief referee, a player).
  `desktop=True` makes it a desktop-sized window instead (an organiser at the office).
- `page` — the first phone, for tests that need only one.
- `server` — the live server (pytest-django's `live_server`, a real HTTP server in a thread, static files
  served from static/ by the finders); `server.url(path_or_route_name, **kwargs)` builds an address.
- `shot(page, "step")` — a full-page PNG in artifacts/e2e/<test name>/NN-step.png (artifacts/ is
  git-ignored), numbered in the order taken, so a person can follow the test; a failing test also leaves a
  last picture of every open phone.
- `sign_in(page, user, password)` — through the real sign-in form.
- `marker.set(page)` / `marker.survived(page)` — a JavaScript marker that only survives if the page was
  never reloaded (htmx swapped parts of it instead).
- `clock.freeze(page)` before a page is opened, then `clock.poll(page, seconds, "/live/")` — the page's
  timers (htmx `every Ns` polling) run only when the test moves the clock: no real waiting, no poll before
  the test asks for one.

The live server shares the test database: tests here use pytest-django's transactional database
(implied by `live_server`), so what a test creates through the services is visible to the browser and
what the browser does is visible to the test.
"""

import datetime as dt
import os
import re
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import cache
from django.urls import reverse

from public import rendered
from tests.e2e.inflight import statements_wait_for_requests, wait_until_idle

CHROMIUM = Path(os.environ.get("E2E_CHROMIUM", "/usr/bin/chromium"))
# Headless as root on a machine without network: no sandbox, no GPU, and none of Chromium's background
# traffic (it would hammer the closed network and slow every test).
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True, "device_scale_factor": 1}
DESKTOP = {"viewport": {"width": 1280, "height": 860}}
TIMEOUT_MS = 10_000  # waits (not assertions about time): generous for a slow CI machine
ARTIFACTS = Path(settings.BASE_DIR) / "artifacts" / "e2e"
INSTALL_HINT = "apt-get install -y chromium fonts-noto-cjk (.ci/run does this when /usr/bin/chromium is missing)"


def pytest_configure(config):
    config.addinivalue_line("markers", "e2e: real-browser test (Playwright + Chromium); deselect with -m 'not e2e'")
    try:
        from playwright.sync_api import expect
    except ImportError:
        return
    # expect() waits 5 s by default, the pages' actions TIMEOUT_MS: a machine busy with three workers and
    # their browsers took longer than 5 s to answer a navigation once.
    expect.set_options(timeout=TIMEOUT_MS)


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents:
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"e2e_report_{report.when}", report)
    return report


def _unavailable(reason: str):
    """CI must run the browser tests; a laptop without Chromium still runs the rest of `make test`."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason}. CI has to run the browser tests: {INSTALL_HINT}.", pytrace=False)
    pytest.skip(f"{reason}; browser tests skipped (install with {INSTALL_HINT})")


@pytest.fixture(scope="module")
def browser():
    yield from launch_chromium()


def launch_chromium(*extra_args: str):
    """Yields a headless Chromium started with CHROMIUM_ARGS and `extra_args`, and closes it afterwards."""
    if not CHROMIUM.exists():
        _unavailable(f"Chromium not found at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the Python package playwright is not installed (pip install -e '.[dev]')")
    # Playwright's sync API runs an asyncio loop in this thread, and Django refuses ORM calls from a thread
    # with a running loop. The tests call the ORM synchronously and never share a connection with the loop,
    # so allow it — only while Playwright runs, so the rest of the suite keeps Django's guard.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=[*CHROMIUM_ARGS, *extra_args],
                                              headless=True)
        try:
            yield chromium
        finally:
            chromium.close()
    finally:
        playwright.stop()
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


class Server:
    def __init__(self, live_server):
        self.root = live_server.url.rstrip("/")

    def url(self, where: str, *args, **kwargs) -> str:
        """`where` is a path ("/t/abc/") or a URL name reversed with args/kwargs ("board", festival=…)."""
        path = where if where.startswith("/") else reverse(where, args=args or None, kwargs=kwargs or None)
        return self.root + path


@pytest.fixture
def server(live_server, browser):
    # Public fragments and rate limits live in the process's memory cache; start every test from nothing.
    cache.clear()
    rendered.forget()
    with statements_wait_for_requests():
        yield Server(live_server)


def _safe(name: str) -> str:
    """ASCII file names: CI artifact stores and zip tools on every machine cope with them."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")


def _test_dir(request) -> Path:
    return ARTIFACTS / _safe(request.node.name)


class Shots:
    def __init__(self, folder: Path):
        self.folder = folder
        self.count = 0
        shutil.rmtree(folder, ignore_errors=True)  # pictures of an earlier run would mislead
        folder.mkdir(parents=True, exist_ok=True)

    def __call__(self, page, step: str) -> Path:
        self.count += 1
        path = self.folder / f"{self.count:02d}-{_safe(step)}.png"
        page.screenshot(path=str(path), full_page=True)
        return path


@pytest.fixture
def shot(request) -> Shots:
    return Shots(_test_dir(request))


@pytest.fixture
def phone(request, browser, server, shot):
    """`phone("referee")` → a Page in a fresh context (its own cookies and storage) at 360×740.
    `lang` sets the browser's Accept-Language (the app's LocaleMiddleware follows it)."""
    opened = []

    def new_phone(name: str = "phone", *, lang: str = "en", desktop: bool = False):
        context = browser.new_context(locale=lang, **(DESKTOP if desktop else PHONE))
        context.set_default_timeout(TIMEOUT_MS)
        context.set_default_navigation_timeout(TIMEOUT_MS)
        page = context.new_page()
        opened.append((name, context, page))
        return page

    yield new_phone
    failed = getattr(request.node, "e2e_report_call", None)
    for name, context, page in opened:
        try:
            if failed is not None and failed.failed and not page.is_closed():
                shot(page, f"failed-{name}")
        finally:
            context.close()
    wait_until_idle()  # a poll still being answered would lock the tables the database teardown empties


@pytest.fixture
def page(phone):
    return phone("phone")


@pytest.fixture
def sign_in(server):
    def sign_in_as(page, user, password="pw-for-tests-only", next_url=""):
        login = server.url("login") + (f"?next={next_url}" if next_url else "")
        page.goto(login)
        page.fill("input[name=username]", user.get_username())
        page.fill("input[name=password]", password)
        with page.expect_navigation():
            page.click("main form button[type=submit]")
        assert "/accounts/login/" not in page.url, "the sign-in form did not accept the user"
        return page

    return sign_in_as


class Marker:
    """A value in the page's JavaScript state: gone if the page is ever reloaded or navigated away."""

    @staticmethod
    def set(page) -> None:
        page.evaluate("window.__e2eMarker = 'still the same page'")

    @staticmethod
    def survived(page) -> bool:
        return page.evaluate("window.__e2eMarker === 'still the same page'")


@pytest.fixture
def marker() -> Marker:
    return Marker()


class Clock:
    @staticmethod
    def freeze(page) -> None:
        """Before the page is opened: its timers fire only when the test moves the clock."""
        start = dt.datetime.now(dt.UTC)
        page.clock.install(time=start)
        page.clock.pause_at(start + dt.timedelta(seconds=5))

    @staticmethod
    def poll(page, seconds: float, url_part: str) -> None:
        """Move the clock `seconds` on and wait for the poll's answer (a request whose URL holds `url_part`)."""
        with page.expect_response(lambda response: url_part in response.url and response.ok):
            page.clock.run_for(int(seconds * 1000))
        page.clock.run_for(1000)  # htmx settles a swap on a timer too


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def table():
    """A released Busan round with one table of four and its private link (as printed on the table card):
    (stage, link, seats). A module may define its own `table` (test_e2e_clocks.py does)."""
    from scoring.services.links import ensure_links
    from tests.factories import released_stage
    from tournament.services import seating
    from tournament.services.audit import Actor

    stage = released_stage(4)
    link = ensure_links(event=stage.event, actor=Actor(label="organiser"))[0]
    seats = seating.seats(seating.game_draw(stage, 1), table=link.table_number)
    assert [seat.position for seat in seats] == [1, 2, 3, 4]
    return stage, link, seats
