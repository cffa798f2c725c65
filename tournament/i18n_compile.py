"""Compile locale/*/LC_MESSAGES/django.po to .mo without GNU gettext (pure Python, via polib).

The compiled .mo files are committed, so `make run` works on a machine that has only Python.
"""

from pathlib import Path

import polib

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"


def compile_all() -> list[Path]:
    written = []
    for po_path in sorted(LOCALE_DIR.glob("*/LC_MESSAGES/*.po")):
        mo_path = po_path.with_suffix(".mo")
        polib.pofile(str(po_path)).save_as_mofile(str(mo_path))
        written.append(mo_path)
    return written


if __name__ == "__main__":
    for path in compile_all():
        print(path.relative_to(LOCALE_DIR.parent))
