"""The servers the benchmarks and the load test start on loopback: Redis, gunicorn, Debian's nginx.

One place for how they are started (bench/http.py, loadtest/run.py, loadtest/two_servers.py, tests/served.py,
tests/test_nginx_cache.py), each on a free port of 127.0.0.1 and stopped by its own pid (`stop`), never by name.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
NGINX_CONF = ROOT / "deploy" / "nginx.conf"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stop(process: subprocess.Popen | None, seconds: float = 15) -> None:
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a redirect (to HTTPS, to the login page) is an answer: the server is up


def wait_until_up(url: str, seconds: float = 30, process: subprocess.Popen | None = None, *,
                  host: str | None = None) -> None:
    """Until `url` answers anything below 500 (a redirect or a 404 is an answer: the server is up), asked with
    `host` as the Host header when given."""
    deadline = time.monotonic() + seconds
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    opener = urllib.request.build_opener(_NoRedirect())
    while True:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server for {url} stopped (exit {process.returncode})")
        try:
            with opener.open(request, timeout=5):
                return
        except urllib.error.HTTPError as error:
            if error.code < 500:
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"nothing answered {url} within {seconds:.0f} s")
        time.sleep(0.2)


def nginx() -> str | None:
    return shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def start_redis() -> tuple[subprocess.Popen, str] | None:
    """A private Redis without persistence on a free port, and its URL; None when redis-server is absent."""
    if shutil.which("redis-server") is None:
        return None
    port = free_port()
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    return process, f"redis://127.0.0.1:{port}/0"


def start_gunicorn(env: dict, port: int, *, workers: int = 2, app: str = "config.wsgi:application",
                   extra: list[str] | None = None, log: Path | None = None) -> subprocess.Popen:
    """gunicorn with `workers` sync workers on 127.0.0.1:`port` (`extra`: log options and the like); its output
    goes to `log` when given."""
    output = log.open("w") if log is not None else subprocess.DEVNULL
    return subprocess.Popen(
        [str(BIN / "gunicorn"), app, "--workers", str(workers), "--bind", f"127.0.0.1:{port}", *(extra or [])],
        env=env, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT if log is not None else subprocess.DEVNULL)


def nginx_conf(prefix: Path, port: int, upstream: str, *, connections: int = 1024) -> Path:
    """deploy/nginx.conf inside a minimal main file, pointed at `upstream` and listening on loopback."""
    site = NGINX_CONF.read_text()
    site = re.sub(r"^resolver .*$", "", site, flags=re.M)  # Docker's DNS; here the address is fixed
    site = re.sub(r"server web:8000 resolve", f"server {upstream}", site)
    site = re.sub(r"listen 80;", f"listen 127.0.0.1:{port};", site)
    site = site.replace("/var/cache/nginx/rummikub", str(prefix / "cache"))
    site = site.replace("/var/run/nginx-rummikub-gzip.sock", str(prefix / "gzip.sock"))
    temp = "\n".join(f"    {name}_temp_path {prefix / name};" for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    # Started by root (a CI container), nginx's workers would run as nobody and could not use the cache folder
    # inside a private temporary directory; they stay the caller, as they do for anyone else.
    user = "user root;\n" if os.geteuid() == 0 else ""
    main = f"""{user}worker_processes auto;
worker_rlimit_nofile {2 * connections + 64};
pid {prefix / 'nginx.pid'};
error_log {prefix / 'error.log'} warn;
events {{ worker_connections {connections}; }}
http {{
    access_log off;
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
{temp}
{site}
}}
"""
    path = prefix / "nginx.conf"
    path.write_text(main)
    return path


def start_nginx(prefix: Path, port: int, upstream: str, *, connections: int = 1024) -> subprocess.Popen:
    """Debian's nginx in the foreground with deploy/nginx.conf, its files under `prefix` (made anew)."""
    shutil.rmtree(prefix, ignore_errors=True)
    prefix.mkdir(parents=True)
    conf = nginx_conf(prefix, port, upstream, connections=connections)
    process = subprocess.Popen([nginx() or "nginx", "-p", str(prefix), "-c", str(conf), "-g", "daemon off;"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until_up(f"http://127.0.0.1:{port}/", 15, process)
    return process
