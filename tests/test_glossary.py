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
    # language → glossary words that rightly hold a `never` word (種子選手 holds 選手, 등록대 holds 등록)
    idioms: dict = field(default_factory=dict)


EVERY_ENTRY = r""  # for words that are wrong whatever the English says

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
         # Withdrawing an agreement (to give results to a ranking body) is 撤回, not a registration's 取消.
         r"^(?!.*(during the event|forfeit|agree)).*\bwithdr(aw|aws|awn|ew|awal)\b", {"zh_Hant": "取消"},
         {"zh_Hant": ("退賽", "退出")}),
    Term("festival / event", r"\bfestivals?\b", {"ko": "대회", "zh_Hant": "大賽"}, {"zh_Hant": ("活動",)}),
    Term("festival / event", r"^(?!.*festival).*\bevents?\b", {}, {"zh_Hant": ("賽事", "活動")}),
    Term("wins / points", r"\bscores?\b", {}, {"zh_Hant": ("得分",)}),
    # 選手 is an athlete; ours are participants, except in the idiom 種子選手.
    Term("player", EVERY_ENTRY, {}, {"ko": ("선수",), "zh_Hant": ("選手",)}, idioms={"zh_Hant": ("種子選手",)}),
    Term("seeded player", r"\bseeded players?\b", {"ko": "시드 참가자", "zh_Hant": "種子選手"}),
    # The seating draw is never 추첨 (drawing lots) nor 編組; the lots, the tiles and the numbering draw
    # (player numbers from a seed) are other draws.
    Term("the seating draw",
         r"^(?!.*(\blots?\b|penalty tiles|forms words|same numbers|numbers drawn)).*\bdr(aw|aws|awn)\b",
         {"ko": "편성", "zh_Hant": "分組"}, {"ko": ("추첨",)}),
    Term("the seating draw", EVERY_ENTRY, {}, {"zh_Hant": ("編組",)}),
    # 등록 is the initial meld (첫 등록) and the desk (등록대), never registering for an event.
    Term("register (for an event)", r"\bregist(er|ers|ered|ering|ration|rations)\b",
         {"ko": "신청", "zh_Hant": "報名"}, {"ko": ("등록",)}, unless=r"\bwalk-ins\b",
         idioms={"ko": ("첫 등록", "등록대")}),
    # 以下 includes N: "15歲以下" lets a 15-year-old in.
    Term("under N (an age limit)", r"\bunder \d+\b|\byounger than\b|\bbelow the age\b",
         {"ko": "미만", "zh_Hant": "未滿"}, {"zh_Hant": ("以下",)}),
    Term("ranking (points, id)", r"\branking (points?|ids?)\b", {"ko": "랭킹", "zh_Hant": "排名"}),
    # A Hong Kong parent reads 全國 as the Mainland's.
    Term("ranking (points, id)", EVERY_ENTRY, {}, {"zh_Hant": ("全國",)}),
    Term("player number", r"\bplayer numbers?\b", {"ko": "참가 번호", "zh_Hant": "參賽編號"}),
    Term("hall display", r"\bhall display\b", {"ko": "대회장 화면", "zh_Hant": "會場大屏幕"}),
    Term("staff", r"\bstaff\b", {"ko": "운영진", "zh_Hant": "工作人員"}),
    Term("staff", EVERY_ENTRY, {}, {"ko": ("스태프", "진행 요원")}),
    Term("walk-in", r"\bwalk-ins?\b", {"ko": "현장 접수", "zh_Hant": "即場報名"}),
    Term("released / announced", r"\b(un-)?releas(e|es|ed|ing)\b", {"ko": "발표", "zh_Hant": "公佈"}),
    Term("released / announced", EVERY_ENTRY, {}, {"zh_Hant": ("公布",)}),
    Term("phone", r"\b(this|their) phone\b|\bphones\b", {"ko": "휴대전화", "zh_Hant": "手機"}),
    Term("phone", EVERY_ENTRY, {}, {"ko": ("휴대폰",)}),
    Term("QR code", r"\bQR code\b", {"ko": "QR 코드", "zh_Hant": "QR碼"}),
    Term("QR code", EVERY_ENTRY, {}, {"zh_Hant": ("二維碼",)}),
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
            rest = translated
            for idiom in term.idioms.get(language, ()):
                rest = rest.replace(idiom, "")
            for word in term.never.get(language, ()):
                if word in rest:
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
        for language, idioms in term.idioms.items():
            for idiom in idioms:
                # An idiom is the glossary's own word, in some row (種子選手 is the seeded player's).
                assert any(idiom in other[COLUMN[language]] for other in rows.values()), (term.row, language, idiom)


def term_id(number: int, term: Term) -> str:
    return f"{number:02d}-" + re.sub(r"[^a-z]+", "-", term.row.lower()).strip("-")[:24]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("term", TERMS, ids=[term_id(n, t) for n, t in enumerate(TERMS)])
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
        ("zh_Hant", "All places are taken by players already checked in."): "全部名額已由已報到的選手佔用。",
        ("ko", "two seeded players"): "시드 선수 2명",
        ("ko", "No seat in this draw."): "이번 조 추첨에 자리가 없습니다.",
        ("zh_Hant", "No seat in this draw."): "今次編組沒有你的座位。",
        ("ko", "the link you got when you registered"): "등록할 때 받은 링크",
        ("zh_Hant", "under 15 — no ranking points"): "15歲以下 — 不設排名積分",
        ("zh_Hant", "national ranking id"): "全國排名編號",
        ("ko", "player numbers and seating"): "참가자 번호와 자리 배정",
        ("ko", "the hall display"): "경기장 화면",
        ("ko", "add its events and its staff next"): "종목과 스태프를 추가하세요",
        ("ko", "only the organisers and their staff"): "운영자와 진행 요원만",
        ("ko", "A walk-in needs the signed paper consent form."): "현장 신청은 서명한 종이 동의서가 있어야 합니다.",
        ("zh_Hant", "No seating is released yet."): "尚未公布任何分組。",
        ("zh_Hant", "let them scan the code"): "讓對方掃描二維碼",
        ("ko", "Saved on this phone"): "이 휴대폰에 저장됨",
    }
    for (language, msgid), translated in old.items():
        po = polib.POFile()
        po.append(polib.POEntry(msgid=msgid, msgstr=translated))
        assert any(drift(po, language, term) for term in TERMS), (language, msgid)


def test_the_rules_leave_the_right_words_alone():
    """The idioms and the other draws are the glossary's own words: a rule that flagged them would be wrong."""
    right = {
        ("zh_Hant", "spread seeded players across tables"): "將種子選手分散到不同組別",
        ("ko", "Check-in desk"): "등록대",
        ("ko", "A player who never opened still holds all 14 dealt tiles; the registration waits."):
            "첫 등록을 하지 않은 참가자의 참가 신청은 기다립니다.",
        ("ko", "Draw lots"): "추첨하기",
        ("ko", "Anyone can re-run the draw with this seed and get the same numbers."): "추첨을 다시 실행하면",
        ("ko", "the desk may register walk-ins"): "등록대에서 현장 접수 허용",
    }
    for (language, msgid), translated in right.items():
        po = polib.POFile()
        po.append(polib.POEntry(msgid=msgid, msgstr=translated))
        assert not any(drift(po, language, term) for term in TERMS), (language, msgid)


def test_chinese_writes_its_dash_doubled_and_unspaced():
    """破折號 is two em dashes on the text (——), not the English spaced " — "; a lone "—" is an empty cell."""
    bad = [(entry.msgid, text) for entry in catalogue("zh_Hant") for text in translations(entry)
           if text != "—" and re.search(r"(?<!—)—(?!—)| —|— ", text)]
    assert bad == []


def test_korean_quotes_are_curly():
    """“참가 취소자”, not '참가 취소자' or "참가 취소자" (a quoted code such as "schema" stays straight)."""
    bad = [(entry.msgid, text) for entry in catalogue("ko") for text in translations(entry)
           if re.search(r"(^|[\s(])['\"][\uac00-\ud7a3]", text)]
    assert bad == []
