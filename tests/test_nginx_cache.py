"""deploy/nginx.conf's micro-cache in front of the app (Debian's nginx, started here on loopback; skipped when
nginx is not installed — .ci/run installs it): anonymous polls share one answer a second; a signed-in
organiser never gets the anonymous copy and an anonymous phone never gets a staff or signed-in one."""

import gzip
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from bench.servers import free_port, nginx_conf
from tests.factories import make_event, make_staff, released_stage

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(NGINX is None, reason="Debian's nginx is not installed (apt-get install nginx)")]


@pytest.fixture
def proxy(live_server, tmp_path):
    port = free_port()
    conf = nginx_conf(tmp_path, port, live_server.url.removeprefix("http://"))
    process = subprocess.Popen([NGINX, "-p", str(tmp_path), "-c", str(conf), "-g", "daemon off;"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(base + "/", timeout=2)
            break
        except urllib.error.HTTPError:
            break
        except OSError:
            if process.poll() is not None:
                pytest.fail(f"nginx did not start: {process.stderr.read().decode()}")
            time.sleep(0.05)
    yield base
    process.send_signal(signal.SIGTERM)
    process.wait(10)


def fetch(url: str, cookies: dict | None = None, **headers) -> tuple[int, dict, str]:
    headers = {"Accept-Language": "en", **headers}
    if cookies:
        headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in cookies.items())
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def organiser_cookies(event) -> dict:
    client = Client()
    client.force_login(make_staff(event.festival, "organiser"))
    return {name: morsel.value for name, morsel in client.cookies.items()}


def test_anonymous_polls_share_one_answer_and_staff_never_meet_it(proxy):
    event = make_event()
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    live = proxy + reverse("public-standings-live", kwargs=kwargs)

    status, first, _ = fetch(live)
    assert status == 200 and first["X-Micro-Cache"] == "MISS"
    status, second, _ = fetch(live)
    assert status == 200 and second["X-Micro-Cache"] == "HIT" and second["ETag"] == first["ETag"]
    assert "private" not in second["Cache-Control"] and "Cookie" in second["Vary"]

    organiser = organiser_cookies(event)
    status, staff, _ = fetch(live, organiser)
    assert status == 200 and staff["X-Micro-Cache"] == "BYPASS"
    assert staff["ETag"] != first["ETag"]  # the signed-in answer, from Django, not the anonymous copy
    assert "private" in staff["Cache-Control"]

    status, after, _ = fetch(live)  # the organiser's answer was not stored for the phones
    assert status == 200 and after["ETag"] == first["ETag"]
    assert after["X-Micro-Cache"] in ("HIT", "MISS", "EXPIRED", "UPDATING", "REVALIDATED")


def test_the_cache_keys_by_language(proxy):
    event = make_event()
    live = proxy + reverse("public-standings-live", kwargs={"festival": event.festival.slug, "event": event.slug})
    _, english, _ = fetch(live)
    _, korean, _ = fetch(live, **{"Accept-Language": "ko"})
    assert korean["X-Micro-Cache"] == "MISS" and korean["ETag"] != english["ETag"]
    _, by_cookie, _ = fetch(live, {"django_language": "zh-hant"})
    assert by_cookie["X-Micro-Cache"] == "MISS" and by_cookie["ETag"] not in (english["ETag"], korean["ETag"])


def test_pages_with_a_token_and_staff_pages_are_never_stored(proxy):
    event = make_event()
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    page = proxy + reverse("public-standings", kwargs=kwargs)
    tokens = set()
    for _ in range(2):
        status, headers, html = fetch(page)
        assert status == 200 and "X-Micro-Cache" not in headers
        tokens.add(html.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0])
    assert len(tokens) == 2  # each visitor's own CSRF token, never a stored one

    organiser = organiser_cookies(event)
    manage = proxy + reverse("manage-event", kwargs=kwargs)
    status, headers, html = fetch(manage, organiser)
    assert status == 200 and "X-Micro-Cache" not in headers and "no-store" in headers["Cache-Control"]
    status, _, anonymous = fetch(manage)
    assert status in (302, 403) or "logout" not in anonymous


def test_an_expired_copy_is_revalidated_with_its_etag(proxy):
    """Past its second, the copy is checked with its ETag: an unchanged fragment costs Django a 304."""
    event = make_event()
    live = proxy + reverse("public-standings-live", kwargs={"festival": event.festival.slug, "event": event.slug})
    _, first, _ = fetch(live)
    time.sleep(2.1)  # the copy is kept 1 s (deploy/nginx.conf), counted in whole seconds
    status, again, _ = fetch(live)
    assert status == 200 and again["X-Micro-Cache"] == "REVALIDATED" and again["ETag"] == first["ETag"]


def test_the_copy_is_compressed_once_and_kept_apart_from_the_plain_one(proxy):
    """nginx compresses the fragment on its way into the cache (not once per phone); a phone that takes no
    gzip has its own plain copy."""
    event = released_stage(8).event  # a fragment above gzip_min_length
    live = proxy + reverse("public-standings-live", kwargs={"festival": event.festival.slug, "event": event.slug})
    request = urllib.request.Request(live, headers={"Accept-Language": "en", "Accept-Encoding": "gzip"})
    for expected in ("MISS", "HIT"):
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.headers["X-Micro-Cache"] == expected
            assert response.headers["Content-Encoding"] == "gzip"
            assert b"<" in gzip.decompress(response.read())
    status, plain, body = fetch(live)  # no Accept-Encoding
    assert status == 200 and plain["X-Micro-Cache"] == "MISS" and "Content-Encoding" not in plain and "<" in body
