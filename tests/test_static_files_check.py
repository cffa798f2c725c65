"""Production settings without collected static files answer every page with a server error (the manifest
storage cannot name a single stylesheet). The app says so before it serves anything: `manage.py check` (and so
`migrate`) fails with the command to run, and the WSGI application refuses to start with the same words."""

import json

import pytest

from tests.test_security_headers import run_in_production

pytestmark = pytest.mark.slow  # each test starts Python with the production settings

CHECK = "from django.core.management import execute_from_command_line; execute_from_command_line(['manage.py', 'check'])"
START = "import config.wsgi"


def test_without_collected_static_files_the_check_fails_and_names_the_command(tmp_path):
    result = run_in_production(CHECK, DJANGO_STATIC_ROOT=str(tmp_path))
    assert result.returncode != 0
    assert "static files are not collected" in result.stderr and "manage.py collectstatic" in result.stderr
    started = run_in_production(START, DJANGO_STATIC_ROOT=str(tmp_path))
    assert started.returncode != 0 and "manage.py collectstatic" in started.stderr


def test_with_collected_static_files_the_check_passes(tmp_path):
    (tmp_path / "staticfiles.json").write_text(json.dumps({"paths": {}, "version": "1.1", "hash": ""}))
    result = run_in_production(CHECK, DJANGO_STATIC_ROOT=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert run_in_production(START, DJANGO_STATIC_ROOT=str(tmp_path)).returncode == 0


def test_a_started_worker_has_read_the_word_dictionary_before_its_first_request(tmp_path):
    """A referee's first Word live check does not wait ~200 ms for the dictionary (docs/PERFORMANCE.md)."""
    (tmp_path / "staticfiles.json").write_text(json.dumps({"paths": {}, "version": "1.1", "hash": ""}))
    code = (START + "; from rules.word.dictionary import default_dictionary; "
            "print('loaded', default_dictionary.cache_info().currsize)")
    result = run_in_production(code, DJANGO_STATIC_ROOT=str(tmp_path))
    assert result.returncode == 0 and "loaded 1" in result.stdout, result.stderr
