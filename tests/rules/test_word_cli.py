"""``python -m rules word``: a Word sheet checked and scored, JSON out, the documented exit codes."""

import io
import json
import subprocess
import sys
from pathlib import Path

from rules.cli import main

ROOT = Path(__file__).resolve().parents[2]
SHEET = {
    "number": 2,
    "seats": [{"seat": 1, "player": "A"}, {"seat": 2, "player": "B", "jokers_left": 1}],
    "turns": [
        {"seat": 1, "words": ["BLACK", "AIR"]},
        {"seat": 2, "drew": True},
        {"seat": 1, "words": "disappear", "used_all_tiles": True},
        {"seat": 2, "words": ["PLANET"]},
    ],
}


def run(argv, stdin=""):
    out = io.StringIO()
    code = main(argv, stdout=out, stdin=io.StringIO(stdin))
    return code, json.loads(out.getvalue())


def test_word_sheet_scored():
    code, data = run(["word", "--no-dictionary", "-"], json.dumps(SHEET))
    assert code == 0 and data["ok"] and data["problems"] == [] and data["dictionary"] is None
    assert [(t["number"], t["longest"], t["points"], t["total"]) for t in data["turns"]] == [
        (1, "BLACK", 5, 5),
        (2, None, 0, 0),
        (3, "DISAPPEAR", 18, 23),
        (4, "PLANET", 6, 6),
    ]
    assert [(s["total"], s["joker_penalty"], s["win"]) for s in data["seats"]] == [
        (23, 0, True),
        (-24, -30, False),
    ]
    assert data["winners"] == [1]
    code2, again = run(["word", "--no-dictionary", "-"], json.dumps(data))  # output reads back
    assert (code2, again) == (0, data)


def test_word_sheet_with_errors_exit_1(tmp_path):
    bad = {**SHEET, "turns": [{"seat": 1, "words": ["CRANE"]}]}
    path = tmp_path / "sheet.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    code, data = run(["word", "--no-dictionary", str(path)])
    assert code == 1 and not data["ok"] and data["winners"] == []
    assert data["problems"][0]["code"] == "first_placement_too_short" and data["problems"][0]["turn"] == 1
    assert data["turns"][0]["points"] is None and data["seats"][0]["total"] is None


def test_word_bad_input_exit_2():
    code, data = run(["word", "-"], json.dumps({"seats": [], "turns": [{"seat": 1, "words": ["A-B"]}]}))
    assert (
        code == 2 and data["error"]["code"] == "bad_record" and data["error"]["path"] == "game.turns[0].words"
    )
    code, data = run(
        ["word", "-"], json.dumps({"seats": [], "turns": [{"seat": 1, "drew": True, "words": ["CAT"]}]})
    )
    assert code == 2 and data["error"]["path"] == "game.turns[0].drew"
    code, data = run(["word", "-"], "{")
    assert code == 2 and data["error"]["code"] == "bad_json"
    code, data = run(["word", "/nonexistent/sheet.json"])
    assert code == 2 and data["error"]["code"] == "cannot_read"


def test_rules_word_imports_no_django():
    code = "import sys, rules.word, rules.word.cli; assert not [m for m in sys.modules if m.startswith('django')]"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
