"""Organisers never need the Django admin: a crawl of every page an organiser (and each other role) can reach
from My work finds no link into /admin/. The admin stays for the superuser."""

import re
from collections import Counter
from urllib.parse import urldefrag, urlsplit

import pytest
from django.urls import Resolver404, resolve

from scoring.simulation import simulate
from tests.factories import make_staff, open_event
from tournament.models import Event

HREF = re.compile(r'(?:href|action|hx-get)="([^"]+)"')
PAGES_PER_ROUTE = 3  # a played event has hundreds of sheets; a few of each kind show every link
SKIP_PREFIXES = ("/static/", "/accounts/logout/", "/i18n/")


def crawl(client, start: str) -> tuple[dict[str, set[str]], int]:
    """Every page reachable by GET from `start`: {page: links into /admin/ on it}, and the pages seen."""
    queue, seen, per_route, admin_links = [start], {start}, Counter(), {}
    while queue:
        path = queue.pop(0)
        response = client.get(path)
        assert response.status_code < 500, path
        if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
            continue
        body = response.content.decode()
        found = {href for href in HREF.findall(body) if "/admin/" in href}
        if found:
            admin_links[path] = found
        for href in HREF.findall(body):
            target = urldefrag(href.replace("&amp;", "&"))[0]
            parts = urlsplit(target)
            if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith(SKIP_PREFIXES):
                continue
            if "/admin/" in target or target in seen:
                continue
            try:
                route = resolve(parts.path).route
            except Resolver404:
                continue
            if per_route[route] >= PAGES_PER_ROUTE:
                continue
            per_route[route] += 1
            seen.add(target)
            queue.append(target)
    return admin_links, len(seen)


@pytest.mark.slow
@pytest.mark.django_db
def test_no_page_any_role_can_reach_links_into_the_admin(client):
    event = simulate("busan", 16, seed=3)
    open_event(event.festival, name="Juniors")
    simulate("hk", 8, seed=4, festival=event.festival, name="Schools")
    for role in ("organiser", "chief referee", "referee", "desk"):
        person = make_staff(event.festival, role)
        person.is_staff = True  # staff status (admin log-in) changes nothing: the pages never offer the admin
        person.save()
        client.force_login(person)
        admin_links, pages = crawl(client, "/manage/")
        assert admin_links == {}, role
        assert pages > (40 if role == "organiser" else 5), role
    assert Event.objects.count() == 3
