"""The catalogues say every glossary term the way docs/GLOSSARY.md does: one word per concept, in Korean and
Hong Kong Chinese, so a new string cannot drift (a turn that becomes 輪, a confirmation that becomes 승인).

Only terms whose English can be matched reliably are checked; each rule names the glossary row it enforces,
and the word it requires must be that row's word (the table is read, not copied here).
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

import polib
import pytest

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "docs" / "GLOSSARY.md"
LANGUAGES = ["ko", "zh_Hant"]
COLUMN = {"ko": "Korean", "zh_Hant": "Hong Kong Chinese"}


def glossary_rows(path: Path = GLOSSARY) -> dict[str, dict[str, str]]:
    """The table as {English: {column: cell}}."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:  # after the header and its |---| line
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0]] = dict(zip(header, cells, strict=True))
    return rows


@dataclass(frozen=True)
class Term:
    row: str  # the glossary row, by its English column
    msgid: str  # regex over the English: the entries that speak of the term
    say: dict  # language → the word every such translation contains
    never: dict = field(default_factory=dict)  # language → words no such translation contains
    unless: str = r"(?!)"  # regex: entries where the English word means something else (exempt from `say`)


# "Confirm" on a page that asks before an action is the person's yes, not the chief referee's confirmation.
ASKS_BEFORE_ACTING = r"confirm that the sheet is right|then confirm|to confirm\.|confirm again"

TERMS = [
    Term("confirm / confirmed (a sheet)", r"\bconfirm(s|ed|ing|ation)?\b", {"ko": "확정", "zh_Hant": "確認"},
         {"ko": ("승인",)}, unless=ASKS_BEFORE_ACTING),
    Term("turn (one player's move)", r"\bturns?\b", {"ko": "차례", "zh_Hant": "出牌"}, {"zh_Hant": ("輪",)}),
    Term("organiser", r"\borganisers?\b", {"ko": "운영자", "zh_Hant": "大會"}, {"zh_Hant": ("主辦",)}),
    Term("check-in / desk", r"\bdesk\b", {"ko": "등록대", "zh_Hant": "報到處"}, {"ko": ("데스크",)}),
    Term("check-in / desk", r"\bcheck(ed|s|ing)?[- ]in\b", {"ko": "참가 확인", "zh_Hant": "報到"},
         unless=r"check-in desk"),
    # Seed 003 says 罰取 for the penalty tiles; 摸 (mahjong) never.
    Term("draw a tile", r"\bdrew\b|\bdraws? \d+ penalty tiles\b|forms words or draws",
         {"ko": "가져", "zh_Hant": "取牌"}, {"zh_Hant": ("摸",)}, unless=r"penalty tiles"),
    Term("search / find", r"\bsearch\b|\bfind\b", {"ko": "검색", "zh_Hant": "搜尋"}, {"zh_Hant": ("查找",)}),
    # "lot" inside the list of standings-order codes (wins, points, average, lot, playoff) is a code.
    Term("lots (drawing lots)", r"\blots?\b(?!, playoff)", {"ko": "추첨", "zh_Hant": "抽號碼牌"},
         {"zh_Hant": ("抽籤",)}),
    Term("rack value", r"\brack('s)? value\b", {"ko": "받침대 타일 합계", "zh_Hant": "牌架上的牌總值"},
         {"ko": ("남은 타일 합",), "zh_Hant": ("牌架總值",)}),
    Term("rack", r"^tiles$|\btiles left on the rack\b", {"ko": "받침대 타일", "zh_Hant": "牌架上的牌"}),
    Term("knocked-over rack", r"\bknock", {"ko": "받침대를 넘어뜨", "zh_Hant": "推倒牌架"}, {"ko": ("고의로",)}),
    Term("went out", r"\bwent out\b|\bgo(es)? out\b|\bgoing out\b", {"ko": "타일을 모두 내려놓", "zh_Hant": "出完牌"}),
    Term("pool", r"\bpool\b", {"ko": "타일 더미", "zh_Hant": "備用牌"}),
    Term("referee / chief referee", r"\b(live|referee) board\b", {"ko": "실시간 현황판", "zh_Hant": "即時賽況板"}),
    # The Hong Kong format keeps seed 003's own name, 巡迴賽.
    Term("move up a table", r"^(?=.*\btable).*\bmov(e|es|ed|ing) up\b", {"ko": "이동", "zh_Hant": "調"},
         {"zh_Hant": ("升上",)}, unless=r"\(Hong Kong 2016\)"),
    Term("withdraw (registration) / forfeit / disqualify",
         r"^(?!.*(during the event|forfeit)).*\bwithdr(aw|aws|awn|ew|awal)\b", {"zh_Hant": "取消"},
         {"zh_Hant": ("退賽", "退出")}),
    Term("festival / event", r"\bfestivals?\b", {"ko": "대회", "zh_Hant": "大賽"}, {"zh_Hant": ("活動",)}),
    Term("festival / event", r"^(?!.*festival).*\bevents?\b", {}, {"zh_Hant": ("賽事", "活動")}),
    Term("wins / points", r"\bscores?\b", {}, {"zh_Hant": ("得分",)}),
]


def catalogue(language: str) -> polib.POFile:
    return polib.pofile(str(ROOT / "locale" / language / "LC_MESSAGES" / "django.po"))


def translations(entry: polib.POEntry) -> list[str]:
    return [entry.msgstr] if not entry.msgid_plural else list(entry.msgstr_plural.values())


def english(entry: polib.POEntry) -> str:
    return entry.msgid + (" " + entry.msgid_plural if entry.msgid_plural else "")


def drift(po: polib.POFile, language: str, term: Term) -> list[str]:
    """What breaks the term's rule in one catalogue, as readable lines."""
    found = []
    wanted = term.say.get(language)
    for entry in po:
        text = english(entry)
        if entry.obsolete or not re.search(term.msgid, text, re.IGNORECASE):
            continue
        for translated in translations(entry):
            if wanted and wanted not in translated and not re.search(term.unless, text, re.IGNORECASE):
                found.append(f"{text!r} → {translated!r}: says no {wanted}")
            for word in term.never.get(language, ()):
                if word in translated:
                    found.append(f"{text!r} → {translated!r}: says {word}")
    return found


def test_every_rule_enforces_the_word_its_glossary_row_gives():
    rows = glossary_rows()
    for term in TERMS:
        row = rows[term.row]
        for language, word in term.say.items():
            # The notes column counts too: "tiles left" and the live board are named there.
            assert word in row[COLUMN[language]] + row["notes"], (term.row, language, word)
        for language, words in term.never.items():
            for word in words:
                assert word not in row[COLUMN[language]], (term.row, language, word)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("term", TERMS, ids=[f"{n:02d}-{t.row.split(' ')[0]}" for n, t in enumerate(TERMS)])
def test_catalogue_says_the_glossary_word(language, term):
    assert drift(catalogue(language), language, term) == []


CJK = r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]"


@pytest.mark.parametrize("language", ["zh_Hant"])
def test_chinese_has_no_space_between_chinese_and_latin_text_and_full_width_punctuation(language):
    """Glossary style: no space between Chinese and Latin text; full-width punctuation next to Chinese."""
    spaced = re.compile(rf"{CJK} [A-Za-z0-9%{{…]|[A-Za-z0-9}}…] {CJK}")
    half_width = re.compile(r"[\u3400-\u9fff][,:;()!?]|[,:;()!?][\u3400-\u9fff]")
    bad = [(entry.msgid, text) for entry in catalogue(language) for text in translations(entry)
           if spaced.search(text) or half_width.search(text)]
    assert bad == []


def test_korean_puts_no_space_before_a_bracket():
    """"(R4)" sits on its word; only a literal "( )" (the characters a phone number may hold) stands apart."""
    bad = [(entry.msgid, text) for entry in catalogue("ko") for text in translations(entry)
           if re.search(r"\S \((?! \))", text)]
    assert bad == []


def test_the_rules_catch_the_drift_they_are_there_for():
    """Each rule fails on the wording the review found (so the rules above can fail)."""
    old = {
        ("ko", "Confirm"): "승인",
        ("ko", "Check-in desk"): "참가 확인 데스크",
        ("zh_Hant", "Turn %(number)s"): "第%(number)s輪",
        ("zh_Hant", "organiser"): "主辦單位",
        ("zh_Hant", "Drew"): "摸牌",
        ("zh_Hant", "Find"): "查找",
        ("zh_Hant", "This registration is already withdrawn."): "此報名已經退賽。",
        ("zh_Hant", "Moved up from table %(table)s"): "由第%(table)s組升上一組",
    }
    for (language, msgid), translated in old.items():
        po = polib.POFile()
        po.append(polib.POEntry(msgid=msgid, msgstr=translated))
        assert any(drift(po, language, term) for term in TERMS), (language, msgid)
