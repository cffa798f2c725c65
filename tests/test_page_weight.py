"""Page weight: the standings of a 128-player event reach a phone in under 100 KB.

Sizes, not times: the page is rendered by the test client and compressed as the deployment does (nginx's
gzip level from deploy/nginx.conf for the HTML, whitenoise's gzip -9 for the CSS and JS, no brotli credit),
so the figure is the same on every machine. `python -m bench.pages` measures every public page.
"""

import pytest
from django.urls import reverse

from bench.pages import KB, TARGET_STANDINGS_KB, asset, asset_urls, gzipped, nginx_gzip_level
from scoring.simulation import simulate

pytestmark = pytest.mark.django_db
PLAYERS = 128


@pytest.fixture(scope="module")
def level() -> int:
    return nginx_gzip_level()


@pytest.mark.slow
def test_standings_of_128_players_weigh_under_100_kb_on_a_first_visit(client, level):
    event = simulate("busan", PLAYERS, seed=7)  # rounds 1–3 and the final: every game column filled
    # The finished event leads with its final places; the heaviest page is the table of every game.
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    places = client.get(reverse("public-standings", kwargs=kwargs))
    assert places.status_code == 200 and len(places.context["results"].rows) == PLAYERS
    response = client.get(reverse("public-standings-all", kwargs=kwargs))
    assert response.status_code == 200
    assert len(response.context["board"].rows) == PLAYERS
    assert gzipped(places.content, level) < gzipped(response.content, level)
    html = response.content
    assets = [asset(url) for url in asset_urls(html.decode())]
    assert {a.url.rsplit("/", 1)[-1] for a in assets} >= {"bootstrap-5.3.9.min.css", "htmx-2.0.11.min.js"}
    page = gzipped(html, level)
    first_visit = page + sum(a.gzip for a in assets)
    assert first_visit < TARGET_STANDINGS_KB * KB, (
        f"standings page {page / KB:.1f} KB + assets {sum(a.gzip for a in assets) / KB:.1f} KB gzip")
    # The HTML alone is what every later visit (and every poll after a change) costs: keep it small too.
    assert page < 25 * KB, f"standings HTML {page / KB:.1f} KB gzip"


def test_the_proxy_compresses_html_at_a_real_level(level):
    """nginx's default level is 1; the figures in docs/PERFORMANCE.md assume the level set in the config."""
    assert level >= 4
