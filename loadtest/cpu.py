"""Where the CPU goes during a load-test run (loadtest/run.py): a `ps`/`pidstat`-like sampler.

Every few seconds it reads the CPU time of each group of processes — each gunicorn worker on its own, the
gunicorn masters, nginx, wrk, locust, Redis, PostgreSQL — and the machine's busy time (`/proc/stat`), and at
the end gives per group the CPU-seconds used over the run and its share of the machine (cores × seconds), and
per interval the busiest moment. PostgreSQL is the whole server (its backends, writers, autovacuum), each
process sampled while it lives: the app's connections live through the run (CONN_MAX_AGE 60 s), a process
that ends between two samples loses its last interval (the postmaster's `children` times are not used: they
jump by the whole life of whatever it reaps, also of backends that ended before the run). Everything the run did not start (another helper's benchmark, the lead's tests) is "everything else": the
machine's busy time minus the groups.
"""

from __future__ import annotations

import os
import threading
import time

import psutil


def _own(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


def _tree(pid: int) -> dict[int, float]:
    """CPU seconds per process of the tree under `pid` (itself included)."""
    out: dict[int, float] = {}
    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return out
    for process in processes:
        try:
            out[process.pid] = _own(process)
        except psutil.NoSuchProcess:
            continue
    return out


def postmasters() -> list[int]:
    """PostgreSQL's server processes (a `postgres` whose parent is not one)."""
    found = []
    for process in psutil.process_iter(["name", "ppid"]):
        try:
            if process.info["name"] in ("postgres", "postmaster"):
                parent = psutil.Process(process.info["ppid"]).name() if process.info["ppid"] else ""
                if parent not in ("postgres", "postmaster"):
                    found.append(process.pid)
        except psutil.Error:
            continue
    return found


def busy_seconds() -> float:
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)


class Sampler(threading.Thread):
    """`groups()` is called at every sample: {group name: [root pids]}; a gunicorn master's workers are
    listed one by one ("worker <server>.<n>")."""

    def __init__(self, groups, gunicorns: dict[str, int], every: float = 2.0):
        super().__init__(daemon=True)
        self.groups, self.gunicorns, self.every = groups, gunicorns, every
        self.samples: list[tuple[float, float, dict[str, float], float]] = []  # (at, busy, per group, load)
        self._done = threading.Event()
        self._seen: dict[str, dict[int, float]] = {}  # group → pid → the most CPU seen (a process that ended)

    def sample(self) -> None:
        per: dict[str, float] = {}
        for name, pids in self.groups().items():
            seen = self._seen.setdefault(name, {})
            for pid in pids:
                for key, value in _tree(pid).items():
                    seen[key] = max(seen.get(key, 0.0), value)
            per[name] = sum(seen.values())
        for server, pid in self.gunicorns.items():
            try:
                workers = sorted(psutil.Process(pid).children(), key=lambda process: process.pid)
            except psutil.NoSuchProcess:
                continue
            for n, worker in enumerate(workers, 1):
                try:
                    per[f"worker {server}.{n}"] = _own(worker)
                except psutil.NoSuchProcess:
                    continue
        self.samples.append((time.monotonic(), busy_seconds(), per, os.getloadavg()[0]))

    def run(self) -> None:
        while not self._done.is_set():
            self.sample()
            self._done.wait(self.every)

    def halt(self) -> None:
        self._done.set()
        if self.is_alive():
            self.join(10)

    def finish(self) -> dict:
        self.halt()
        self.sample()
        return self.result()

    def result(self) -> dict:
        if len(self.samples) < 2:
            return {}
        (t0, busy0, first, _l0), (t1, busy1, last, _l1) = self.samples[0], self.samples[-1]
        seconds, cores = t1 - t0, os.cpu_count() or 1
        used = {name: last[name] - first.get(name, 0.0) for name in last}
        groups = {name: value for name, value in used.items() if not name.startswith("worker ")}
        busy = busy1 - busy0
        used["everything else"] = max(0.0, busy - sum(groups.values()))
        used["idle"] = max(0.0, seconds * cores - busy)
        peaks: dict[str, float] = {}  # per group, the busiest interval (cores used)
        for (ta, _ba, a, _la), (tb, _bb, b, _lb) in zip(self.samples, self.samples[1:], strict=False):
            for name in b:
                if name in a and tb > ta:
                    peaks[name] = max(peaks.get(name, 0.0), (b[name] - a[name]) / (tb - ta))
        return {"seconds": round(seconds, 1), "cores": cores, "busy": round(busy, 1),
                "used": {name: round(value, 1) for name, value in used.items()},
                "peak": {name: round(value, 2) for name, value in peaks.items()},
                "load": [round(sample[3], 2) for sample in self.samples]}


def table(result: dict) -> str:
    """Markdown: CPU-seconds per group over the run, its share of the machine, its busiest interval."""
    if not result:
        return "(no CPU samples)"
    capacity = result["seconds"] * result["cores"]
    lines = [f"| process ({result['cores']} cores × {result['seconds']:.0f} s = {capacity:.0f} CPU-s) | CPU-s | "
             "share of the machine | busiest interval (cores) |", "|---|---:|---:|---:|"]
    order = sorted(result["used"], key=lambda name: (name == "idle", name.startswith("worker "), -result["used"][name]))
    for name in order:
        value = result["used"][name]
        peak = result["peak"].get(name)
        lines.append(f"| {name} | {value:.1f} | {100 * value / capacity:.0f} % | {'' if peak is None else f'{peak:.2f}'} |")
    return "\n".join(lines)
