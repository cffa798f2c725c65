"""Run the load test end to end, bounded in time: `python -m loadtest.run` (see loadtest/README.md).

For each database — SQLite always, PostgreSQL when DATABASE_URL names one (the test uses its own database,
`rk_loadtest` by default, dropped and created anew) — it:

1. migrates a fresh database and builds the event (`loadtest.prepare`: Busan round 1, 128 tables);
2. starts Redis as the shared cache (as docker-compose.yml; `--no-redis`: per-process memory), gunicorn with
   2 sync workers on 127.0.0.1 and a free port (`config.settings.loadtest`: development settings with DEBUG
   off), with `--through-nginx` Debian's nginx in front with deploy/nginx.conf (micro-cache on), and warms
   both workers up;
3. runs locust headless for `--run-time` (500 phones polling every 3 s, 128 referees, 1 chief referee;
   loadtest/locustfile.py), writing locust's CSV statistics; with `--wrk-phones N`, N of the phones are
   wrk connections instead (loadtest/pollers.py), for more phones than locust can pace on 2 cores;
4. stops the servers, counts what the server stored (sheets submitted and confirmed, each sheet once), its
   5xx answers and the tracebacks in its log, and how soon each confirmation showed on the phones
   (loadtest/freshness.py);
5. writes `summary.md` (a Markdown table per database: requests/s, median, p95, p99, max, errors per request
   type and overall) into the output folder.

Every process it starts is stopped by its own pid, also on Ctrl-C or an error. Exit status 0 when every
database met the target (no errors, p99 < 300 ms, every sheet stored once, freshness p95 < 5 s), 1 otherwise.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bench.servers import free_port, nginx, start_gunicorn, start_nginx, start_redis, stop
from loadtest import freshness, pollers

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SETTINGS = "config.settings.loadtest"
PG_NAME = "rk_loadtest"
TARGET_P99_MS = 300
TARGET_FRESH_S = 5.0  # p95, from the chief's tap to a phone's poll showing it
WORKERS = 2
# gunicorn's usual access log plus the time the worker spent on the request (ms), to see where it goes.
ACCESS_FORMAT = '%(h)s %(t)s "%(r)s" %(s)s %(b)s %(M)sms'


def run(cmd: list[str], env: dict, log: Path) -> None:
    with log.open("a") as out:
        subprocess.run(cmd, env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, check=True)


def postgres_url(base: str, name: str) -> str:
    """`base` with the database name replaced by ours; the database is dropped and created anew."""
    import psycopg

    parts = urlsplit(base)
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(parts._replace(path=f"/{name}"))


def wait_until_up(url: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"gunicorn did not answer {url} within {seconds:.0f} s")
        time.sleep(0.3)


def warm_up(host: str, plan: dict) -> None:
    """Both workers import everything and compile the templates before the clock starts, as in production."""
    base = f"{host}/f/{plan['festival']}/{plan['event']}/"
    token = plan["tables"][0]["token"]
    for _ in range(4):
        for path in ("standings/", "standings/live/", f"player/{plan['players'][0]}/", f"player/{plan['players'][0]}/live/"):
            urllib.request.urlopen(base + path, timeout=30).read()
        urllib.request.urlopen(f"{host}/t/{token}/", timeout=30).read()
        urllib.request.urlopen(f"{host}/t/{token}/stage-1/game/1/", timeout=30).read()


def cpu_seconds(pid: int) -> float:
    """CPU time used so far by a process and its children (the gunicorn workers)."""
    import psutil

    try:
        parent = psutil.Process(pid)
        processes = [parent, *parent.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def reap(process: subprocess.Popen, seconds: float) -> float:
    """Wait for a child (at most `seconds`, then stop it) and return the CPU time it used."""
    deadline = time.monotonic() + seconds
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return usage.ru_utime + usage.ru_stime
        if time.monotonic() > deadline:
            stop(process)
            return float("nan")
        time.sleep(0.2)


def read_stats(path: Path) -> list[dict]:
    with path.open(newline="") as source:
        return list(csv.DictReader(source))


ACCESS_LINE = re.compile(r'"(\w+) (\S+) HTTP/[\d.]+" (\d{3}) \S+ (\d+)ms$')
KINDS = (  # what each address is, for the server-side view
    ("standings live", r"/standings/(\d+/)?live/$"), ("standings page", r"/standings/(\d+/)?$"),
    ("player live", r"/player/\d+/live/$"), ("player page", r"/player/\d+/$"),
    ("referee live check", r"^/t/[^/]+/stage-\d+/game/\d+/preview/$"), ("referee game", r"^/t/[^/]+/stage-\d+/game/\d+/$"),
    ("referee table page", r"^/t/[^/]+/$"), ("board quick confirm", r"/quick-confirm/$"), ("board", r"/board/"),
    ("login", r"^/accounts/login/"),
)


def server_side(access_log: Path) -> list[dict]:
    """Per kind of request, from gunicorn's access log: count, 304s, 5xx, worker time (median, p99, total)."""
    kinds: dict[str, dict] = {}
    if not access_log.exists():
        return []
    for line in access_log.open(errors="replace"):
        match = ACCESS_LINE.search(line.rstrip())
        if not match:
            continue
        method, url, status, ms = match.group(1), urlsplit(match.group(2)).path, match.group(3), int(match.group(4))
        kind = next((name for name, pattern in KINDS if re.search(pattern, url)), "other")
        entry = kinds.setdefault(f"{method} {kind}", {"name": f"{method} {kind}", "times": [], "304": 0, "5xx": 0})
        entry["times"].append(ms)
        entry["304"] += status == "304"
        entry["5xx"] += status.startswith("5")
    out = []
    for entry in kinds.values():
        times = sorted(entry.pop("times"))
        out.append({**entry, "count": len(times), "median": times[len(times) // 2],
                    "p99": times[min(len(times) - 1, int(len(times) * 0.99))], "seconds": sum(times) / 1000})
    return sorted(out, key=lambda entry: -entry["seconds"])


def server_table(rows: list[dict]) -> str:
    total = sum(row["seconds"] for row in rows) or 1
    lines = ["| request (server side) | answered | 304 | 5xx | median ms | p99 ms | worker-seconds | share |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {row['name']} | {row['count']} | {row['304']} | {row['5xx']} | {row['median']} | {row['p99']} | "
              f"{row['seconds']:.1f} | {100 * row['seconds'] / total:.0f} % |" for row in rows]
    return "\n".join(lines)


def one_database(label: str, url: str, args, out: Path) -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": SETTINGS, "DATABASE_URL": url, "PYTHONUNBUFFERED": "1"}
    env.pop("REDIS_URL", None)
    redis = None if args.no_redis else start_redis()
    if redis:
        env["REDIS_URL"] = redis[1]
    log = out / f"{label}-setup.log"
    plan_path = out / f"{label}-plan.json"
    started = time.monotonic()
    run([str(BIN / "python"), "manage.py", "migrate", "--noinput"], env, log)
    run([str(BIN / "python"), "-m", "loadtest.prepare", "--out", str(plan_path)], env, log)
    plan = json.loads(plan_path.read_text())
    port = free_port()
    origin = host = f"http://127.0.0.1:{port}"
    gunicorn = locust = wrk = None
    servers: list[subprocess.Popen] = []
    locust_phones = args.phones - args.wrk_phones
    try:
        gunicorn = start_gunicorn(env, port, workers=WORKERS, extra=[
            "--timeout", "90", "--access-logfile", str(out / f"{label}-access.log"),
            "--access-logformat", ACCESS_FORMAT, "--error-logfile", str(out / f"{label}-gunicorn.log")])
        servers.append(gunicorn)
        wait_until_up(f"{host}/f/{plan['festival']}/{plan['event']}/standings/")
        if args.through_nginx:
            proxy = free_port()
            servers.append(start_nginx(out / f"{label}-nginx", proxy, f"127.0.0.1:{port}",
                                       connections=4 * (args.phones + args.referees) + 1024))
            host = f"http://127.0.0.1:{proxy}"
        warm_up(host, plan)
        (out / f"{label}-access.log").write_text("")  # count only the run's requests
        cpu_before, load_before = cpu_seconds(gunicorn.pid), os.getloadavg()[0]
        nginx_before = sum(cpu_seconds(process.pid) for process in servers[1:])
        users = locust_phones + args.referees + 1
        command = [str(BIN / "locust"), "-f", str(ROOT / "loadtest" / "locustfile.py"), "--headless",
                   "--plan", str(plan_path), "--host", host, "--users", str(users), "--spawn-rate", str(args.spawn_rate),
                   "--phones", str(locust_phones), "--referees", str(args.referees), "--run-time", args.run_time,
                   "--poll-seconds", str(args.poll_seconds), "--origin", origin,
                   "--freshness", str(out / f"{label}-freshness.json"),
                   "--stop-timeout", "10", "--csv", str(out / label), "--only-summary"]
        print(f"[{label}] {' '.join(command)}", flush=True)
        if args.wrk_phones:
            wrk = pollers.start(host, plan, phones=args.wrk_phones, poll_seconds=args.poll_seconds, share=0.6,
                                seconds=parse_seconds(args.run_time), log=out / f"{label}-wrk.log")
        with (out / f"{label}-locust.log").open("w") as locust_log:
            locust = subprocess.Popen(command, env=env, cwd=ROOT, stdout=locust_log, stderr=subprocess.STDOUT)
            locust_cpu = reap(locust, parse_seconds(args.run_time) + 120)
        wrk_cpu = reap(wrk, 60) if wrk is not None else None
        cpu_used, load_after = cpu_seconds(gunicorn.pid) - cpu_before, os.getloadavg()[0]
        nginx_cpu = sum(cpu_seconds(process.pid) for process in servers[1:]) - nginx_before
    finally:
        stop(locust)
        stop(wrk)
        for process in reversed(servers):
            stop(process)
        if redis:
            stop(redis[0])
    stored = json.loads(subprocess.run(
        [str(BIN / "python"), "-m", "loadtest.prepare", "--report", str(plan_path)],
        env=env, cwd=ROOT, capture_output=True, text=True, check=True).stdout)
    tracebacks = (out / f"{label}-gunicorn.log").read_text(errors="replace").count("Traceback")
    fresh_path = out / f"{label}-freshness.json"
    fresh = freshness.delays(freshness.Record.load(fresh_path)) if fresh_path.exists() else None
    return {
        "expected": min(args.referees, len(plan["tables"])) * plan["games"], "freshness": fresh, "wrk": pollers.read(out / f"{label}-wrk.log") if args.wrk_phones else None,
        "nginx_cpu_s": round(nginx_cpu, 1) if args.through_nginx else None, "redis": bool(redis),
        "label": label, "stats": read_stats(out / f"{label}_stats.csv"), "stored": stored,
        "server": server_side(out / f"{label}-access.log"), "tracebacks": tracebacks,
        "gunicorn_cpu_s": round(cpu_used, 1), "locust_cpu_s": round(locust_cpu, 1),
        "wrk_cpu_s": round(wrk_cpu, 1) if wrk_cpu is not None else None, "load": (round(load_before, 1), round(load_after, 1)),
        "locust_exit": locust.returncode if locust else None, "seconds": round(time.monotonic() - started),
    }


def parse_seconds(text: str) -> int:
    match = re.fullmatch(r"(?:(\d+)m)?(?:(\d+)s)?", text.strip())
    if not match or not any(match.groups()):
        raise argparse.ArgumentTypeError(f"run time like 90s or 1m30s, not {text!r}")
    return int(match.group(1) or 0) * 60 + int(match.group(2) or 0)


def _ms(value: str) -> str:
    return f"{float(value):.0f}" if value not in ("", "N/A") else "–"


def table(result: dict) -> str:
    """Markdown: one line per request type, then the whole run."""
    lines = ["| request | requests | req/s | median ms | p95 ms | p99 ms | max ms | errors |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    rows = sorted(result["stats"], key=lambda row: (row["Name"] == "Aggregated", row["Name"]))
    for row in rows:
        name = "**all**" if row["Name"] == "Aggregated" else f"{row['Type']} {row['Name']}"
        lines.append(f"| {name} | {row['Request Count']} | {float(row['Requests/s']):.1f} | {_ms(row['50%'])} | "
                     f"{_ms(row['95%'])} | {_ms(row['99%'])} | {_ms(row['Max Response Time'])} | {row['Failure Count']} |")
    return "\n".join(lines)


def server_5xx(result: dict) -> int:
    return sum(row["5xx"] for row in result["server"])


def stored_once(result: dict) -> bool:
    stored = result["stored"]
    return (stored["stored_twice"] == 0
            and stored["submitted"] + stored["confirmed"] == stored["games_with_sheets"] == result["expected"])


def fresh_p95(result: dict) -> float:
    fresh = result["freshness"]
    return freshness.percentile(fresh["phone"], 0.95) if fresh and fresh["phone"] else float("nan")


def verdict(result: dict) -> tuple[bool, str]:
    overall = next(row for row in result["stats"] if row["Name"] == "Aggregated")
    errors = int(overall["Failure Count"])
    p99 = float(overall["99%"])
    wrk = result["wrk"]
    if wrk is not None:
        errors += wrk.get("non_2xx", 1) + wrk.get("socket_errors", 1)
        p99 = max(p99, wrk.get("p99", float("inf")))
    fresh = fresh_p95(result)
    met = (errors == 0 and p99 < TARGET_P99_MS and server_5xx(result) == 0 and stored_once(result)
           and fresh < TARGET_FRESH_S)
    return met, (f"{'met' if met else 'MISSED'}: {errors} errors, p99 {p99:.0f} ms overall, "
                 f"{'every sheet stored once' if stored_once(result) else 'sheets MISSING or stored twice'}, "
                 f"freshness p95 {fresh:.2f} s (target: no errors, p99 < {TARGET_P99_MS} ms, every sheet once, "
                 f"freshness p95 < {TARGET_FRESH_S:.0f} s)")


def wrk_line(wrk: dict) -> str:
    if "failed" in wrk:
        return f"- wrk phones: no summary (see the wrk log): {wrk['failed'][-300:]!r}"
    return (f"- wrk phones: {wrk['requests']:,} polls, {wrk['rps']:.1f} req/s, p50 {wrk['p50']:.1f} ms, p90 "
            f"{wrk['p90']:.1f} ms, p99 {wrk['p99']:.1f} ms, max {wrk['max']:.0f} ms; {wrk['non_2xx']} answers not 2xx/3xx, "
            f"{wrk['socket_errors']} socket errors{' (' + wrk['socket_detail'] + ')' if wrk['socket_errors'] else ''}.")


def summary(results: list[dict], args, command: str) -> str:
    phones = (f"{args.phones} phones ({args.phones - args.wrk_phones} locust, {args.wrk_phones} wrk)" if args.wrk_phones
              else f"{args.phones} phones")
    out = [f"Load test {dt.date.today().isoformat()}: `{command}` — {phones} polling every {args.poll_seconds:g} s, "
           f"{args.referees} referees, 1 chief referee, {args.run_time}, gunicorn {WORKERS} sync workers"
           f"{', behind nginx (deploy/nginx.conf, micro-cache)' if args.through_nginx else ''}, "
           f"cache: {'Redis' if results and results[0]['redis'] else 'per-process memory'}, {os.cpu_count()} CPU cores.", ""]
    for result in results:
        met, text = verdict(result)
        stored = result["stored"]
        out += [f"### {result['label']}", "", table(result), "", server_table(result["server"]), "",
                f"- Target {text}.",
                f"- Server: {server_5xx(result)} answers 5xx in the access log, {result['tracebacks']} tracebacks; "
                f"the 2 workers used {result['gunicorn_cpu_s']} CPU-seconds, locust {result['locust_cpu_s']}"
                f"{', wrk ' + str(result['wrk_cpu_s']) if result['wrk_cpu_s'] is not None else ''}; load average "
                f"{result['load'][0]} before, {result['load'][1]} after.",
                f"- Stored: {stored['submitted'] + stored['confirmed']} of {result['expected']} sheets sent "
                f"({stored['confirmed']} confirmed, {stored['submitted']} waiting, {stored['returned']} returned); "
                f"{stored.get('stored_twice', '?')} games hold two sheets.",
                f"- Freshness (chief's tap → phone's poll showing it): "
                f"{freshness.summary(result['freshness']) if result['freshness'] else 'not measured'}."]
        if result["wrk"] is not None:
            out.append(wrk_line(result["wrk"]))
        if result["nginx_cpu_s"] is not None:
            out.append(f"- nginx used {result['nginx_cpu_s']} CPU-seconds.")
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-time", default="120s", help="locust's run time per database (default 120s)")
    parser.add_argument("--phones", type=int, default=500)
    parser.add_argument("--referees", type=int, default=128)
    parser.add_argument("--spawn-rate", type=float, default=60, help="users started per second")
    parser.add_argument("--poll-seconds", type=float, default=3.0, help="the phones' poll interval (the pages': 3)")
    parser.add_argument("--wrk-phones", type=int, default=0,
                        help="how many of --phones wrk generates instead of locust (needs Debian's wrk)")
    parser.add_argument("--through-nginx", action="store_true",
                        help="everything through Debian's nginx with deploy/nginx.conf (micro-cache on)")
    parser.add_argument("--no-redis", action="store_true", help="per-process memory cache instead of Redis")
    parser.add_argument("--only", choices=("sqlite", "postgres"), help="one database only")
    parser.add_argument("--out", type=Path, help="results folder (default: a new one under /tmp)")
    parser.add_argument("--pg-name", default=PG_NAME, help=f"PostgreSQL database to use (default {PG_NAME})")
    args = parser.parse_args(argv)
    parse_seconds(args.run_time)
    if not (BIN / "locust").exists():
        parser.error(f"locust is not installed in {BIN.parent}: {BIN / 'pip'} install locust")
    if not 0 <= args.wrk_phones < args.phones:
        parser.error("--wrk-phones: from 0 to fewer than --phones (some locust phones measure freshness)")
    if args.wrk_phones and not pollers.available():
        parser.error("--wrk-phones needs wrk: apt-get install wrk")
    if args.through_nginx and not nginx():
        parser.error("--through-nginx needs nginx: apt-get install nginx")
    out = args.out or Path(f"/tmp/rk-loadtest-{dt.datetime.now():%Y%m%d-%H%M%S}")
    out.mkdir(parents=True, exist_ok=True)
    databases = []
    if args.only != "postgres":
        sqlite_file = out / "loadtest.sqlite3"
        for leftover in out.glob("loadtest.sqlite3*"):
            leftover.unlink()
        databases.append(("sqlite", f"sqlite:///{sqlite_file}"))
    base = os.environ.get("DATABASE_URL", "")
    if args.only != "sqlite":
        if base.startswith(("postgres://", "postgresql://")):
            databases.append(("postgres", postgres_url(base, args.pg_name)))
        else:
            print("PostgreSQL skipped: set DATABASE_URL=postgres://user@host:port/any to include it", flush=True)
    command = "python -m loadtest.run " + " ".join(argv if argv is not None else sys.argv[1:])
    results = []
    for label, url in databases:
        print(f"[{label}] preparing …", flush=True)
        results.append(one_database(label, url, args, out))
        print(f"[{label}] {verdict(results[-1])[1]} ({results[-1]['seconds']} s)", flush=True)
    text = summary(results, args, command.strip())
    (out / "summary.md").write_text(text + "\n")
    print(text)
    print(f"Results, logs and locust's CSV files: {out}")
    return 0 if results and all(verdict(result)[0] for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
