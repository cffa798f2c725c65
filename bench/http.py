"""HTTP throughput of the public pages beside bare Django, straight to gunicorn and behind nginx.

    python -m bench.http                     # ~3 minutes; prints Markdown tables (docs/PERFORMANCE.md)
    python -m bench.http --seconds 5         # shorter wrk runs
    python -m bench.http --no-nginx          # gunicorn only
    python -m bench.http --no-redis          # the per-process cache instead of a shared Redis
    python -m bench.http --without lane      # one of the public side's shortcuts taken out (not-modified,
                                             # direct, lane; comma-separated): what does it pay for?
    python -m bench.http --every-game        # the standings page of every game (standings/all/), as the
                                             # finished event's standings/ was before it led with the places

What runs, all on loopback and stopped by pid at the end (also on Ctrl-C or an error):

- a fresh SQLite database in a temporary folder, migrated, holding a 128-player Busan event played to the end
  (`scoring.simulation.simulate`, the data of bench/standings.py and bench/pages.py);
- Redis on a free port as the shared cache, as in docker-compose.yml (skipped when `redis-server` is absent);
- gunicorn with 2 sync workers and `config.settings.loadtest` (development settings with DEBUG off, as the
  load test), and a second gunicorn with 2 sync workers serving bench/floor.py: one "hello" view through
  CommonMiddleware only — the floor every other figure is a share of;
- wrk (Debian package `wrk`) with 2 threads and 50 connections, anonymous, English, accepting gzip as phones
  do, on each path in turn: the standings live fragment unchanged (If-None-Match → 304), the same fragment
  rendered (200), the full standings page and a player's page;
- then the same through Debian's nginx started with deploy/nginx.conf, adapted only where the deployment's
  machine differs (upstream address, listening port, cache folder, no Docker resolver).

wrk and the servers share the machine's cores, as in the issue's figures, so compare shares within a run,
not req/s across machines. On a machine other programs also load, the gunicorn CPU time per request (read
from /proc) is the steadier figure; the table gives both.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from bench.servers import free_port, nginx, start_gunicorn, start_nginx, start_redis, stop, wait_until_up

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
WORKERS = 2
THREADS, CONNECTIONS = 2, 50
HEADERS = {"Accept-Language": "en", "Accept-Encoding": "gzip"}
TARGETS = {"304": 40, "fragment": 30, "standings": 10, "player": 15}  # % of the floor (the targets)


def get(url: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, headers={**HEADERS, **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


# ---------------------------------------------------------------- data

def prepare(out: Path, players: int, seed: int) -> None:
    """In a child process with the bench's environment: the finished event, its addresses in `out`."""
    import django

    django.setup()
    from scoring.simulation import simulate

    event = simulate("busan", players, seed=seed)
    number = event.registrations.filter(number__isnull=False).order_by("number").values_list("number", flat=True)[7]
    out.write_text(json.dumps({"base": f"/f/{event.festival.slug}/{event.slug}/", "player": number}))


# ---------------------------------------------------------------- wrk

UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _ms(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return float(number) * UNITS[unit]


def wrk(url: str, seconds: int, headers: dict) -> dict:
    command = ["wrk", "-t", str(THREADS), "-c", str(CONNECTIONS), "-d", f"{seconds}s", "--latency"]
    for name, value in {**HEADERS, **headers}.items():
        command += ["-H", f"{name}: {value}"]
    output = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    percentiles = dict(re.findall(r"^\s+(50|99)%\s+(\S+)\s*$", output, re.M))
    if "50" not in percentiles:
        raise RuntimeError(f"wrk said:\n{output}")
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    socket_errors = re.search(r"Socket errors: (.*)$", output, re.M)
    return {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
            "p50": _ms(percentiles["50"]), "p99": _ms(percentiles["99"]),
            "errors": int(errors.group(1)) if errors else 0, "socket_errors": socket_errors.group(1) if socket_errors else ""}


TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """CPU time of a process and its children (gunicorn's workers), from /proc: a figure the other programs
    on a shared machine do not distort as much as req/s."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if stat.parent.name == str(pid) or fields[1] == str(pid):
            total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def drained(url: str, seconds: float = 60) -> None:
    """Wait until the workers have worked off the requests wrk left queued, so one run does not slow the next."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.monotonic()
        get(url)
        if time.monotonic() - started < 0.2:
            return
        time.sleep(0.5)


def measure(host: str, floor_host: str, plan: dict, seconds: int, servers: dict[str, int]) -> list[tuple[str, str, dict]]:
    """`servers`: the pid of the gunicorn that answers "floor" and "app" (its CPU time per request is counted)."""
    base = host + plan["base"]
    standings = plan.get("standings", "standings/")

    def run(url: str, headers: dict, server: str = "app") -> dict:
        drained(base + standings + "live/")
        before = cpu_seconds(servers[server])
        result = wrk(url, seconds, headers)
        requests = result["rps"] * seconds
        result["cpu_ms"] = 1000 * (cpu_seconds(servers[server]) - before) / requests if requests else float("nan")
        return result

    paths = [(standings + "live/", "fragment"), (standings, "standings"), (f"player/{plan['player']}/", "player")]
    for _ in range(3):  # every worker imports, compiles its templates and builds its snapshot first
        for path, _kind in paths:
            get(base + path)
        get(floor_host + "/hello/")
    status, headers, _body = get(base + standings + "live/")
    etag = headers.get("ETag")
    if status != 200 or not etag:
        raise RuntimeError(f"the standings fragment answered {status} without an ETag")
    if get(base + standings + "live/", {"If-None-Match": etag})[0] != 304:
        raise RuntimeError("the unchanged fragment did not answer 304")
    rows = [("bare Django hello (CommonMiddleware only)", "floor", run(floor_host + "/hello/", {}, "floor")),
            ("standings live fragment, unchanged → 304", "304", run(base + standings + "live/", {"If-None-Match": etag}))]
    labels = {"fragment": "standings live fragment → 200", "standings": "standings full page",
              "player": "player page"}
    rows += [(labels[kind], kind, run(base + path, {})) for path, kind in paths]
    return rows


def table(title: str, rows: list[tuple[str, str, dict]]) -> str:
    floor = rows[0][2]["rps"]
    floor_cpu = rows[0][2]["cpu_ms"]
    lines = [f"### {title}", "", "| path | req/s | p50 ms | p99 ms | share of the floor | gunicorn CPU ms/request | "
             "share of the floor by CPU | target | non-2xx/3xx |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for label, kind, result in rows:
        share = 100 * result["rps"] / floor
        cpu_share = 100 * floor_cpu / result["cpu_ms"] if result["cpu_ms"] else float("nan")
        target = f"≥ {TARGETS[kind]} %" if kind in TARGETS else ""
        lines.append(f"| {label} | {result['rps']:,.0f} | {result['p50']:.2f} | {result['p99']:.2f} | {share:.1f} % | "
                     f"{result['cpu_ms']:.2f} | {cpu_share:.0f} % | {target} | "
                     f"{result['errors']}{' ' + result['socket_errors'] if result['socket_errors'] else ''} |")
    return "\n".join(lines)


# ---------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=10, help="length of each wrk run")
    parser.add_argument("--players", type=int, default=128)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-nginx", action="store_true")
    parser.add_argument("--no-redis", action="store_true")
    parser.add_argument("--without", default="", help="shortcuts to take out: not-modified, direct, lane")
    parser.add_argument("--every-game", action="store_true", help="measure standings/all/ instead of standings/")
    parser.add_argument("--prepare", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.prepare:
        prepare(args.prepare, args.players, args.seed)
        return 0
    if shutil.which("wrk") is None:
        print("wrk is missing: apt-get install wrk", file=sys.stderr)
        return 2

    processes: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix="bench-http-") as tmp:
        tmp = Path(tmp)
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.loadtest", "PYTHONUNBUFFERED": "1",
               "DATABASE_URL": f"sqlite:///{tmp / 'bench.sqlite3'}"}
        env.pop("REDIS_URL", None)
        env["RUMMIKUB_BENCH_WITHOUT"] = args.without
        try:
            redis = None if args.no_redis else start_redis()
            if redis:
                processes.append(redis[0])
                env["REDIS_URL"] = redis[1]
            cache = "Redis" if "REDIS_URL" in env else "per-process memory"
            with (tmp / "setup.log").open("w") as log:
                subprocess.run([str(BIN / "python"), "manage.py", "migrate", "--noinput"], env=env, cwd=ROOT,
                               stdout=log, stderr=subprocess.STDOUT, check=True)
                subprocess.run([str(BIN / "python"), "-m", "bench.http", "--prepare", str(tmp / "plan.json"),
                                "--players", str(args.players), "--seed", str(args.seed)], env=env, cwd=ROOT,
                               stdout=log, stderr=subprocess.STDOUT, check=True)
            plan = json.loads((tmp / "plan.json").read_text())
            app_port, floor_port = free_port(), free_port()
            app_server = start_gunicorn(env, app_port, workers=WORKERS, extra=["--error-logfile", str(tmp / "gunicorn.log")])
            processes.append(app_server)
            floor_server = start_gunicorn({**os.environ, "DJANGO_SETTINGS_MODULE": "bench.floor"}, floor_port,
                                          workers=WORKERS, app="bench.floor:application")
            processes.append(floor_server)
            servers = {"app": app_server.pid, "floor": floor_server.pid}
            app, floor = f"http://127.0.0.1:{app_port}", f"http://127.0.0.1:{floor_port}"
            wait_until_up(app + plan["base"] + "standings/")
            wait_until_up(floor + "/hello/")
            print(f"{args.players}-player Busan event played to the end, SQLite, cache: {cache}; gunicorn "
                  f"{WORKERS} sync workers; wrk {THREADS} threads, {CONNECTIONS} connections, {args.seconds} s a path\n")
            if args.every_game:
                plan["standings"] = "standings/all/"
            without = f", without {args.without}" if args.without else ""
            print(table(f"gunicorn, no proxy{without}", measure(app, floor, plan, args.seconds, servers)), flush=True)
            if not args.no_nginx:
                if not nginx():
                    print("\nnginx is missing (apt-get install nginx): skipped the proxy run", file=sys.stderr)
                    return 0
                app_proxy, floor_proxy = free_port(), free_port()
                processes.append(start_nginx(tmp / "nginx-app", app_proxy, f"127.0.0.1:{app_port}"))
                processes.append(start_nginx(tmp / "nginx-floor", floor_proxy, f"127.0.0.1:{floor_port}"))
                rows = measure(f"http://127.0.0.1:{app_proxy}", f"http://127.0.0.1:{floor_proxy}", plan, args.seconds, servers)
                print("\n" + table("behind nginx (deploy/nginx.conf)", rows))
        finally:
            for process in reversed(processes):
                stop(process)
    return 0


if __name__ == "__main__":
    sys.exit(main())
