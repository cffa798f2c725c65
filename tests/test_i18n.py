"""The Korean and Traditional Chinese catalogues are complete, current and compiled (DESIGN.md conventions)."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = ["ko", "zh_Hant"]


def catalogue(root: Path, language: str) -> polib.POFile:
    return polib.pofile(str(root / "locale" / language / "LC_MESSAGES" / "django.po"))


def gaps(po: polib.POFile) -> list[str]:
    return [entry.msgid for entry in po if entry.msgid and (not entry.translated() or "fuzzy" in entry.flags)]


@pytest.mark.parametrize("language", LANGUAGES)
def test_catalogue_has_no_untranslated_or_fuzzy_entry(language):
    assert gaps(catalogue(ROOT, language)) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_translations_keep_their_placeholders(language):
    for entry in catalogue(ROOT, language):
        expected = placeholders(entry.msgid_plural or entry.msgid)
        translations = [entry.msgstr] if entry.msgstr else list(entry.msgstr_plural.values())
        for text in translations:
            assert placeholders(text) == expected, entry.msgid


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"%\((\w+)\)", text))


@pytest.mark.parametrize("language", LANGUAGES)
def test_compiled_catalogue_is_current(language, tmp_path):
    po_path = ROOT / "locale" / language / "LC_MESSAGES" / "django.po"
    fresh = tmp_path / "django.mo"
    polib.pofile(str(po_path)).save_as_mofile(str(fresh))
    assert fresh.read_bytes() == po_path.with_suffix(".mo").read_bytes(), "run `make messages`"


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="GNU gettext is not installed (.ci/run installs it)")
def test_every_string_in_the_source_is_in_the_catalogues(tmp_path):
    """Extract the strings from a copy of the source and check the copy's catalogues have no gaps."""
    for name in ("manage.py",):
        shutil.copy(ROOT / name, tmp_path / name)
    for folder in ("config", "tournament", "scoring", "public", "rules", "templates", "locale"):
        if (ROOT / folder).exists():
            shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    command = [sys.executable, "manage.py", "makemessages", "--no-location", "-l", "ko", "-l", "zh_Hant"]
    subprocess.run(command, cwd=tmp_path, check=True, capture_output=True)
    for language in LANGUAGES:
        assert gaps(catalogue(tmp_path, language)) == [], f"run `make messages` and translate ({language})"
