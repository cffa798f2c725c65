"""The live addresses exist once, in public/urls.py (`LIVE`): the public lane takes exactly them, and what else
must know them — the service worker's offline rules (static/js/sw.js) and nginx's micro-cache (deploy/nginx.conf)
— is checked against that list here, so a new live page cannot be forgotten in one of them."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from public.lane import public_lane
from public.urls import KEPT_OFFLINE, LIVE
from tournament.middleware import STAFF_PATHS

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = {"festival": "busan-2026", "event": "open", "stage": 2, "number": 12}


def sample_path(pattern: URLPattern) -> str:
    wanted = set(pattern.pattern.regex.groupindex)
    return reverse(pattern.name, kwargs={key: value for key, value in SAMPLE.items() if key in wanted})


def every_route(resolver=None, prefix=""):
    for entry in (resolver or get_resolver()).url_patterns:
        if isinstance(entry, URLResolver):
            yield from every_route(entry, prefix + str(entry.pattern))
        else:
            yield prefix + str(entry.pattern), entry


def sw_rules() -> list[tuple[re.Pattern, str]]:
    source = (ROOT / "static" / "js" / "sw.js").read_text()
    block = source[source.index("var RULES = ["):source.index("];", source.index("var RULES = ["))]
    return [(re.compile(regex.replace("\\/", "/")), cache) for regex, cache in re.findall(r'\[/(.+?)/, "(\w+)"\]', block)]


def nginx_micro_cache() -> re.Pattern:
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    [regex] = re.findall(r"location ~ (\S+) \{\s*proxy_pass http://unix:[^\n]*\n[^}]*?proxy_cache rummikub_public;", conf)
    return re.compile(regex)


LIVE_PATHS = [(pattern.name, sample_path(pattern)) for pattern in LIVE]


def test_the_lane_takes_exactly_the_live_views():
    marked = {entry.name for _route, entry in every_route() if getattr(entry.callback, "public_lane", False)}
    assert marked == {pattern.name for pattern in LIVE}


@pytest.mark.parametrize(("name", "path"), LIVE_PATHS)
def test_an_anonymous_read_of_each_live_address_takes_the_lane_and_no_staff_prefix_holds_one(name, path):
    assert public_lane(RequestFactory().get(path)), name
    signed_in = RequestFactory().get(path)
    signed_in.COOKIES[settings.SESSION_COOKIE_NAME] = "x"
    assert not public_lane(signed_in)
    assert not path.startswith(STAFF_PATHS)


@pytest.mark.parametrize(("name", "path"), LIVE_PATHS)
def test_the_service_worker_keeps_exactly_the_live_pages_meant_to_work_offline(name, path):
    kept = [cache for regex, cache in sw_rules() if regex.search(path)]
    assert kept == (["public"] if name in KEPT_OFFLINE else []), (name, path)


@pytest.mark.parametrize(("name", "path"), LIVE_PATHS)
def test_nginx_micro_caches_exactly_the_shared_fragments_and_the_api(name, path):
    """A fragment and an API answer are the same for every anonymous phone (public/live.py); a full page holds
    the visitor's CSRF token and is never kept by nginx."""
    shared = name.endswith("-live") or name.startswith("api-")
    assert bool(nginx_micro_cache().match(path)) is shared, (name, path)


def test_the_offline_pages_are_live_pages():
    assert KEPT_OFFLINE <= {pattern.name for pattern in LIVE}
