"""Page weights: what each public page costs a phone in bytes, as the deployment serves it.

    python -m bench.pages                  # a fresh SQLite file; prints a Markdown table
    python -m bench.pages --players 128    # players in the simulated events (default 128)

How the deployment serves bytes (docker-compose.yml, deploy/nginx.conf, whitenoise):

- HTML, JSON and the htmx fragments come from Django uncompressed; nginx gzips them at the level set by
  `gzip_comp_level` in deploy/nginx.conf (read from the file here, so the figures follow the config).
  Django's GZipMiddleware stays off: see docs/PERFORMANCE.md, "Page weights" (BREACH).
- CSS and JS are compressed once at build time by whitenoise (`collectstatic`: gzip level 9, and brotli
  when the `brotli` package is installed — `whitenoise[brotli]`); whitenoise serves the .br to browsers
  that accept it (every current phone browser does over HTTPS), else the .gz. Their names carry a content
  hash and whitenoise marks them immutable for a year, so a second visit loads none of them.

Data: a 128-player Busan event and a 128-player Hong Kong event played to the end (`scoring.simulation`),
and a 128-player Busan event in the middle of round 1 (draw released, game 1 confirmed, game 2 half
submitted) for the pages of the day itself — draw, seat finder, table, hall display, referee pages.
Pages are rendered by Django's test client, anonymous, in English, as a phone that just arrived.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
NGINX_DEFAULT_LEVEL = 1  # nginx's own default when gzip_comp_level is not set
WHITENOISE_GZIP_LEVEL = 9
TARGET_STANDINGS_KB = 100
KB = 1000  # transferred kilobytes as browsers' network panels count them


def nginx_gzip_level(conf: Path = NGINX_CONF) -> int:
    match = re.search(r"^\s*gzip_comp_level\s+(\d)\s*;", conf.read_text(), re.M)
    return int(match.group(1)) if match else NGINX_DEFAULT_LEVEL


def gzipped(data: bytes, level: int) -> int:
    return len(gzip.compress(data, compresslevel=level, mtime=0))


def brotli_size(data: bytes) -> int | None:
    try:
        import brotli
    except ImportError:
        return None
    return len(brotli.compress(data))


class _Assets(HTMLParser):
    """The stylesheets and scripts a page makes the browser load."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "link" and "stylesheet" in (attrs.get("rel") or "").split() and attrs.get("href"):
            self.urls.append(attrs["href"])
        elif tag == "script" and attrs.get("src"):
            self.urls.append(attrs["src"])


def asset_urls(html: str) -> list[str]:
    parser = _Assets()
    parser.feed(html)
    return list(dict.fromkeys(parser.urls))


@dataclass(frozen=True)
class Asset:
    url: str
    raw: int
    gzip: int  # whitenoise's .gz (level 9)
    brotli: int | None  # whitenoise's .br, if brotli is installed

    @property
    def served(self) -> int:
        """What a browser accepting br gets; whitenoise keeps a compressed copy only if it saves 5 %."""
        best = min(self.gzip, self.brotli or self.gzip)
        return best if best <= 0.95 * self.raw else self.raw


@cache
def asset(url: str) -> Asset:
    from django.conf import settings
    from django.contrib.staticfiles import finders

    prefix = settings.STATIC_URL if settings.STATIC_URL.startswith("/") else "/" + settings.STATIC_URL
    if not url.startswith(prefix):
        raise ValueError(f"{url} is not a static file: pages load only the app's own assets")
    path = finders.find(url[len(prefix):])
    if path is None:
        raise FileNotFoundError(url)
    data = Path(path).read_bytes()
    return Asset(url, len(data), gzipped(data, WHITENOISE_GZIP_LEVEL), brotli_size(data))


@dataclass
class Weight:
    label: str
    url: str
    status: int
    raw: int
    gzip: int  # the body as nginx sends it
    assets: list[Asset]
    poll: int | None = None  # the htmx fragment this page polls, gzipped (None: the page does not poll)

    @property
    def assets_served(self) -> int:
        return sum(a.served for a in self.assets)

    @property
    def assets_gzip(self) -> int:
        return sum(a.gzip for a in self.assets)

    @property
    def first_visit(self) -> int:
        return self.gzip + self.assets_served

    @property
    def first_visit_gzip_only(self) -> int:
        """Without brotli anywhere: the figure the regression test holds against the target."""
        return self.gzip + self.assets_gzip


def weigh(client, label: str, url: str, level: int, poll_url: str | None = None) -> Weight:
    response = client.get(url)
    body = response.content
    html = body.decode(errors="replace") if "html" in response.get("Content-Type", "") else ""
    assets = [asset(u) for u in asset_urls(html)]
    poll = None
    if poll_url:
        fragment = client.get(poll_url, HTTP_HX_REQUEST="true")
        poll = gzipped(fragment.content, level)
    return Weight(label, url, response.status_code, len(body), gzipped(body, level), assets, poll)


# ---------------------------------------------------------------- data

def setup_django(database_url: str | None) -> None:
    if database_url is None:
        database_url = f"sqlite:///{Path(tempfile.mkdtemp(prefix='bench-pages-')) / 'db.sqlite3'}"
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def mid_round(players: int, seed: int):
    """A Busan event in the middle of round 1: draw released, game 1 confirmed, half of game 2 submitted."""
    from django.db import transaction

    from scoring.games.classic import ruleset_of
    from scoring.services.links import ensure_links
    from scoring.services.sheets import confirm_sheet, submit_sheet
    from scoring.simulation import plausible_entry, prepare_event, staff_of
    from tournament.services import draws, seating
    from tournament.services.audit import Actor

    with transaction.atomic():
        event, rng = prepare_event("busan", players, seed, name="Page weights: round 1 under way")
        organiser, chief = staff_of(event.festival)
        stage = draws.start_event(event=event, actor=organiser)
        draws.release_draw(draw=draws.draft_draw(stage=stage, actor=organiser, seed=rng.randrange(2**31)),
                           actor=organiser)
        links = ensure_links(event=stage.event, actor=organiser)
        ruleset = ruleset_of(event)
        for game in (1, 2):
            tables = seating.player_ids(seating.game_draw(stage, game))
            for number, registrations in enumerate(tables, start=1):
                if game == 2 and number > len(tables) // 2:
                    break
                link = Actor(label=f"table {number} link")
                sheet = submit_sheet(stage=stage, game=game, table_number=number,
                                     entry=plausible_entry(rng, ruleset, registrations), accept_warnings=True,
                                     idempotency_key=f"pages-{stage.pk}-{game}-{number}", actor=link, via=link.label)
                if game == 1:
                    confirm_sheet(sheet=sheet, actor=chief)
    return event, links[0].token


def pages(players: int, seed: int) -> list[tuple[str, str, str | None]]:
    """(label, url, polled fragment url) of every public page, plus the referee's and a player's own."""
    from django.urls import reverse

    from scoring.simulation import simulate

    busan = simulate("busan", players, seed=seed)
    hong_kong = simulate("hk", players, seed=seed)
    live, token = mid_round(players, seed)

    def url(name, event, **extra):
        return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug, **extra})

    registration = busan.registrations.filter(number__isnull=False).select_related("player").order_by("number")[0]
    number = registration.number
    name_part = registration.player.name[:1]
    return [
        ("home", reverse("home"), None),
        ("festival", reverse("festival", kwargs={"festival": live.festival.slug}), None),
        ("event", url("event", live), None),
        ("register (form)", url("event-register", live), None),
        ("draw, round 1 (128 players)", url("public-draw", live), None),
        ("find my seat (search)", url("public-seat", live) + f"?q={name_part}", None),
        ("table page", url("public-table", live, number=1), None),
        ("standings, round 1 under way", url("public-standings", live), url("public-standings-live", live)),
        ("hall display (projector)", url("public-hall", live), url("public-hall-live", live)),
        ("round clock (JSON, polled)", url("round-clock", live), None),
        (f"standings, whole Busan event ({players} players)", url("public-standings", busan),
         url("public-standings-live", busan)),
        ("standings, Busan round 1", url("public-standings-stage", busan, stage=1),
         url("public-standings-stage-live", busan, stage=1)),
        (f"standings, whole Hong Kong event ({players} players)", url("public-standings", hong_kong),
         url("public-standings-live", hong_kong)),
        ("player page (Busan, finished)", url("public-player", busan, number=number),
         url("public-player-live", busan, number=number)),
        ("find a player (search)", url("public-find-player", busan) + f"?q={name_part}", None),
        ("results and podium", url("results", busan), None),
        ("results, print", url("results-print", busan), None),
        ("season ranking", reverse("season"), None),
        ("API: standings (JSON)", reverse("api-standings", kwargs={"festival": busan.festival.slug,
                                                                   "event": busan.slug}), None),
        ("API: player (JSON)", reverse("api-player", kwargs={"festival": busan.festival.slug, "event": busan.slug,
                                                             "number": number}), None),
        ("personal page (QR link)", registration.player.get_absolute_url(), None),
        ("referee: table link", reverse("referee-link-table", kwargs={"token": token}), None),
        ("referee: game entry", reverse("referee-link-game", kwargs={"token": token, "stage": 1, "game": 2}), None),
    ]


# ---------------------------------------------------------------- report

def kb(n: int | None) -> str:
    return "–" if n is None else f"{n / KB:.1f}"


def table(weights: list[Weight]) -> str:
    lines = ["| page | HTML raw KB | HTML gzip KB | assets KB (br / gzip) | first visit KB | repeat visit KB "
             "| live poll KB |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for w in weights:
        assets = f"{kb(w.assets_served)} / {kb(w.assets_gzip)}" if w.assets else "–"
        lines.append(f"| {w.label} | {kb(w.raw)} | {kb(w.gzip)} | {assets} | {kb(w.first_visit)} | {kb(w.gzip)} "
                     f"| {kb(w.poll)} |")
    return "\n".join(lines)


def asset_table(weights: list[Weight]) -> str:
    seen = {a.url: a for w in weights for a in w.assets}
    lines = ["| asset | raw KB | gzip -9 KB | brotli KB | pages |", "|---|---:|---:|---:|---:|"]
    for url, a in sorted(seen.items(), key=lambda item: -item[1].raw):
        used = sum(1 for w in weights if a in w.assets)
        lines.append(f"| `{url}` | {kb(a.raw)} | {kb(a.gzip)} | {kb(a.brotli)} | {used} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=128)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--database-url", help="default: a fresh SQLite file in a temporary directory")
    args = parser.parse_args(argv)
    setup_django(args.database_url)
    from django.test import Client

    level = nginx_gzip_level()
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    weights = [weigh(client, label, url, level, poll) for label, url, poll in pages(args.players, args.seed)]
    broken = [w for w in weights if w.status != 200]
    print(f"HTML/JSON gzip level {level} (deploy/nginx.conf); assets as whitenoise serves them "
          f"(brotli {'installed' if brotli_size(b'x') is not None else 'NOT installed: gzip only'}).\n")
    print(table(weights))
    print()
    print(asset_table(weights))
    standings = next(w for w in weights if w.label.startswith("standings, whole Busan"))
    ok = standings.first_visit_gzip_only < TARGET_STANDINGS_KB * KB and not broken
    print(f"\nTarget: the {args.players}-player standings page under {TARGET_STANDINGS_KB} KB on a first visit: "
          f"{kb(standings.first_visit)} KB (gzip only: {kb(standings.first_visit_gzip_only)} KB) "
          f"{'✔' if ok else '✘'}")
    for w in broken:
        print(f"✘ {w.label}: HTTP {w.status} for {w.url}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
