"""deploy/nginx.conf's micro-cache in front of the app (Debian's nginx, started here on loopback; skipped when
nginx is not installed — .ci/run installs it): anonymous polls share one answer a second; a signed-in
organiser never gets the anonymous copy and an anonymous phone never gets a staff or signed-in one."""

import gzip
import http.client
import json
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


# deploy/nginx.conf's line naming a TLS proxy of one's own, whose X-Forwarded-Proto nginx believes.
TLS_PROXY_EXAMPLE = "# 10.0.0.2 1;"


@pytest.fixture
def proxy(live_server, tmp_path):
    yield from _started(live_server, tmp_path)


@pytest.fixture
def proxy_behind_tls(live_server, tmp_path):
    """The same nginx, configured to believe the scheme a TLS proxy at 127.0.0.1 (the test's requests) reports."""
    yield from _started(live_server, tmp_path, trusted_tls_proxy="127.0.0.1")


def _started(live_server, tmp_path, trusted_tls_proxy=""):
    port = free_port()
    conf = nginx_conf(tmp_path, port, live_server.url.removeprefix("http://"))
    if trusted_tls_proxy:  # (without the line, a test that needs it fails: https is not believed)
        conf.write_text(conf.read_text().replace(TLS_PROXY_EXAMPLE, f"{trusted_tls_proxy} 1;"))
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


def fetch_lines(url: str, lines: list[tuple[str, str]]) -> tuple[int, dict, str]:
    """A GET whose header lines are sent exactly as given: repeated names, any spelling of a cookie."""
    address, _, path = url.removeprefix("http://").partition("/")
    connection = http.client.HTTPConnection(address, timeout=10)
    try:
        connection.putrequest("GET", "/" + path, skip_accept_encoding=True)
        for name, value in lines:
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode()
    finally:
        connection.close()


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


# Requests whose language nginx could read differently from Django: Django reads the Cookie header with
# django.http.parse_cookie (names in their exact case, the last of two cookies of one name winning, commas no
# separator), and the app server joins repeated header lines with commas.
ODD_SPELLINGS = {
    "tab-before-equals": [("Accept-Language", "en"), ("Cookie", "django_language\t=ko")],
    "upper-case-name": [("Accept-Language", "en"), ("Cookie", "DJANGO_LANGUAGE=ko")],
    "comma-joined": [("Accept-Language", "en"), ("Cookie", "theme=dark, django_language=ko")],
    "twice-last-wins": [("Accept-Language", "en"), ("Cookie", "django_language=ko; django_language=en")],
}
REPEATED_LINES = {
    "two-cookie-lines": [("Accept-Language", "en"), ("Cookie", "django_language=ko"), ("Cookie", "a=b")],
    "two-language-lines": [("Accept-Language", "ko;q=0.1"), ("Accept-Language", "zh-hant")],
}
# What ordinary phones send: no cookie, a language cookie, another Accept-Language.
PLAIN_REQUESTS = {
    "english": [("Accept-Language", "en")],
    "korean-cookie": [("Accept-Language", "en"), ("Cookie", "theme=dark; django_language=ko")],
    "korean-cookie-alone": [("Accept-Language", "en"), ("Cookie", "django_language=ko")],
    "faint-korean": [("Accept-Language", "ko;q=0.1")],
    "chinese-cookie": [("Accept-Language", "en"), ("Cookie", "django_language=zh-hant")],
}


@pytest.mark.parametrize("odd", [*ODD_SPELLINGS.values(), *REPEATED_LINES.values()],
                         ids=[*ODD_SPELLINGS, *REPEATED_LINES])
def test_a_request_nginx_could_read_otherwise_than_django_never_fills_the_shared_copy(proxy, live_server, odd):
    """Whatever spelling of the language cookie or of Accept-Language a request uses, the copy it leaves is in
    the language Django renders for the requests that share its key: the phones after it get their own
    language, and it gets its own after them."""
    event = make_event()
    path = reverse("public-standings-live", kwargs={"festival": event.festival.slug, "event": event.slug})
    direct = {name: fetch_lines(live_server.url + path, lines)[1]["Content-Language"]
              for name, lines in {"odd": odd, **PLAIN_REQUESTS}.items()}
    assert len(set(direct.values())) > 1  # the languages differ, so a wrong copy would show
    status, first, _ = fetch_lines(proxy + path, odd)
    assert status == 200
    if odd in ODD_SPELLINGS.values():  # one line each: nginx passes it on as it came
        assert first["Content-Language"] == direct["odd"]
    for name, lines in PLAIN_REQUESTS.items():
        status, headers, _ = fetch_lines(proxy + path, lines)
        assert status == 200 and headers["Content-Language"] == direct[name], (name, headers["X-Micro-Cache"])
    # And the other way round: copies the plain phones left are not served to the odd request.
    status, again, _ = fetch_lines(proxy + path, odd)
    assert again["Content-Language"] == first["Content-Language"], again["X-Micro-Cache"]


def test_plain_requests_of_each_language_still_share_their_copy(proxy):
    event = make_event()
    live = proxy + reverse("public-standings-live", kwargs={"festival": event.festival.slug, "event": event.slug})
    for lines in PLAIN_REQUESTS.values():
        # The copy lives one second: on a loaded machine the second request may come after it, so a pair is
        # tried up to three times. A request that bypassed the cache would never be a HIT.
        for _attempt in range(3):
            fetch_lines(live, lines)
            status, headers, _ = fetch_lines(live, lines)
            if headers.get("X-Micro-Cache") == "HIT":
                break
        assert status == 200 and headers["X-Micro-Cache"] == "HIT", lines


def _api_links(url: str, **headers) -> tuple[dict, str]:
    status, answer, body = fetch(url, **headers)
    assert status == 200, body
    return json.loads(body)["links"], answer.get("X-Micro-Cache", "")


def test_a_client_cannot_tell_django_the_scheme(proxy, settings):
    """Django believes X-Forwarded-Proto from the proxy (production's SECURE_PROXY_SSL_HEADER); nginx sets it
    from its own scheme, never from the client's header, so no request switches the API's links to https —
    for itself or, through the shared copy, for everyone."""
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    event = make_event()
    path = reverse("api-event", kwargs={"festival": event.festival.slug, "event": event.slug})
    plain = f"http://127.0.0.1{path}"  # (nginx passes Django the host without its port)
    for sent in ("https", "HTTPS", "https, http"):
        links, _ = _api_links(proxy + path, **{"X-Forwarded-Proto": sent})
        assert links["self"] == plain, sent
        links, _ = _api_links(proxy + path)
        assert links["self"] == plain, sent


def test_behind_a_tls_proxy_of_ones_own_the_scheme_it_reports_is_in_the_cache_key(proxy_behind_tls, settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    event = make_event()
    path = reverse("api-event", kwargs={"festival": event.festival.slug, "event": event.slug})
    plain, secure = f"http://127.0.0.1{path}", f"https://127.0.0.1{path}"
    links, _ = _api_links(proxy_behind_tls + path, **{"X-Forwarded-Proto": "https"})
    assert links["self"] == secure
    links, cache = _api_links(proxy_behind_tls + path, **{"X-Forwarded-Proto": "http"})
    assert links["self"] == plain and cache == "MISS"  # its own copy, not the https one
    links, cache = _api_links(proxy_behind_tls + path, **{"X-Forwarded-Proto": "https"})
    assert links["self"] == secure and cache == "HIT"
