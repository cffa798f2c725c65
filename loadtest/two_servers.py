"""Two app servers, one PostgreSQL, one Redis: `python -m loadtest.two_servers` (`make two-servers`).

What `docker compose up --scale web=N` relies on, shown on one machine without Docker: two gunicorn
servers on two ports (A and B, `config.settings.loadtest`: production-like, DEBUG off) share one
PostgreSQL database and one Redis cache. On a Busan event of 16 players (4 tables, `loadtest.prepare`):

1. a chief referee signs in on A; the same session opens the board on B (sessions live in PostgreSQL);
2. the referees' sheets of round 1, games 1 and 2, are submitted through A and B in turn (the table link's
   own entry page and form, real HTTP), and each is confirmed from the chief referee's board on the *other*
   server (htmx quick confirm);
3. after every step both servers answer the public standings (whole event and round 1, page and htmx
   fragment), two player pages (page and fragment) and the JSON API (event, standings, player) with the
   same ETag and the same body (full pages: apart from their CSRF tokens, which are masked anew for every
   response), and each server answers 304 to the other's ETag. A submitted sheet must leave every public
   ETag alone (the public sees only confirmed sheets); a confirmation must change them on both at once;
4. the registration rate limit (REGISTRATION_RATE, here 4 an hour) is counted once for both servers:
   posts 1–4 alternate A, B, A, B and are answered; the 5th and 6th, on A and on B, get 429.

All requests carry `Host: localhost`, as the reverse proxy passes one host name to every replica, so
absolute links in the API agree; cookies go to both ports as a browser sends them to one site.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres python -m loadtest.two_servers
    options: --redis-url redis://127.0.0.1:6379/13  --pg-name rk_two_servers  --workers 2  --out DIR

The PostgreSQL database (`rk_two_servers` by default on the server DATABASE_URL names) is dropped and made
anew; the Redis database number in --redis-url is flushed before the run: give one nobody else uses.
Every process it starts is stopped by its own pid. Exit status 0 when every check held.
tests/test_two_servers.py runs the same checks in the PostgreSQL pass of the test suite.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.cookiejar
import json
import os
import random
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench import servers as bench_servers
from bench.servers import free_port, start_gunicorn
from loadtest.page_forms import PageForms, browser_data

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SETTINGS = "config.settings.loadtest"
PG_NAME = "rk_two_servers"
REDIS_URL = "redis://127.0.0.1:6379/13"
PLAYERS = 16  # 4 tables of 4
GAMES = 2  # games of round 1 played through the servers
RATE_LIMIT = 4  # registration posts per hour and client address, for both servers together
HOST = "localhost"  # one site name in front of both servers, as nginx passes $host
TIMEOUT = 30


class Disagreement(AssertionError):
    """The two servers (or a server and the rules of the public pages) did not agree."""


# ---------------------------------------------------------------- HTTP, as a browser does it

@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes
    url: str

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    @property
    def etag(self) -> str:
        return self.headers.get("etag", "")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a redirect is an answer to check, not to follow


class Browser:
    """One person's browser: its own cookies, sent to both servers as to one site."""

    def __init__(self, name: str):
        self.name = name
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect())
        self.requests: dict[str, int] = {}

    def request(self, server: Server, path: str, data: dict | None = None, headers: dict | None = None) -> Reply:
        url = server.url(path)
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(url, data=body, headers={"Host": HOST, **(headers or {})})
        self.requests[server.name] = self.requests.get(server.name, 0) + 1
        try:
            with self.opener.open(request, timeout=TIMEOUT) as response:
                return Reply(response.status, {k.lower(): v for k, v in response.headers.items()}, response.read(), url)
        except urllib.error.HTTPError as error:  # 3xx (not followed), 4xx, 5xx: an answer all the same
            return Reply(error.code, {k.lower(): v for k, v in error.headers.items()}, error.read(), url)

    def csrf(self) -> str:
        return next((cookie.value for cookie in self.jar if cookie.name == "csrftoken"), "")

    def has_session(self) -> bool:
        return any(cookie.name == "sessionid" for cookie in self.jar)


def went_out(data: dict[str, str], rng: random.Random) -> dict[str, str]:
    """A clean went-out game (no warning, so the board offers its one-tap confirm): one seat went out, the
    others had opened and hold 3–45 points, no joker."""
    seats = sorted(int(m.group(1)) for key in data if (m := re.fullmatch(r"s(\d+)_registration", key)))
    if not seats:
        raise Disagreement("the entry page has no seats to fill in")
    winner = rng.choice(seats)
    data.update({"end": "went_out", "went_out": str(winner), "action": "submit"})
    for seat in seats:
        data[f"s{seat}_opened"] = "yes"
        if seat != winner:
            data[f"s{seat}_rack_value"] = str(rng.randint(3, 45))
            data[f"s{seat}_jokers"] = "0"
    return data


# ---------------------------------------------------------------- the servers

@dataclass
class Server:
    name: str
    port: int
    process: subprocess.Popen
    log: Path

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


def server_environment(database_url: str, redis_url: str) -> dict[str, str]:
    return {**os.environ, "DJANGO_SETTINGS_MODULE": SETTINGS, "DATABASE_URL": database_url, "REDIS_URL": redis_url,
            "REGISTRATION_RATE": f"{RATE_LIMIT}/h", "PYTHONUNBUFFERED": "1"}


def start_server(name: str, env: dict, out: Path, workers: int) -> Server:
    port = free_port()
    log = out / f"server-{name}.log"
    process = start_gunicorn(env, port, workers=workers, log=log, extra=[
        "--timeout", "60", "--access-logfile", "-", "--error-logfile", "-",
        "--access-logformat", '%(h)s %(t)s "%(r)s" %(s)s %(b)s %(M)sms'])
    return Server(name, port, process, log)


def wait_until_up(server: Server, path: str, seconds: float = 60, host: str | None = None) -> None:
    try:
        bench_servers.wait_until_up(server.url(path), seconds, server.process, host=host or HOST)
    except RuntimeError as error:
        raise RuntimeError(f"server {server.name}: {error}:\n{server.log.read_text()}") from None


def stop(server: Server | None, seconds: float = 20) -> None:
    if server is not None:
        bench_servers.stop(server.process, seconds)


def flush_redis(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()


# ---------------------------------------------------------------- the checks

CSRF_TOKENS = re.compile(rb'(name="csrfmiddlewaretoken" value="|<meta name="csrf-token" content=")[^"]*"')


def comparable(reply: Reply) -> bytes:
    """The body without its CSRF tokens (Django masks the token anew in every response, against BREACH)."""
    return CSRF_TOKENS.sub(rb'\1(token)"', reply.body)


@dataclass
class Scenario:
    a: Server
    b: Server
    plan: dict
    say: Callable[[str], None] = print
    games: int = GAMES
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    checks: int = 0
    steps: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.phone = Browser("phone")
        self.chief = Browser("chief referee")
        self.referee = Browser("referees")
        self.visitor = Browser("visitor")
        festival, event = self.plan["festival"], self.plan["event"]
        self.base = f"/f/{festival}/{event}/"
        self.api = f"/api/events/{festival}/{event}/"
        self.board = f"/manage/{festival}/{event}/board/"
        first, last = self.plan["players"][0], self.plan["players"][-1]
        self.public = [  # (path, htmx fragment?, a full page with CSRF tokens?)
            (self.base + "standings/", False, True), (self.base + "standings/live/", True, False),
            (self.base + "standings/1/", False, True), (self.base + "standings/1/live/", True, False),
            (self.base + f"player/{first}/", False, True), (self.base + f"player/{first}/live/", True, False),
            (self.base + f"player/{last}/live/", True, False),
            (self.api, False, False), (self.api + "standings/", False, False), (self.api + f"players/{first}/", False, False),
        ]

    def other(self, server: Server) -> Server:
        return self.b if server is self.a else self.a

    def expect(self, condition: bool, message: str) -> None:
        self.checks += 1
        if not condition:
            raise Disagreement(message)

    def log(self, line: str) -> None:
        self.steps.append(line)
        self.say(line)

    # -- both servers show the same event

    def agree(self) -> dict[str, str]:
        """Every public address answered alike by A and B; returns the ETags."""
        etags = {}
        for path, fragment, full_page in self.public:
            headers = {"HX-Request": "true"} if fragment else {}
            ra, rb = (self.phone.request(s, path, headers=headers) for s in (self.a, self.b))
            self.expect(ra.status == rb.status == 200, f"{path}: A {ra.status}, B {rb.status}")
            self.expect(bool(ra.etag) and ra.etag == rb.etag, f"{path}: ETag A {ra.etag!r} ≠ B {rb.etag!r}")
            same = comparable(ra) == comparable(rb) if full_page else ra.body == rb.body
            self.expect(same, f"{path}: the bodies differ between A and B")
            for server, etag in ((self.b, ra.etag), (self.a, rb.etag)):  # each accepts the other's ETag
                again = self.phone.request(server, path, headers={**headers, "If-None-Match": etag})
                self.expect(again.status == 304, f"{path}: {server.name} answered {again.status} to the other's ETag")
            etags[path] = ra.etag
        return etags

    # -- people

    def sign_in_chief(self, server: Server) -> None:
        login = "/accounts/login/?" + urllib.parse.urlencode({"next": self.board})
        page = self.chief.request(server, login)
        self.expect(page.status == 200, f"login page on {server.name}: {page.status}")
        reply = self.chief.request(server, login, {
            "username": self.plan["chief"]["username"], "password": self.plan["chief"]["password"],
            "csrfmiddlewaretoken": self.chief.csrf(), "next": self.board})
        self.expect(reply.status == 302 and self.chief.has_session(),
                    f"signing in on {server.name}: {reply.status} {reply.text[:200]!r}")
        board = self.chief.request(self.other(server), self.board)
        self.expect(board.status == 200 and 'id="board"' in board.text,
                    f"the session made on {server.name} did not open the board on {self.other(server).name}: "
                    f"{board.status} {board.headers.get('location', '')}")
        self.log(f"chief referee signed in on {server.name}; the same session opened the board on "
                 f"{self.other(server).name} ({board.status})")

    def submit(self, server: Server, table: dict, game: int) -> None:
        game_url = f"/t/{table['token']}/stage-1/game/{game}/"  # round 1
        page = self.referee.request(server, game_url)
        self.expect(page.status == 200, f"entry page {game_url} on {server.name}: {page.status}")
        forms = PageForms(page.text).matching(re.escape(game_url) + "$")
        self.expect(bool(forms), f"no score-sheet form on {game_url}")
        reply = self.referee.request(server, game_url, went_out(browser_data(forms[0]), self.rng))
        location = urllib.parse.urlsplit(reply.headers.get("location", "")).path
        self.expect(reply.status == 302 and location == f"/t/{table['token']}/",
                    f"submitting table {table['number']} game {game} on {server.name}: {reply.status} "
                    f"{location or reply.text[:300]!r}")

    def confirm(self, server: Server, table: dict, game: int) -> None:
        stage = self.plan["stage"]
        board = self.chief.request(server, f"{self.board}?stage={stage}&game={game}", headers={"HX-Request": "true"})
        self.expect(board.status == 200, f"board on {server.name}: {board.status}")
        forms = PageForms(board.text).matching(r"/quick-confirm/$")
        self.expect(len(forms) == 1, f"board on {server.name}: {len(forms)} sheets to confirm, expected table "
                                     f"{table['number']}'s only")
        reply = self.chief.request(server, forms[0]["action"], browser_data(forms[0]),
                                   headers={"HX-Request": "true", "X-CSRFToken": self.chief.csrf()})
        self.expect(reply.status == 200 and "alert-danger" not in reply.text,
                    f"confirming table {table['number']} game {game} on {server.name}: {reply.status}")

    def rate_limit(self) -> None:
        path = self.base + "register/"
        self.expect(self.visitor.request(self.a, path).status == 200, "registration page")
        answers = []
        for n in range(RATE_LIMIT + 2):
            server = self.a if n % 2 == 0 else self.b
            reply = self.visitor.request(server, path, {"csrfmiddlewaretoken": self.visitor.csrf(), "name": ""})
            answers.append(f"{server.name} {reply.status}")
            expected = 200 if n < RATE_LIMIT else 429
            self.expect(reply.status == expected, f"registration post {n + 1} on {server.name}: {reply.status}, "
                                                  f"expected {expected} (limit {RATE_LIMIT} for both servers)")
        self.log(f"registration rate limit ({RATE_LIMIT}/h, one counter in Redis): posts answered "
                 f"{', '.join(answers)}")

    # -- the run

    def run(self) -> None:
        etags = self.agree()
        self.log(f"before any sheet: {len(self.public)} public addresses agree on A and B")
        self.sign_in_chief(self.a)
        servers = (self.a, self.b)
        changed_cards: set[str] = set()
        for game in range(1, self.games + 1):
            for index, table in enumerate(self.plan["tables"]):
                via = servers[(index + game) % 2]
                self.submit(via, table, game)
                after_submit = self.agree()
                self.expect(after_submit == etags, "a submitted (unconfirmed) sheet changed a public ETag")
                self.confirm(self.other(via), table, game)
                confirmed = self.agree()
                # Pages carry the event's version in their ETag; the API's ETag is its body's hash, and the
                # event summary and a player's games change only at some confirmations, as does a player's live
                # fragment (its ETag is what it shows: public/card.py).
                cards = {path for path in confirmed if "/player/" in path and path.endswith("/live/")}
                changed_cards |= {path for path in cards if confirmed[path] != etags[path]}
                must_change = ({path for path in confirmed if not path.startswith(self.api)} - cards
                               | {self.api + "standings/"})
                kept = {path for path in must_change if confirmed[path] == etags[path]}
                self.expect(not kept, f"after a confirmation these kept their ETag: {kept}")
                standings = json.loads(self.phone.request(self.b, self.api + "standings/").body)
                played = sum(row["games"] for row in standings["standings"])
                expected = 4 * ((game - 1) * len(self.plan["tables"]) + index + 1)
                self.expect(played == expected, f"standings count {played} games played, expected {expected}")
                etags = confirmed
                self.log(f"game {game}, table {table['number']}: submitted via {via.name}, confirmed via "
                         f"{self.other(via).name}; public ETags unchanged after the submit, new after the "
                         f"confirmation, equal on A and B ({played} player-games in the standings)")
        fragments = {path for path, _fragment, _page in self.public if "/player/" in path and path.endswith("/live/")}
        self.expect(changed_cards == fragments, f"these player fragments never changed: {fragments - changed_cards}")
        self.rate_limit()


# ---------------------------------------------------------------- running it

def prepare(database_url: str, players: int, out: Path) -> dict:
    """Migrate the fresh database and build the event (loadtest.prepare, in its own process)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": SETTINGS, "DATABASE_URL": database_url}
    plan_path = out / "plan.json"
    with (out / "setup.log").open("w") as log:
        for command in (["manage.py", "migrate", "--noinput"],
                        ["-m", "loadtest.prepare", "--players", str(players), "--out", str(plan_path)]):
            subprocess.run([str(BIN / "python"), *command], env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                           check=True)
    return json.loads(plan_path.read_text())


def run_servers(database_url: str, redis_url: str, plan: dict, out: Path, workers: int = 2, games: int = GAMES,
                say=print) -> Scenario:
    """Start A and B on the prepared database, run the scenario, stop both. Raises Disagreement on failure."""
    flush_redis(redis_url)
    env = server_environment(database_url, redis_url)
    a = b = None
    try:
        a = start_server("A", env, out, workers)
        b = start_server("B", env, out, workers)
        for server in (a, b):
            wait_until_up(server, f"/f/{plan['festival']}/{plan['event']}/standings/")
        say(f"server A: 127.0.0.1:{a.port}, server B: 127.0.0.1:{b.port} ({workers} workers each), "
            f"database {urllib.parse.urlsplit(database_url).path.lstrip('/')}, cache {redis_url}")
        scenario = Scenario(a, b, plan, say=say, games=games)
        scenario.run()
        return scenario
    finally:
        stop(a)
        stop(b)
        flush_redis(redis_url)


def log_problems(out: Path) -> list[str]:
    """5xx answers and tracebacks in the servers' logs (the checks see only what the clients got)."""
    problems = []
    for log in sorted(out.glob("server-*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if "Traceback" in line or re.search(r'" 5\d\d \d', line):
                problems.append(f"{log.name}: {line}")
    return problems


def fresh_postgres(base: str, name: str) -> str:
    import psycopg

    parts = urllib.parse.urlsplit(base)
    with psycopg.connect(urllib.parse.urlunsplit(parts._replace(path="/postgres")), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
    return urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis-url", default=os.environ.get("TWO_SERVERS_REDIS_URL", REDIS_URL),
                        help=f"the shared cache; its database is flushed (default {REDIS_URL})")
    parser.add_argument("--pg-name", default=PG_NAME, help=f"PostgreSQL database made anew (default {PG_NAME})")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers per server (default 2)")
    parser.add_argument("--out", type=Path, help="logs folder (default: a new one under /tmp)")
    args = parser.parse_args(argv)
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith(("postgres://", "postgresql://")):
        parser.error("set DATABASE_URL=postgres://user@host:port/any: the servers share one PostgreSQL database")
    out = args.out or Path(f"/tmp/rk-two-servers-{dt.datetime.now():%Y%m%d-%H%M%S}")
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    url = fresh_postgres(base, args.pg_name)
    plan = prepare(url, PLAYERS, out)
    print(f"prepared: {PLAYERS} players at {len(plan['tables'])} tables, {plan['event']} "
          f"({time.monotonic() - started:.0f} s)", flush=True)
    try:
        scenario = run_servers(url, args.redis_url, plan, out, args.workers,
                               say=lambda line: print(line, flush=True))
    except Disagreement as failure:
        print(f"FAILED: {failure}\nServer logs: {out}", flush=True)
        return 1
    problems = log_problems(out)
    if problems:
        print("FAILED: the servers logged errors:\n" + "\n".join(problems[:20]), flush=True)
        return 1
    requests = {}
    for browser in (scenario.phone, scenario.chief, scenario.referee, scenario.visitor):
        for name, count in browser.requests.items():
            requests[name] = requests.get(name, 0) + count
    summary = (f"All {scenario.checks} checks held in {time.monotonic() - started:.0f} s; requests: "
               f"A {requests.get('A', 0)}, B {requests.get('B', 0)}. Logs: {out}")
    (out / "summary.md").write_text("\n".join(f"- {line}" for line in scenario.steps) + f"\n\n{summary}\n")
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
