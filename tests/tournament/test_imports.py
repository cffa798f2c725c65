"""The organiser's import (upload → preview → confirm) and export of registrations (R9)."""

import datetime as dt
import io
import os
import re
import threading
import time
import tracemalloc
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import openpyxl
import pytest
import tablib
from django.contrib.sessions.models import Session
from django.urls import reverse
from django.utils import timezone, translation

from tests.factories import EVENT_DAY, make_event, make_festival, make_player, make_registration, make_staff
from tournament.models import AuditEntry, PendingImport, Player, Registration, StaffRole
from tournament.permissions import DESK, ORGANISER
from tournament.services.audit import Actor
from tournament.services.imports import importing, limits, pending, reading, workbook
from tournament.services.registration import PlayerDetails, register, withdraw

DATA = Path(__file__).parent / "data"
HEADER = ["event", "name", "contact", "birth_year", "affiliation", "ranking_id"]
S = Registration.Status


@pytest.fixture
def events(festival):
    """`open` 11:00–18:00, `pairs` 14:00–16:00 (overlaps `open`, R9), `junior` the next day."""
    return {
        "open": make_event(festival, slug="open", name="Open"),
        "pairs": make_event(festival, slug="pairs", name="Pairs", start=EVENT_DAY.replace(hour=14), hours=2),
        "junior": make_event(festival, slug="junior", name="Junior 어린이부",
                             start=EVENT_DAY.replace(hour=11) + dt.timedelta(days=1)),
    }


def csv_bytes(rows, *, header=HEADER, encoding="utf-8", bom=False) -> bytes:
    dataset = tablib.Dataset(*rows, headers=header)
    text = dataset.export("csv")
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode(encoding)


def xlsx_bytes(rows, *, header=HEADER) -> bytes:
    return tablib.Dataset(*rows, headers=header).export("xlsx")


def row(event="open", name="김민준", contact="010-1234-5678", birth_year="2009", affiliation="부산중학교", ranking_id=""):
    return [event, name, contact, birth_year, affiliation, ranking_id]


def upload(client, festival, content: bytes, name="players.csv", default_event=""):
    data = {"file": _named(content, name)}
    if default_event:
        data["default_event"] = default_event
    return client.post(reverse("manage-import", kwargs={"festival": festival.slug}), data)


def _named(content, name):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, content)


def preview(client, festival, content, name="players.csv", **kwargs):
    """Upload and follow to the preview page; returns (preview url, response)."""
    response = upload(client, festival, content, name, **kwargs)
    assert response.status_code == 302, form_errors(response)
    url = response["Location"]
    return url, client.get(url)


def confirm(client, url, action="all"):
    page = client.get(url)
    seen = re.search(r'name="seen" value="([^"]*)"', page.content.decode()).group(1)
    return client.post(url, {"action": action, "seen": seen, "consent_held": "on"})


def row_html(response, line: int) -> str:
    match = re.search(rf'<tr id="row-{line}" class="([^"]*)">(.*?)</tr>', response.content.decode(), re.S)
    assert match, f"row {line} not on the page"
    return match.group(1) + match.group(2)


def form_errors(response) -> str:
    return " ".join(re.findall(r'class="invalid-feedback[^"]*"[^>]*>\s*(.*?)</', response.content.decode(), re.S))


def active_names(festival):
    return sorted(
        Registration.objects.filter(event__festival=festival, status__in=Registration.ACTIVE)
        .values_list("player__name", flat=True)
    )


# --- good files ----------------------------------------------------------------------------------------


def test_sample_csv_with_bom_imports_hangul_chinese_and_latin_names(organiser_client, festival, events):
    url, page = preview(organiser_client, festival, (DATA / "registrations.csv").read_bytes())
    assert "3 valid" in page.content.decode()
    response = confirm(organiser_client, url)
    assert response.status_code == 302
    assert active_names(festival) == sorted(["김민준", "陳大文", "Jane Smith"])
    kim = Player.objects.get(festival=festival, name="김민준")
    assert (kim.contact, kim.birth_year, kim.affiliation, kim.ranking_id) == ("010-1234-5678", 2009, "부산중학교", "KR-0001")
    audit = AuditEntry.objects.get(action="import.registrations")
    assert audit.festival == festival and audit.after["rows"] == 3 and audit.after["file"] == "players.csv"
    # The upload is forgotten once imported: confirming twice cannot import twice.
    again = organiser_client.post(url, {"action": "all", "consent_held": "on"})
    assert again.status_code == 302 and Registration.objects.count() == 3


def test_importing_one_registration_says_one_registration(organiser_client, festival, events):
    url, _page = preview(organiser_client, festival, csv_bytes([row()]))
    response = organiser_client.get(confirm(organiser_client, url)["Location"])
    assert "Imported 1 registration: 1 with a place, 0 on the waiting list." in response.content.decode()


def test_cp949_csv_from_korean_excel_with_korean_headers_imports(organiser_client, festival, events):
    header = ["종목", "이름", "연락처", "출생연도", "소속", "랭킹번호"]
    content = csv_bytes([row(name="박서연"), row(name="똠방각하", contact="010-2222-3333")],
                        header=header, encoding="cp949")
    with pytest.raises(UnicodeDecodeError):
        content.decode("utf-8")
    url, page = preview(organiser_client, festival, content)
    assert "CP949" in page.content.decode()
    confirm(organiser_client, url)
    assert active_names(festival) == ["똠방각하", "박서연"]


def test_rows_a_chinese_export_marks_withdrawn_are_skipped_in_the_old_wording_and_the_new(
        organiser_client, festival, events):
    header = [*HEADER, "狀態"]
    content = csv_bytes([row(name="陳大文") + ["已退賽"], row(name="黃小明", contact="010-2222-3333") + ["已取消報名"],
                         row(name="李小明", contact="010-3333-4444") + ["已報名"]], header=header)
    url, page = preview(organiser_client, festival, content)
    assert "2 withdrawn rows were skipped" in page.content.decode()
    confirm(organiser_client, url)
    assert active_names(festival) == ["李小明"]


def test_euc_kr_csv_imports(organiser_client, festival, events):
    url, _page = preview(organiser_client, festival, csv_bytes([row(name="이수진")], encoding="euc_kr"))
    confirm(organiser_client, url)
    assert active_names(festival) == ["이수진"]


def test_big5_csv_from_hong_kong_with_chinese_headers_imports(organiser_client, festival, events):
    header = ["項目", "姓名", "聯絡方式", "出生年份", "所屬", "排名編號"]
    rows = [row(name="陳大文", contact="9123 4567", affiliation="聖保羅書院"),
            row(name="黃小明", contact="chan@example.hk", affiliation="香港華仁書院")]
    url, page = preview(organiser_client, festival, csv_bytes(rows, header=header, encoding="big5"))
    assert "Big5" in page.content.decode()
    confirm(organiser_client, url)
    assert active_names(festival) == sorted(["陳大文", "黃小明"])
    assert Player.objects.get(name="黃小明").affiliation == "香港華仁書院"


def test_utf8_csv_without_bom_and_event_by_name_imports(organiser_client, festival, events):
    url, _page = preview(organiser_client, festival, csv_bytes([row(event="Junior 어린이부", name="최지우")]))
    confirm(organiser_client, url)
    assert Registration.objects.get().event == events["junior"]


def test_xlsx_with_numeric_cells_imports(organiser_client, festival, events):
    # Excel stores typed numbers as numbers: a birth year 2010 arrives as 2010 (or 2010.0).
    content = xlsx_bytes([row(name="김하늘", birth_year=2010), row(name="王美玲", contact="wang@example.tw", birth_year=2011.0)])
    url, _page = preview(organiser_client, festival, content, name="players.XLSX")
    confirm(organiser_client, url)
    assert sorted(Player.objects.values_list("name", "birth_year")) == [("王美玲", 2011), ("김하늘", 2010)]


def test_rows_without_event_take_the_chosen_event(organiser_client, festival, events):
    content = csv_bytes([["이도윤", "010-5555-6666", "2008"]], header=["name", "contact", "birth_year"])
    assert "event" in form_errors(upload(organiser_client, festival, content))  # no event column, no default
    url, _page = preview(organiser_client, festival, content, default_event="junior")
    confirm(organiser_client, url)
    assert Registration.objects.get().event == events["junior"]


def test_full_event_sends_imported_rows_to_the_waiting_list(organiser_client, festival, events):
    events["pairs"].capacity = 1
    events["pairs"].save()
    url, page = preview(organiser_client, festival, csv_bytes([
        row(event="pairs", name="A", contact="a@example.org"), row(event="pairs", name="B", contact="b@example.org")]))
    assert "Waiting list" in row_html(page, 3)
    confirm(organiser_client, url)
    statuses = dict(Registration.objects.values_list("player__name", "status"))
    assert statuses == {"A": S.REGISTERED, "B": S.WAITLISTED}


# --- problems on rows ------------------------------------------------------------------------------------

THIS_YEAR = timezone.now().year


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        (row(name=""), "Name"),
        (row(name="x" * 101), "Name"),
        (row(name="=cmd|' /C calc'!A0"), "formula"),
        (row(contact=""), "E-mail or phone"),
        (row(contact="not-a-contact"), "E-mail or phone"),
        (row(contact="kim@@example"), "e-mail"),
        (row(birth_year=""), "Birth year"),
        (row(birth_year="19x0"), "Birth year"),
        (row(birth_year="1899"), "Birth year"),
        (row(birth_year=str(THIS_YEAR + 1)), "Birth year"),
        (row(birth_year="99999999999999999999999999"), "Birth year"),
        (row(birth_year="2009.5"), "Birth year"),
        (row(affiliation="학" * 201), "School or club"),
        (row(ranking_id="9" * 41), "ranking"),
        (row(event="chess"), "Unknown event"),
        (row(event=""), "No event"),
        (row(name="Jane\x07Doe"), "control characters"),
    ],
)
def test_each_bad_field_is_shown_on_its_row_and_nothing_is_imported(organiser_client, festival, events, bad,
        expected):
    good = row(name="좋은 선수", contact="good@example.org")
    url, page = preview(organiser_client, festival, csv_bytes([good, bad]))
    assert "table-danger" not in row_html(page, 2)
    assert "table-danger" in row_html(page, 3)
    assert expected.lower() in row_html(page, 3).lower()
    response = confirm(organiser_client, url, action="all")
    assert "Nothing was imported" in response.content.decode()
    assert Registration.objects.count() == 0 and Player.objects.count() == 0


def test_same_person_twice_for_one_event_in_the_file_is_a_duplicate(organiser_client, festival, events):
    # The same person typed differently: width, case and spaces do not make a new person.
    rows = [row(name="Kim Minjun", contact="010-1234-5678"), row(name="KIM  MINJUN", contact="01012345678")]
    _url, page = preview(organiser_client, festival, csv_bytes(rows))
    assert "table-danger" not in row_html(page, 2)
    assert "Same person as row 2" in row_html(page, 3)


def test_person_already_registered_for_the_event_is_a_duplicate(organiser_client, festival, events):
    make_registration(events["open"], make_player(festival, name="김민준", contact="010-1234-5678"))
    _url, page = preview(organiser_client, festival, csv_bytes([row()]))
    assert "Already registered for this event" in row_html(page, 2)


def test_withdrawn_person_may_be_imported_again(organiser_client, festival, events):
    make_registration(events["open"], make_player(festival, name="김민준", contact="010-1234-5678", birth_year=2009,
                                                  affiliation="부산중학교"), status=S.WITHDRAWN)
    url, _page = preview(organiser_client, festival, csv_bytes([row()]))
    confirm(organiser_client, url)
    assert Registration.objects.get().status == S.REGISTERED


def test_overlapping_events_in_the_file_are_a_time_clash(organiser_client, festival, events):
    """R9: a player may enter several events, but not two that run at the same time."""
    rows = [row(event="open"), row(event="pairs"), row(event="junior")]
    _url, page = preview(organiser_client, festival, csv_bytes(rows))
    assert "table-danger" not in row_html(page, 2)
    assert "same time" in row_html(page, 3) and "row 2" in row_html(page, 3)
    assert "table-danger" not in row_html(page, 4)  # the next day does not clash


def test_overlap_with_an_existing_registration_is_a_time_clash(organiser_client, festival, events):
    make_registration(events["open"], make_player(festival, name="김민준", contact="010-1234-5678"))
    _url, page = preview(organiser_client, festival, csv_bytes([row(event="pairs")]))
    assert "Already entered in “Open”" in row_html(page, 2)


def test_dropping_the_bad_rows_imports_only_the_valid_ones(organiser_client, festival, events):
    rows = [row(name="A", contact="a@example.org"), row(name="", contact="b@example.org"),
            row(name="C", contact="c@example.org", event="chess"), row(name="D", contact="d@example.org")]
    url, page = preview(organiser_client, festival, csv_bytes(rows))
    html = page.content.decode()
    assert "Import the 2 valid rows and drop the 2 bad ones" in html
    assert 'value="all"' not in html  # no "import everything" while rows are bad
    problems_only = organiser_client.get(url + "?show=problems").content.decode()
    assert 'id="row-3"' in problems_only and 'id="row-2"' not in problems_only
    response = confirm(organiser_client, url, action="valid")
    assert response.status_code == 302
    assert active_names(festival) == ["A", "D"]
    assert AuditEntry.objects.get(action="import.registrations").after == {"rows": 2, "file": "players.csv", "dropped": 2,
                                                                              "consent_held": True}


def test_confirm_rechecks_and_a_full_event_now_means_the_waiting_list(organiser_client, festival, events):
    events["pairs"].capacity = 1
    events["pairs"].save()
    url, page = preview(organiser_client, festival, csv_bytes([row(event="pairs")]))
    assert "Place" in row_html(page, 2)
    # Meanwhile someone takes the last place on the public form.
    register(event=events["pairs"], details=PlayerDetails(name="Early Bird", contact="early@example.org", birth_year=2000),
             actor=Actor(label="test"), now=EVENT_DAY)
    confirm(organiser_client, url)
    assert Registration.objects.get(player__name="김민준").status == S.WAITLISTED


def test_confirm_rechecks_and_a_duplicate_created_meanwhile_refuses_everything(organiser_client, festival,
        events):
    rows = [row(name="A", contact="a@example.org"), row(name="B", contact="b@example.org")]
    url, page = preview(organiser_client, festival, csv_bytes(rows))
    seen = re.search(r'name="seen" value="([^"]*)"', page.content.decode()).group(1)
    register(event=events["open"], details=PlayerDetails(name="B", contact="b@example.org", birth_year=2009),
             actor=Actor(label="test"), now=EVENT_DAY)
    response = organiser_client.post(url, {"action": "all", "consent_held": "on", "seen": seen})
    assert response.status_code == 200
    assert "Nothing was imported" in response.content.decode()
    assert "Already registered" in row_html(response, 3)
    assert active_names(festival) == ["B"]  # A was not half-imported
    # Dropping bad rows the organiser has not seen is refused too: they must look at the new preview.
    response = organiser_client.post(url, {"action": "valid", "consent_held": "on", "seen": seen})
    assert "changed since your preview" in response.content.decode()
    assert active_names(festival) == ["B"]
    response = confirm(organiser_client, url, action="valid")
    assert response.status_code == 302 and active_names(festival) == ["A", "B"]


def test_service_imports_all_or_nothing(festival, events):
    rows = [[2, *row(name="A", contact="a@example.org")], [3, *row(name="", contact="b@example.org")]]
    with pytest.raises(importing.ImportRefused):
        importing.import_registrations(festival=festival, rows=rows, actor=Actor(label="test"), file_name="f.csv",
                                       consent_held=True)
    assert Registration.objects.count() == 0 and Player.objects.count() == 0
    assert not AuditEntry.objects.exists()


def test_discarding_an_upload_imports_nothing(organiser_client, festival, events):
    url, _page = preview(organiser_client, festival, csv_bytes([row()]))
    response = organiser_client.post(url, {"action": "cancel"})
    assert response.status_code == 302
    assert organiser_client.get(url).status_code == 302  # gone
    assert Registration.objects.count() == 0


@pytest.mark.parametrize("action", ["", "delete-everything"])
def test_unknown_confirm_action_changes_nothing(organiser_client, festival, events, action):
    url, _page = preview(organiser_client, festival, csv_bytes([row()]))
    response = organiser_client.post(url, {"action": action})
    assert response.status_code == 200 and Registration.objects.count() == 0


def test_upload_of_another_festival_or_unknown_key_is_not_found_here(client, festival, events, organiser):
    other = make_festival()
    make_event(other, slug="open")
    StaffRole.objects.create(festival=other, user=organiser, role="organiser")
    client.force_login(organiser)
    url, _page = preview(client, festival, csv_bytes([row()]))
    key = url.rstrip("/").rsplit("/", 1)[-1]
    other_url = reverse("manage-import-preview", kwargs={"festival": other.slug, "key": key})
    assert client.post(other_url, {"action": "all", "consent_held": "on"}).status_code == 302
    assert client.get(reverse("manage-import-preview", kwargs={"festival": festival.slug, "key": "nope"})).status_code == 302
    assert Registration.objects.count() == 0


# --- garbage files -----------------------------------------------------------------------------------


def _empty_workbook() -> bytes:
    buffer = io.BytesIO()
    openpyxl.Workbook().save(buffer)
    return buffer.getvalue()


def _zip_bomb() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/worksheets/sheet1.xml", b"\0" * (limits.MAX_XLSX_UNPACKED_BYTES + 1))
    return buffer.getvalue()


GARBAGE = [
    ("junk.csv", bytes(range(256)) * 20, "not a readable CSV"),
    ("empty.csv", b"", "empty"),
    ("blank.csv", b"\xef\xbb\xbf\n\n  \n", "empty"),
    ("header-only.csv", ",".join(HEADER).encode(), "no registrations"),
    ("notes.txt", b"event,name\n", ".csv or .xlsx"),
    ("players", b"event,name\n", ".csv or .xlsx"),
    ("old.xls", b"\xd0\xcf\x11\xe0" + b"\0" * 100, ".xls"),
    ("fake.xlsx", b"event,name,contact\n", "XLSX"),
    ("broken.xlsx", b"PK\x03\x04" + b"\0" * 100, "XLSX"),
    ("bomb.xlsx", _zip_bomb(), "too large"),
    ("nothing.xlsx", _empty_workbook(), "no column for"),
    ("sheet.csv", xlsx_bytes([row()]), "not a readable CSV"),
    ("wrong.csv", b"vorname,nachname\nA,B\n", "no column for"),
    ("twice.csv", b"name,name,contact,birth_year,event\n", "appears twice"),
    ("ragged.csv", b"event,name,contact,birth_year\nopen,A,a@example.org,2000,extra,cells\n", "more cells"),
    ("utf16.csv", "event,name,contact,birth_year\n".encode("utf-16"), "not a readable CSV"),
    ("huge.csv", b"a" * (limits.MAX_FILE_BYTES + 1), "2 MB"),
]


# Named by file: the generated XLSX bytes hold a timestamp, and parallel workers must collect the same ids.
@pytest.mark.parametrize(("name", "content", "message"), GARBAGE, ids=[case[0] for case in GARBAGE])
def test_garbage_files_get_a_clear_message_and_nothing_is_kept(organiser_client, festival, events, name,
        content, message):
    response = upload(organiser_client, festival, content, name)
    assert response.status_code == 200
    assert message.lower() in form_errors(response).lower()
    assert not organiser_client.session.get("pending_imports") and not PendingImport.objects.exists()
    assert Registration.objects.count() == 0


def test_too_many_rows_get_a_clear_message(organiser_client, festival, events):
    rows = [row(name=f"P{i}", contact=f"p{i}@example.org") for i in range(limits.MAX_ROWS + 1)]
    response = upload(organiser_client, festival, csv_bytes(rows))
    assert f"at most {limits.MAX_ROWS:,}" in form_errors(response)


def test_xlsx_excel_errors_and_formulas_in_cells_do_not_break_the_import(organiser_client, festival, events):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(HEADER)
    sheet.append(["open", "=1+1", "010-1234-5678", "=2000+9", "", ""])  # formulas: no cached value
    sheet.append(["open", "#DIV/0!", "a@example.org", 2000, "", ""])
    sheet.append(["open", "Huge Year", "b@example.org", 1e308, "", ""])
    sheet.append(["open", "Not A Number", "c@example.org", float("nan"), "", ""])
    buffer = io.BytesIO()
    book.save(buffer)
    _url, page = preview(organiser_client, festival, buffer.getvalue(), name="formulas.xlsx")
    assert "table-danger" in row_html(page, 2)
    assert "table-danger" not in row_html(page, 3)  # an odd name, but a name
    assert "Birth year" in row_html(page, 4) and "Birth year" in row_html(page, 5)


# --- what an upload may hold --------------------------------------------------------------------------


SPREADSHEET_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
RELATIONSHIPS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
CONTENT_TYPES = "application/vnd.openxmlformats-officedocument.spreadsheetml"


def _workbook(rows_xml: str, strings: list[str], *, doctypes: dict[str, str] | None = None) -> bytes:
    """An XLSX written by hand, as an attacker would: one sheet of `rows_xml` and a shared-string table;
    `doctypes` puts a document type declaration before the root element of the parts it names."""
    package = "http://schemas.openxmlformats.org/package/2006"
    shared = "".join(f"<si><t>{text}</t></si>" for text in strings)
    parts = {
        "[Content_Types].xml": f'<Types xmlns="{package}/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        f'<Override PartName="/xl/workbook.xml" ContentType="{CONTENT_TYPES}.sheet.main+xml"/>'
        f'<Override PartName="/xl/worksheets/sheet1.xml" ContentType="{CONTENT_TYPES}.worksheet+xml"/>'
        f'<Override PartName="/xl/sharedStrings.xml" ContentType="{CONTENT_TYPES}.sharedStrings+xml"/></Types>',
        "_rels/.rels": f'<Relationships xmlns="{package}/relationships"><Relationship Id="rId1" '
        f'Type="{RELATIONSHIPS}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": f'<workbook xmlns="{SPREADSHEET_NS}" xmlns:r="{RELATIONSHIPS}"><sheets>'
        '<sheet name="Players" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": f'<Relationships xmlns="{package}/relationships">'
        f'<Relationship Id="rId1" Type="{RELATIONSHIPS}/worksheet" Target="worksheets/sheet1.xml"/>'
        f'<Relationship Id="rId2" Type="{RELATIONSHIPS}/sharedStrings" Target="sharedStrings.xml"/>'
        '</Relationships>',
        "xl/sharedStrings.xml": f'<sst xmlns="{SPREADSHEET_NS}" uniqueCount="{len(strings)}">{shared}</sst>',
        "xl/worksheets/sheet1.xml": f'<worksheet xmlns="{SPREADSHEET_NS}"><sheetData>{rows_xml}</sheetData>'
        '</worksheet>',
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in parts.items():
            archive.writestr(name, (doctypes or {}).get(name, "") + text)
    return buffer.getvalue()


def _shared_string_xlsx(text: str, rows: int, columns: int = len(HEADER)) -> bytes:
    """Every data cell refers to one shared string: stored once, the file stays small however many cells
    refer to it; the declared sizes of its parts are small too."""
    headers = HEADER + [f"note {i}" for i in range(columns - len(HEADER))]
    header = "".join(f'<c t="s"><v>{index}</v></c>' for index in range(1, columns + 1))
    line = '<c t="s"><v>0</v></c>' * columns
    body = "".join(f'<row r="{number}">{line}</row>' for number in range(2, rows + 2))
    return _workbook(f'<row r="1">{header}</row>{body}', [text, *headers])


def _one_long_row_xlsx(cells: int) -> bytes:
    """A header and one row of `cells` numeric cells: a few bytes a cell once zipped."""
    header = "".join(f'<c t="s"><v>{index}</v></c>' for index in range(len(HEADER)))
    line = "".join(f"<c><v>{i % 10}</v></c>" for i in range(cells))
    return _workbook(f'<row r="1">{header}</row><row r="2">{line}</row>', HEADER)


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def measured(call):
    """Run `call()` twice. First alone: its answer and the peak growth of the process's resident memory,
    sampled every 2 ms. Then under tracemalloc: the peak of the Python memory it allocated (every cell, row and
    stored preview is a Python object; the zip and XML readers' C buffers are in the resident figure)."""
    before, peak, done = _rss(), [0], threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], _rss() - before)
            time.sleep(0.002)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        answer = call()
    finally:
        done.set()
        sampler.join()
    tracemalloc.start()
    try:
        call()
        _current, traced = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return answer, max(peak[0], 0), traced


@dataclass
class Work:
    """What reading a file did: rows openpyxl handed over, their cells, and the characters of text made of cells."""

    rows: int = 0
    cells: int = 0
    chars: int = 0


@contextmanager
def counted_reading():
    """Counts the reader's work while the block runs. Counted, not timed: on a shared machine a time limit fails
    when other processes take the CPU, and passes a reader that does far too much on a fast one."""
    work, real_rows, real_text = Work(), reading.sheet_rows, reading.cell_text

    def sheet_rows(content):
        rows = real_rows(content)  # the workbook's checks run here, before its first row, as they do unwatched

        def counted():
            for values in rows:
                work.rows += 1
                work.cells += len(values)
                yield values
        return counted()

    def cell_text(value):
        text = real_text(value)
        work.chars += len(text)
        return text

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reading, "sheet_rows", sheet_rows)
        patch.setattr(reading, "cell_text", cell_text)
        yield work


MB = 1024 * 1024


@pytest.mark.parametrize(("make", "message", "rows_read"), [
    # The attack: 12,000 cells sharing one string of 12,000 characters (145 MB once read). Refused at the first
    # player's first cell: the header and one row read.
    (lambda: _shared_string_xlsx("A" * 12_000, rows=2000), "characters", 2),
    # Cells short enough one by one, too many characters together: refused in the row that passes
    # MAX_CHARS (10 cells of 400 characters a row, and the header's few): the header and 250 rows of 2,000 read.
    (lambda: _shared_string_xlsx("B" * 400, rows=2000, columns=10), "characters", 1 + limits.MAX_CHARS // 4000),
    # Many more cells than a registrations sheet has, in one row (openpyxl reads a row whole): refused by the
    # count of the workbook's XML before openpyxl reads a row.
    (lambda: _one_long_row_xlsx(300_000), "wider than", 0),
    # Many rows of a few cells each: refused by the count of the XML too.
    (lambda: _shared_string_xlsx("1", rows=1999, columns=25), "cells", 0),
], ids=["shared-string", "many-characters", "one-long-row", "many-cells"])
def test_a_small_workbook_that_unpacks_to_a_huge_sheet_is_refused_before_it_is_read(organiser_client, festival,
        events, make, message, rows_read):
    content = make()
    assert len(content) < 1 * MB
    # The first upload of a process loads templates and catalogues; that memory is not the file's doing.
    assert "no registrations" in form_errors(upload(organiser_client, festival, _shared_string_xlsx("x", rows=0),
                                                    "empty.xlsx"))
    works = []

    def bomb():
        with counted_reading() as work:
            works.append(work)
            return upload(organiser_client, festival, content, "bomb.xlsx")

    response, resident, traced = measured(bomb)
    assert response.status_code == 200 and message in form_errors(response)
    # Reading stops at the first bound passed, whatever the file claims to hold (both runs of `measured`).
    for work in works:
        assert work.rows <= rows_read, work
        assert work.cells <= limits.MAX_CELLS and work.chars <= limits.MAX_CHARS + limits.MAX_CELL_CHARS, work
    assert resident < 200 * MB and traced < 200 * MB, (resident / MB, traced / MB)
    assert not organiser_client.session.get("pending_imports") and not PendingImport.objects.exists()


def test_too_many_characters_in_a_csv_are_refused_too(organiser_client, festival, events):
    long = "x" * (limits.MAX_CELL_CHARS + 1)
    response = upload(organiser_client, festival, csv_bytes([row(affiliation=long)]))
    assert f"more than {limits.MAX_CELL_CHARS:,} characters" in form_errors(response)


# --- XML declarations in a workbook ------------------------------------------------------------------

# Entities nested three deep: each level repeats the one below ten times. The attack nested them deeper behind a
# padded DTD (17 KB on disk, 2 GB and 21 s to expand); three levels (1,000 characters) keep the unguarded code
# quick, and any DTD at all is refused before it is expanded.
NESTED_ENTITIES = ('<!DOCTYPE sst [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "{b}"><!ENTITY c "{c}">]>'
                   .format(b="&a;" * 10, c="&b;" * 10))
HOSTILE_WORKBOOKS = {
    "nested-entities": (lambda: _workbook(_header_and_row_xml(), ["&c;", *HEADER],
                                          doctypes={"xl/sharedStrings.xml": NESTED_ENTITIES})),
    # A declaration without any entity: spreadsheet programs never write one.
    "dtd-alone": (lambda: _workbook(_header_and_row_xml(), ["Kim", *HEADER],
                                    doctypes={"xl/worksheets/sheet1.xml": "<!DOCTYPE worksheet>"})),
    # An external entity (a file of the server) in the workbook part.
    "external-entity": (lambda: _workbook(_header_and_row_xml(), ["Kim", *HEADER], doctypes={
        "xl/workbook.xml": '<!DOCTYPE workbook [<!ENTITY secret SYSTEM "file:///etc/passwd">]>'})),
    # A parameter entity in the package's first part.
    "parameter-entity": (lambda: _workbook(_header_and_row_xml(), ["Kim", *HEADER], doctypes={
        "[Content_Types].xml": '<!DOCTYPE Types [<!ENTITY % p "<!ENTITY q \'x\'>"> %p;]>'})),
}


def _header_and_row_xml() -> str:
    """The header (shared strings 1…) and one row whose name is shared string 0."""
    header = "".join(f'<c t="s"><v>{index}</v></c>' for index in range(1, len(HEADER) + 1))
    return (f'<row r="1">{header}</row><row r="2"><c t="inlineStr"><is><t>open</t></is></c><c t="s"><v>0</v></c>'
            '<c t="inlineStr"><is><t>kim@example.org</t></is></c><c><v>2001</v></c></row>')


def test_a_plain_hand_written_workbook_imports():
    """The hostile workbooks below differ from this one only in their declarations."""
    parsed = reading.read_registrations_file(name="players.xlsx",
                                             content=_workbook(_header_and_row_xml(), ["Kim", *HEADER]))
    assert [r[1:5] for r in parsed.rows] == [["open", "Kim", "kim@example.org", "2001"]]


@pytest.mark.parametrize("make", HOSTILE_WORKBOOKS.values(), ids=HOSTILE_WORKBOOKS.keys())
def test_a_workbook_declaring_a_dtd_or_entities_is_refused_before_parsing(make):
    with pytest.raises(limits.ImportFileError) as refused:
        reading.read_registrations_file(name="players.xlsx", content=make())
    assert refused.value.code == "xml_declarations"


@pytest.mark.parametrize("language", ["en", "ko", "zh-hant"])
@pytest.mark.parametrize("make", HOSTILE_WORKBOOKS.values(), ids=HOSTILE_WORKBOOKS.keys())
def test_an_uploaded_workbook_with_xml_declarations_gets_a_clear_message_and_nothing_is_imported(
        organiser_client, festival, events, make, language):
    organiser_client.cookies["django_language"] = language
    response = upload(organiser_client, festival, make(), "players.xlsx")
    assert response.status_code == 200
    with translation.override(language):
        expected = str(workbook.xml_declarations_refused().message)
    assert expected in form_errors(response).replace("&#x27;", "'")
    assert "DTD" in expected  # names what was refused, in every language
    assert not organiser_client.session.get("pending_imports") and not PendingImport.objects.exists()
    assert Registration.objects.count() == 0 and Player.objects.count() == 0


@pytest.mark.slow
def test_the_preview_waits_on_the_server_and_the_session_holds_only_its_key(organiser_client, festival, events):
    rows = [row(name=f"선수 {i}", contact=f"p{i}@example.org", affiliation="부산중학교" * 5) for i in range(500)]
    url, page = preview(organiser_client, festival, csv_bytes(rows))
    assert "500 valid" in page.content.decode()
    session = Session.objects.get(session_key=organiser_client.session.session_key)
    assert len(session.session_data) < 2000, len(session.session_data)
    key = url.rstrip("/").rsplit("/", 1)[-1]
    assert organiser_client.session["pending_imports"] == [key]
    assert PendingImport.objects.get(key=key).festival == festival
    assert confirm(organiser_client, url).status_code == 302
    assert not PendingImport.objects.exists() and organiser_client.session["pending_imports"] == []


def test_a_waiting_upload_is_only_for_the_session_that_sent_it(client, organiser_client, festival, events):
    url, _page = preview(organiser_client, festival, csv_bytes([row()]))
    client.force_login(make_staff(festival, ORGANISER))  # another organiser of the same festival
    response = client.post(url, {"action": "all", "consent_held": "on"})
    assert response.status_code == 302 and Registration.objects.count() == 0
    assert PendingImport.objects.count() == 1  # still waiting for the one who sent it


def test_a_waiting_upload_expires(organiser_client, festival, events):
    url, _page = preview(organiser_client, festival, csv_bytes([row()]))
    PendingImport.objects.update(created_at=timezone.now() - pending.KEPT_FOR - dt.timedelta(minutes=1))
    response = organiser_client.post(url, {"action": "all", "consent_held": "on"})
    assert response.status_code == 302 and Registration.objects.count() == 0
    preview(organiser_client, festival, csv_bytes([row()]))  # an upload clears the expired ones
    assert PendingImport.objects.count() == 1


def test_only_the_newest_uploads_of_an_organiser_wait(organiser_client, festival, events):
    urls = [preview(organiser_client, festival, csv_bytes([row(name=f"P{i}")]))[0]
            for i in range(pending.KEPT_PER_USER + 2)]
    assert PendingImport.objects.count() == pending.KEPT_PER_USER
    assert organiser_client.get(urls[0]).status_code == 302  # the oldest was forgotten
    assert organiser_client.get(urls[-1]).status_code == 200


def test_a_preview_larger_than_the_store_takes_is_refused(organiser_client, festival, events, monkeypatch):
    monkeypatch.setattr(pending, "MAX_STORED_CHARS", 1000)
    rows = [row(name=f"선수 {i}", contact=f"p{i}@example.org") for i in range(50)]
    response = upload(organiser_client, festival, csv_bytes(rows))
    assert response.status_code == 200 and "too large to preview" in form_errors(response)
    assert not PendingImport.objects.exists()


# --- permissions ---------------------------------------------------------------------------------------


def _urls(festival):
    return [
        reverse("manage-import", kwargs={"festival": festival.slug}),
        reverse("manage-import-preview", kwargs={"festival": festival.slug, "key": "k"}),
        reverse("manage-export", kwargs={"festival": festival.slug, "fmt": "csv"}),
    ]


def test_anonymous_is_sent_to_sign_in(client, festival, events):
    for url in _urls(festival):
        response = client.get(url)
        assert response.status_code == 302 and reverse("login") in response["Location"]
    response = client.post(_urls(festival)[0], {"file": _named(csv_bytes([row()]), "p.csv")})
    assert response.status_code == 302 and Registration.objects.count() == 0


def test_desk_volunteer_is_refused(client, festival, events):
    client.force_login(make_staff(festival, DESK))
    for url in _urls(festival):
        assert client.get(url).status_code == 403
    response = client.post(_urls(festival)[0], {"file": _named(csv_bytes([row()]), "p.csv")})
    assert response.status_code == 403
    assert client.post(_urls(festival)[1], {"action": "all", "consent_held": "on"}).status_code == 403


def test_organiser_of_another_festival_is_refused(client, festival, events):
    client.force_login(make_staff(make_festival(), ORGANISER))
    for url in _urls(festival):
        assert client.get(url).status_code == 403
    response = client.post(_urls(festival)[0], {"file": _named(csv_bytes([row()]), "p.csv")})
    assert response.status_code == 403 and Registration.objects.count() == 0


# --- export --------------------------------------------------------------------------------------------


def _registrations(festival, events, count):
    registrations = [make_registration(events["open"], make_player(festival, name=f"선수 {i}", contact=f"p{i}@example.org"))
                     for i in range(count)]
    return registrations


def _export(client, festival, fmt, **params):
    return client.get(reverse("manage-export", kwargs={"festival": festival.slug, "fmt": fmt}), params)


def test_csv_export_is_utf8_with_bom_in_registration_order_with_withdrawn(organiser_client, festival, events):
    first = make_registration(events["open"], make_player(festival, name="김민준", contact="+82 10-1234-5678", birth_year=2009),
                              consent_notice_version=3, consented_at=dt.datetime(2030, 10, 1, 3, 0, tzinfo=dt.UTC),
                              consent_by=Registration.ConsentBy.GUARDIAN, consent_how=Registration.ConsentHow.PAPER)
    make_registration(events["junior"], make_player(festival, name="陳大文", affiliation="@school"), status=S.WITHDRAWN)
    make_registration(events["pairs"], make_player(festival, name="=cmd|' /C calc'!A0", affiliation="-2+3"))
    first.checked_in_at, first.number = dt.datetime(2030, 11, 2, 1, 45, tzinfo=dt.UTC), 7
    first.save()
    response = _export(organiser_client, festival, "csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="busan-2030-registrations.csv"'
    assert response.content.startswith(b"\xef\xbb\xbf")
    data = tablib.Dataset().load(response.content.decode("utf-8-sig"), format="csv")
    assert data.headers == ["Event", "Name", "E-mail or phone", "Birth year", "School or club", "National ranking id",
                            "Parent's or guardian's name", "Parent's or guardian's e-mail or phone",
                            "Status", "Player number", "Checked in at", "Registered at", "Notice version agreed to",
                            "Agreed at", "Agreed by", "How agreed", "Guardian's agreement checked",
                            "Guardian agreed at", "Guardian who agreed"]
    assert data[0][:11] == ("open", "김민준", "'+82 10-1234-5678", "2009", "", "", "", "", "Registered", "7",
                            "2030-11-02 10:45")
    assert data[1][1] == "陳大文" and data[1][4] == "'@school" and data[1][8] == "Withdrawn"
    # Formula injection: every cell a spreadsheet would run starts with ' instead.
    assert data[2][1] == "'=cmd|' /C calc'!A0" and data[2][4] == "'-2+3"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", data[0][11])
    # What each registration agreed to, and who agreed (a child's guardian, on the desk's paper form).
    assert data[0][12:16] == ("3", "2030-10-01 12:00", str(Registration.ConsentBy.GUARDIAN.label),
                              str(Registration.ConsentHow.PAPER.label))
    assert data[1][12:] == ("", "", "", "", "", "", "")


def test_xlsx_export_has_the_same_rows_and_no_formulas(organiser_client, festival, events):
    make_registration(events["open"], make_player(festival, name="=HYPERLINK(\"http://evil\")", birth_year=2001))
    make_registration(events["junior"], make_player(festival, name="黃小明"))
    response = _export(organiser_client, festival, "xlsx", event="open")
    assert response["Content-Type"] == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    assert response["Content-Disposition"] == 'attachment; filename="busan-2030-open-registrations.xlsx"'
    sheet = openpyxl.load_workbook(io.BytesIO(response.content)).active
    rows = list(sheet.iter_rows(values_only=True))
    assert len(rows) == 2  # header + the one registration of `open`
    assert rows[1][:4] == ("open", "'=HYPERLINK(\"http://evil\")", rows[1][2], 2001)
    assert all(cell.data_type != "f" for line in sheet.iter_rows() for cell in line)


@pytest.mark.parametrize(("fmt", "params"), [("pdf", {}), ("csv", {"event": "nope"}), ("xlsx", {"event": "../open"})])
def test_export_of_unknown_format_or_event_is_not_found(organiser_client, festival, events, fmt, params):
    assert _export(organiser_client, festival, fmt, **params).status_code == 404


@pytest.mark.parametrize("count", [3, 300])
@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_export_query_count_does_not_grow_with_registrations(organiser_client, festival, events,
        django_assert_max_num_queries, count, fmt):
    _registrations(festival, events, count)
    # session, user, festival, roles (2), registrations with their events and players
    with django_assert_max_num_queries(6):
        response = _export(organiser_client, festival, fmt)
    assert response.status_code == 200


@pytest.mark.parametrize("count", [3, 300])
def test_preview_query_count_does_not_grow_with_rows(organiser_client, festival, events,
        django_assert_max_num_queries, count):
    _registrations(festival, events, 5)
    rows = [row(name=f"선수 {i}", contact=f"new{i}@example.org") for i in range(count)]
    url, _page = preview(organiser_client, festival, csv_bytes(rows))
    # session, user, festival, roles (2), the waiting upload, events, current registrations, places taken
    with django_assert_max_num_queries(9):
        page = organiser_client.get(url)
    assert f"{count} valid" in page.content.decode()


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_export_then_import_into_a_fresh_festival_round_trips_the_players(organiser_client, organiser,
        festival, events, fmt):
    events["pairs"].capacity = 1
    events["pairs"].save()
    actor = Actor(label="test")
    people = [
        ("김민준", "+82 10-1234-5678", 2009, "부산중학교", "KR-0001", "open"),
        ("陳大文", "chan@example.hk", 2007, "聖保羅書院", "", "junior"),
        ("Jane Smith", "+44 20 7946 0958", 1985, "=club", "-7", "pairs"),
        ("Wait Listed", "wait@example.org", 1990, "", "", "pairs"),
        ("Gone Away", "gone@example.org", 1991, "", "", "junior"),
    ]
    for name, contact, year, club, ranking, slug in people:
        details = PlayerDetails(name=name, contact=contact, birth_year=year, affiliation=club, ranking_id=ranking)
        register(event=events[slug], details=details, actor=actor, by_organiser=True)
    withdraw(registration=Registration.objects.get(player__name="Gone Away"), actor=actor, by_organiser=True)
    exported = _export(organiser_client, festival, fmt).content

    fresh = make_festival(slug="busan-2031")
    for event in events.values():
        make_event(fresh, slug=event.slug, name=event.name, start=event.starts_at,
                   hours=(event.ends_at - event.starts_at).seconds // 3600, capacity=event.capacity)
    StaffRole.objects.create(festival=fresh, user=organiser, role="organiser")
    url, page = preview(organiser_client, fresh, exported, name=f"export.{fmt}")
    assert "1 withdrawn row was skipped" in page.content.decode()
    assert confirm(organiser_client, url).status_code == 302

    def snapshot(fest):
        return sorted(
            Registration.objects.filter(event__festival=fest, status__in=Registration.ACTIVE).values_list(
                "event__slug", "player__name", "player__contact", "player__birth_year", "player__affiliation",
                "player__ranking_id", "status")
        )

    assert snapshot(fresh) == snapshot(festival)
    assert len(snapshot(fresh)) == 4
