"""``python -m rules``: JSON out, documented errors, never a traceback."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rules.cli import main

ROOT = Path(__file__).resolve().parents[2]
HK_SHEET = {
    "number": 3,
    "game": 1,
    "end": "went_out",
    "seats": [
        {"seat": 1, "player": "甲", "tiles": "R3 B4"},
        {"seat": 2, "player": "乙", "went_out": True},
        {"seat": 3, "player": "丙", "tiles": "K13 J R10 Y8", "jokers": 1},
        {"seat": 4, "player": "丁", "rack_value": 50, "jokers": 0, "opened": True, "could_open": None},
    ],
}


def run(argv, stdin=""):
    out = io.StringIO()
    code = main(argv, stdout=out, stdin=io.StringIO(stdin))
    return code, json.loads(out.getvalue())


def test_meld():
    code, data = run(["meld", "K9 K10 J"])
    assert code == 0
    assert data["value"] == 30 and data["can_open"] is True and data["threshold"] == 30
    assert data["sets"] == [
        {"kind": "run", "tiles": ["K9", "K10", "J"], "as": ["K9", "K10", "K11"], "value": 30}
    ]
    code, data = run(["meld", "--threshold", "31", "K9,", "k10", "j"])
    assert (code, data["can_open"], data["threshold"]) == (0, False, 31)


def test_score_hk_sheet_from_stdin():
    code, data = run(["score", "--ruleset", "hk-2016", "-"], json.dumps(HK_SHEET))
    assert code == 0
    assert [s["score"] for s in data["seats"]] == ["-7.00", "118.00", "-61.00", "-50.00"]
    assert [s["penalty"] for s in data["seats"]] == [7, 0, 61, 50]
    assert data["winners"] == [2] and data["problems"] == [] and data["ruleset"] == "hk-2016"


def test_score_file_and_event_export_with_several_tables(tmp_path):
    bad = {"end": "went_out", "seats": [{"seat": 1, "rack_value": 3}, {"seat": 2, "rack_value": 4}]}
    path = tmp_path / "event.json"
    path.write_text(json.dumps({"tables": [HK_SHEET, bad]}), encoding="utf-8")
    code, data = run(["score", str(path)])
    assert code == 1
    first, second = data["tables"]
    assert first["ok"] and first["seats"][2]["penalty"] == 81  # wrc-2014: joker 50
    assert not second["ok"] and second["problems"][0]["code"] == "no_one_went_out"
    assert second["seats"][0]["score"] is None


def test_score_output_reads_back_as_input():
    _, data = run(["score", "-"], json.dumps(HK_SHEET))
    code, again = run(["score", "-"], json.dumps(data))
    assert code == 0 and again["seats"] == data["seats"]


def test_never_opened_could_open_is_computed():
    sheet = {
        "end": "went_out",
        "seats": [
            {"seat": 1, "went_out": True},
            {"seat": 2, "opened": False, "tiles": "K9 K10 J R1 R2 B5 B7 K2 K6 Y3 Y5 Y12 B13 R4"},
        ],
    }
    _, data = run(["score", "-"], json.dumps(sheet))
    assert data["seats"][1]["could_open"] is True and data["seats"][1]["penalty"] == 200


def test_ruleset_from_file(tmp_path):
    path = tmp_path / "cup.json"
    path.write_text(json.dumps({"slug": "cup", "joker_penalty": 10}))
    code, data = run(["score", "--ruleset", str(path), "-"], json.dumps(HK_SHEET))
    assert code == 0 and data["seats"][2]["penalty"] == 41


@pytest.mark.parametrize(
    "argv, stdin, error",
    [
        (["meld", "R14 J"], "", "bad_notation"),
        (["meld", "R5 R5 R5"], "", "bad_notation"),
        (["meld", "--threshold", "-1", "R5"], "", "bad_threshold"),
        (["meld", "--threshold", "x", "R5"], "", "usage"),
        ([], "", "usage"),
        (["frobnicate"], "", "usage"),
        (["score", "-"], "{not json", "bad_json"),
        (["score", "-"], "[1, 2]", "bad_record"),
        (["score", "/nonexistent/file.json"], "", "cannot_read"),
        (["score", "--ruleset", "nope", "-"], "{}", "unknown_ruleset"),
        (["score", "--ruleset", "/nonexistent/r.json", "-"], "{}", "bad_record"),
        (["score", "-"], json.dumps({"end": "went_out", "seats": [{"seat": "1"}]}), "bad_record"),
        (["score", "-"], json.dumps({"end": "won", "seats": []}), "bad_record"),
        (["score", "-"], json.dumps({"end": "blocked", "seats": [{"seat": 1, "tiles": "X3"}]}), "bad_record"),
        (
            ["score", "-"],
            json.dumps({"end": "blocked", "seats": [{"seat": 1, "went_out": "no"}]}),
            "bad_record",
        ),
        (["score", "-"], json.dumps({"end": "blocked", "seats": [{"seat": 1, "colour": 1}]}), "bad_record"),
        (["score", "-"], json.dumps({"end": "blocked", "seats": {}}), "bad_record"),
        (["score", "-"], json.dumps({"tables": 3}), "bad_record"),
        (["score", "-"], "[" * 100000, "bad_json"),
    ],
)
def test_bad_input_gives_a_json_error_and_exit_code_2(argv, stdin, error):
    code, data = run(argv, stdin)
    assert code == 2
    assert data["error"]["code"] == error and data["error"]["message"]


def test_bad_ruleset_file_lists_fields(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"slug": "x", "joker_penalty": -1, "points": "best"}))
    code, data = run(["score", "--ruleset", str(path), "-"], "{}")
    assert code == 2 and set(data["error"]["fields"]) == {"joker_penalty", "points"}


def test_python_dash_m_rules_subprocess():
    ok = subprocess.run(
        [sys.executable, "-m", "rules", "meld", "R5 J J"], cwd=ROOT, capture_output=True, text=True
    )
    assert ok.returncode == 0 and json.loads(ok.stdout)["value"] == 18
    bad = subprocess.run(
        [sys.executable, "-m", "rules", "score", "-"], cwd=ROOT, input="nope", capture_output=True, text=True
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert json.loads(bad.stdout)["error"]["code"] == "bad_json"
