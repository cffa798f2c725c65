"""Every export of three simulated events, written to a folder, to compare two versions of the code byte for
byte (a redesign must not change what an organiser downloads, apart from what it means to change).

    python -m bench.export_files OUTDIR          # in one checkout, then in the other, then `diff -r`

A Busan event (32 players), a Hong Kong event (16) and a Word event (8), seed 7, in a fresh SQLite file: the
event's JSON and the standings and results CSV, in English. Timestamps (the moment of the run) are masked.
"""

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

STAMP = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?")
EVENTS = (("busan", "busan", 32, "classic"), ("hk", "hk", 16, "classic"), ("word", "hk", 8, "word"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    out = parser.parse_args().out
    os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/exports.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.development")
    sys.path.insert(0, os.getcwd())
    import django

    django.setup()
    from django.core.management import call_command
    from django.utils import translation

    from scoring.exports import event_json, table_file
    from scoring.simulation import simulate

    call_command("migrate", verbosity=0)
    translation.activate("en")
    out.mkdir(parents=True, exist_ok=True)
    for name, fmt, players, game in EVENTS:
        event = simulate(fmt, players, 7, game=game)
        files = {"event.json": event_json(event).encode()}
        files.update({f"{what}.csv": table_file(event, what, "csv") for what in ("standings", "results")})
        for file_name, content in files.items():
            (out / f"{name}-{file_name}").write_bytes(STAMP.sub(b"<time>", content))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
