"""Locust scenario: 500 phones polling the live pages while 128 referees submit score sheets.

Started by `loadtest/run.py` (see loadtest/README.md), or by hand against a running server:

    locust -f loadtest/locustfile.py --plan plan.json --headless -u 629 -r 60 --run-time 120s \
           --host http://127.0.0.1:8000   # -u = phones + referees + 1 chief referee

`--plan` is the JSON that `python -m loadtest.prepare --out plan.json` wrote (event, table links, players,
the chief referee's sign-in). Three kinds of user, in fixed numbers:

- **Phone** (500): has the event's standings (60 %) or a player's page (40 %) open when the run starts
  and polls its live fragment every 3 s (`--poll-seconds`, as the pages' `hx-trigger`; each phone at its
  own phase) as htmx does —
  `HX-Request: true` and the last ETag in `If-None-Match`; on 5 % of its turns it opens the other page
  instead (a full page, with the ETag of its last visit if any). A 200 or a 304 is right; anything else
  is an error.
- **Referee** (128, one per table): opens the table link `t/<token>/`, opens the game's entry page,
  fills in the form the page sent (every field name, the CSRF token and the idempotency key come from
  the page: the same form a browser posts), sends one live check (`…/preview/`, htmx) and submits a
  went-out game with counted rack values; must be answered by the redirect to the table page. Games 1,
  2 and 3 in turn, then the referee is idle.
- **Chief referee** (1): signs in on the login page, looks at the board of each game (htmx) every 3 s
  and confirms every clean submitted sheet with the board's one-tap confirm, about one tap a second,
  each answered by the new board (as htmx swaps it in). After each tap it asks the app server itself
  (`--origin`, past the proxy's cache) for the standings fragment as a phone would, to learn the ETag of
  the version that holds the confirmation; with the phones' answers that gives how soon each confirmation
  showed on the phones (loadtest/freshness.py, written to `--freshness`).

Errors are counted by locust: every 5xx, every timeout or refused connection (network timeout 10 s),
and every answer that is not the one expected (a 403 for CSRF, a 404, a form sent back with errors …).
"""

from __future__ import annotations

import itertools
import json
import random
import re
import urllib.request
from pathlib import Path
from time import perf_counter
from urllib.parse import urlsplit

import gevent
from locust import FastHttpUser, between, events, task

# locust runs with the project folder as its working directory (loadtest/run.py), so this imports
from loadtest.freshness import Record
from loadtest.page_forms import PageForms, browser_data

POLL_SECONDS = 3.0  # templates/public/standings.html and player.html: hx-trigger="every 3s"
STANDINGS_SHARE = 0.6  # phones looking at the standings; the others at their own player page
SWITCH_CHANCE = 0.05  # per poll, a phone opens the other page
TIMEOUT = 10.0
TAP_SECONDS = 1.0  # a chief referee confirms about one sheet a second


@events.init_command_line_parser.add_listener
def _arguments(parser):
    parser.add_argument("--plan", env_var="LOADTEST_PLAN", default="", help="plan.json from loadtest.prepare")
    parser.add_argument("--phones", type=int, default=500, help="phones polling the live pages")
    parser.add_argument("--referees", type=int, default=128, help="referees (one per table, at most the tables)")
    parser.add_argument("--poll-seconds", type=float, default=POLL_SECONDS, help="the phones' poll interval")
    parser.add_argument("--origin", default="", help="the app server itself, past any proxy (for freshness)")
    parser.add_argument("--freshness", default="", help="write the freshness record (JSON) here at the end")


FRESHNESS = Record()


@events.init.add_listener
def _counts(environment, **_kwargs):
    options = environment.parsed_options
    if options is not None:
        Phone.fixed_count = options.phones
        Referee.fixed_count = options.referees
        Phone.poll_seconds = options.poll_seconds


@events.quitting.add_listener
def _save_freshness(environment, **_kwargs):
    options = environment.parsed_options
    if options is not None and options.freshness:
        FRESHNESS.save(Path(options.freshness))


def every(seconds: float | str):
    """Constant pacing, counted from the user's own start.

    Locust's `constant_pacing` counts from the moment the user object was created, so a random delay in
    `on_start` is taken back from the first wait, and the phones spawned in the same second (locust starts
    them in batches) would poll in step forever: bursts of ~60 requests at once, which real phones do not
    send. Here each user keeps its own schedule (`user.due`), set when `on_start` ends.
    `seconds` may name an attribute of the user holding the interval (set from the command line)."""

    def wait_time(user) -> float:
        now = perf_counter()
        interval = getattr(user, seconds) if isinstance(seconds, str) else seconds
        user.due = max(getattr(user, "due", now) + interval, now)  # late (a slow answer): go at once
        return user.due - now

    return wait_time


_plan: dict | None = None


def plan_of(user) -> dict:
    global _plan
    if _plan is None:
        path = user.environment.parsed_options.plan
        if not path:
            raise SystemExit("give --plan (or LOADTEST_PLAN): the JSON written by `python -m loadtest.prepare`")
        with open(path) as source:
            _plan = json.load(source)
    return _plan


def csrf_of(user) -> str:
    for cookie in user.client.cookiejar:
        if cookie.name == "csrftoken":
            return cookie.value
    return ""


def expect(response, *statuses: int) -> bool:
    """Mark the response a failure unless its status is one of `statuses`."""
    if response.status_code in statuses:
        response.success()
        return True
    if not response.status_code:  # no answer at all: a timeout or a refused or reset connection
        response.failure(f"no answer: {type(response.error).__name__ if response.error else 'connection'}")
    else:
        response.failure(f"HTTP {response.status_code} (expected {'/'.join(map(str, statuses))})")
    return False


class Phone(FastHttpUser):
    """A player's or visitor's phone with the standings or a player page open (no login, no cookies needed)."""

    fixed_count = 500
    poll_seconds = POLL_SECONDS
    wait_time = every("poll_seconds")
    network_timeout = connection_timeout = TIMEOUT
    _numbers = itertools.count()

    def on_start(self):
        self.id = next(Phone._numbers)
        self.visits = 0  # how often the phone went to the other page and back
        plan = plan_of(self)
        self.base = f"/f/{plan['festival']}/{plan['event']}/"
        self.number = random.choice(plan["players"])
        self.page = "standings" if random.random() < STANDINGS_SHARE else "player"
        self.etags: dict[str, str] = {}
        gevent.sleep(random.uniform(0, self.poll_seconds))  # phones are not in step with each other
        self.due = perf_counter()

    def _url(self, live: bool) -> tuple[str, str]:
        if self.page == "standings":
            return self.base + ("standings/live/" if live else "standings/"), f"phone: standings {'live' if live else 'page'}"
        url = self.base + f"player/{self.number}/" + ("live/" if live else "")
        return url, f"phone: player {'live' if live else 'page'}"

    def _get(self, live: bool):
        url, name = self._url(live)
        headers = {"Accept-Encoding": "gzip"}  # as every phone's browser
        if url in self.etags:
            headers["If-None-Match"] = self.etags[url]
        if live:
            headers["HX-Request"] = "true"
            headers["HX-Current-URL"] = self.host + self._url(False)[0]
        with self.client.get(url, name=name, headers=headers, catch_response=True) as response:
            if expect(response, 200, 304):
                etag = response.headers.get("ETag") or headers.get("If-None-Match", "")
                if etag:
                    self.etags[url] = etag
                if live and self.page == "standings":
                    # One stay on the standings is one viewer: what was confirmed while the phone had
                    # another page open is not a delay of its standings.
                    FRESHNESS.polls.append((self.id * 1000 + self.visits, perf_counter(), etag))

    @task
    def poll(self):
        if random.random() < SWITCH_CHANCE:
            self.page = "player" if self.page == "standings" else "standings"
            self.visits += 1
            self._get(live=False)
        else:
            self._get(live=True)


class Referee(FastHttpUser):
    """One table's referee on a phone, through the table's private link (no account)."""

    fixed_count = 128
    wait_time = between(8, 16)  # between two games (compressed: a real game takes ~23 minutes, R9)
    network_timeout = connection_timeout = TIMEOUT
    _tables = itertools.count()

    def on_start(self):
        plan = plan_of(self)
        table = plan["tables"][next(Referee._tables) % len(plan["tables"])]
        self.table_url = f"/t/{table['token']}/"
        self.games = plan["games"]
        self.game = 1
        gevent.sleep(random.uniform(0, 20))  # tables do not finish together

    @task
    def next_game(self):
        if self.game > self.games:
            return  # all games sent: the referee's phone is idle
        self.client.get(self.table_url, name="referee: table page")
        gevent.sleep(random.uniform(1, 3))
        game_url = f"{self.table_url}stage-1/game/{self.game}/"  # the load test plays round 1
        with self.client.get(game_url, name="referee: game page", catch_response=True) as response:
            if not expect(response, 200):
                return
            forms = PageForms(response.text).matching(re.escape(game_url) + "$")
            if not forms:
                response.failure("no score-sheet form on the entry page")
                return
        data = self._fill(browser_data(forms[0]))
        gevent.sleep(random.uniform(5, 10))  # counting the racks, typing
        with self.client.post(f"{game_url}preview/", data=data, name="referee: live check",
                              headers={"HX-Request": "true", "X-CSRFToken": csrf_of(self)},
                              catch_response=True) as response:
            expect(response, 200)
        gevent.sleep(random.uniform(1, 2))
        data["action"] = "submit"
        with self.client.post(game_url, data=data, name="referee: submit sheet", allow_redirects=False,
                              catch_response=True) as response:
            if response.status_code == 200:  # the form came back: refused or invalid
                alert = re.search(r'class="alert[^"]*"[^>]*>(.*?)</', response.text or "", re.S)
                response.failure(f"sheet refused: {alert.group(1).strip() if alert else 'form sent back'}")
                return
            if not expect(response, 302):
                return
            if urlsplit(response.headers.get("Location", "")).path != self.table_url:
                response.failure(f"redirected to {response.headers.get('Location')!r}, not the table page")
                return
        self.client.get(self.table_url, name="referee: table page")
        self.game += 1

    def _fill(self, data: dict[str, str]) -> dict[str, str]:
        """A went-out game: one seat went out, the others had opened and their racks were counted."""
        seats = sorted(int(m.group(1)) for key in data if (m := re.fullmatch(r"s(\d+)_registration", key)))
        winner = random.choice(seats)
        data["end"] = "went_out"
        data["went_out"] = str(winner)
        losers = [seat for seat in seats if seat != winner]
        joker = random.choice(losers) if random.random() < 0.3 else None  # a set has two jokers (R1)
        for seat in seats:
            data[f"s{seat}_opened"] = "yes"
            if seat != winner:
                data[f"s{seat}_rack_value"] = str(random.randint(2, 60))
                data[f"s{seat}_jokers"] = "1" if seat == joker else "0"
        return data


class ChiefReferee(FastHttpUser):
    """The chief referee on the board: confirms every clean submitted sheet with one tap each."""

    fixed_count = 1
    wait_time = every(3)  # looks at the board of each game every 3 s
    network_timeout = connection_timeout = TIMEOUT

    def on_start(self):
        plan = plan_of(self)
        self.board_url = f"/manage/{plan['festival']}/{plan['event']}/board/"
        self.stage, self.games = plan["stage"], plan["games"]
        self.refused: set[str] = set()
        login = f"/accounts/login/?next={self.board_url}"
        self.client.get(login, name="chief: login page")
        with self.client.post(login, name="chief: sign in", allow_redirects=False, catch_response=True, data={
            "username": plan["chief"]["username"], "password": plan["chief"]["password"],
            "csrfmiddlewaretoken": csrf_of(self), "next": self.board_url,
        }) as response:
            expect(response, 302)
        self.client.get(self.board_url, name="chief: board")
        self.origin = self.environment.parsed_options.origin or self.host
        self.standings_live = f"{self.origin}/f/{plan['festival']}/{plan['event']}/standings/live/"
        FRESHNESS.start_etag = self._public_etag("")

    @task
    def confirm_submitted(self):
        for game in range(1, self.games + 1):
            with self.client.get(f"{self.board_url}?stage={self.stage}&game={game}", name="chief: board (htmx)",
                                 headers={"HX-Request": "true"}, catch_response=True) as response:
                if not expect(response, 200):
                    continue
                board = response.text
            while True:
                forms = [f for f in PageForms(board).matching(r"/quick-confirm/$") if f["action"] not in self.refused]
                if not forms:
                    break
                form = forms[0]
                tapped = perf_counter()
                with self.client.post(form["action"], data=browser_data(form), name="chief: quick confirm",
                                      headers={"HX-Request": "true", "X-CSRFToken": csrf_of(self)},
                                      catch_response=True) as response:
                    if not expect(response, 200):
                        self.refused.add(form["action"])
                        self._confirmed(tapped, attempts=1)  # a timed-out tap may still have been stored
                        break
                    board = response.text
                    if 'alert-danger' in board:  # the confirmation was refused (shown on the board)
                        self.refused.add(form["action"])
                        response.failure("confirmation refused on the board")
                    else:
                        self._confirmed(tapped)
                    gevent.sleep(TAP_SECONDS)  # reads the new board, taps the next Confirm

    def _confirmed(self, tapped: float, attempts: int = 50) -> None:
        """Note the version that holds the sheet tapped at `tapped`, if the public version changed."""
        previous = FRESHNESS.confirmations[-1][1] if FRESHNESS.confirmations else FRESHNESS.start_etag
        etag = self._public_etag(previous, attempts)
        if etag != previous:
            FRESHNESS.confirmations.append((tapped, etag))

    def _public_etag(self, previous: str, attempts: int = 50) -> str:
        """The standings fragment's ETag for an anonymous phone, from the app server itself; asked again
        while it is still `previous` (a worker's cached version), which no confirmation should leave."""
        request = urllib.request.Request(self.standings_live, headers={"HX-Request": "true", "Accept-Encoding": "gzip"})
        etag = previous
        for _ in range(attempts):
            try:
                with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                    etag = response.headers.get("ETag", "")
            except OSError:  # an overloaded server: this confirmation goes unmeasured, the run goes on
                return previous
            if etag != previous:
                break
            gevent.sleep(0.1)
        return etag
