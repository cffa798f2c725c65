"""Hostile text in every free-text column is shown escaped on every page, and never runs as a formula in a
download.

The fuzzer of test_fuzz_endpoints stores text only where a form accepts it; this test puts a tag in every
free-text column directly (names, venues, reasons, notes, audit labels, accepted warnings …), as if it had
come in through some other way, then walks every page of the festival as a superuser and as a stranger.
"""

import csv
import io

import pytest
from django.apps import apps
from django.db import models
from django.test import Client
from openpyxl import load_workbook

from scoring.models import ScoreSheet
from tests.fuzz.coverage import event_pages
from tests.fuzz.engine import check_answer
from tournament.models import AuditEntry, Player

pytestmark = pytest.mark.django_db

# Columns the app fills with its own codes, or that the rules engine parses (tiles, words: checked on input).
NOT_FREE_TEXT = {"action", "target_type", "algorithm_version", "idempotency_key", "tiles", "words", "password", "email",
                 "codename", "guardian_language"}
PUBLIC_PREFIXES = ("/f/", "/p/", "/t/", "/api/", "/season/")


def hostile(label: str) -> str:
    """A formula start for spreadsheets and a tag for browsers, naming where it was put."""
    return f'=1+"><x-{label}>'


def free_text_fields():
    for app in ("tournament", "scoring", "auth"):
        for model in apps.get_app_config(app).get_models():
            for field in model._meta.concrete_fields:
                if (isinstance(field, models.CharField | models.TextField) and not field.choices
                        and field.editable and not isinstance(field, models.SlugField)
                        and field.name not in NOT_FREE_TEXT and model._meta.label != "auth.Permission"):
                    yield model, field


def plant_hostile_text() -> list[str]:
    """Every free-text value of every row replaced by hostile text; returns the labels planted."""
    labels = []
    for model, field in free_text_fields():
        label = f"{model._meta.model_name}-{field.name}"
        labels.append(label)
        for obj in model.objects.all():
            value = f"{hostile(label)}{obj.pk}"  # unique per row: names and contacts identify players
            value = value[: field.max_length] if field.max_length else value  # PostgreSQL refuses longer text
            setattr(obj, field.attname, value)
            obj.save() if model is Player else model.objects.filter(pk=obj.pk).update(**{field.attname: value})
    # Structured text the pages show: an unknown audit action and detail, accepted warnings' messages.
    AuditEntry.objects.update(action=hostile("audit-action"), after={"override": hostile("audit-after")})
    ScoreSheet.objects.update(warnings=[{"code": hostile("warning-code"), "message": hostile("warning"), "seat": 1}])
    return labels


def check_download(response, where: str) -> None:
    """A download is never HTML, is sniff-proof, and no hostile cell starts a formula."""
    content_type = response.get("Content-Type", "")
    assert "html" not in content_type and response.get("X-Content-Type-Options") == "nosniff", where
    if "csv" in content_type:
        text = response.content.decode("utf-8-sig")
        for row in csv.reader(io.StringIO(text)):
            for cell in row:
                assert not cell.startswith("=1+"), f"{where}: a formula cell {cell!r}"
    elif "spreadsheet" in content_type:
        book = load_workbook(io.BytesIO(response.content))
        for sheet in book.worksheets:
            for row in sheet.iter_rows():
                for cell in row:
                    assert cell.data_type != "f", f"{where}: a formula cell {cell.coordinate} {cell.value!r}"


@pytest.mark.slow
def test_hostile_text_everywhere_is_shown_escaped_on_every_page(world):
    planted = plant_hostile_text()
    assert "player-name" in planted and "conductrecord-note" in planted and "auditentry-reason" in planted
    superuser, stranger = Client(), Client()
    superuser.force_login(world.user("superuser"))
    seen_marker = 0
    for name in ("classic", "word", "players", "finished", "open"):
        event = world.event(name)
        sheets = list(ScoreSheet.objects.filter(stage__event=event).values_list("pk", flat=True)[:3])
        tokens = world.answering_tokens(event)[:2] or list(
            Player.objects.filter(registrations__event=event).values_list("token", flat=True)[:2])
        for page in event_pages(world, event, sheet_ids=sheets, tokens=tokens):
            clients = [superuser, stranger] if page.startswith(PUBLIC_PREFIXES) else [superuser]
            for client in clients:
                response = client.get(page)
                where = f"GET {page} ({'stranger' if client is stranger else 'superuser'})"
                check_answer(response, where)
                body = response.content if not getattr(response, "streaming", False) else b""
                if "html" in response.get("Content-Type", ""):
                    assert b"<x-" not in body, f"{where}: a planted tag is shown unescaped"
                    seen_marker += b"&lt;x-" in body
                elif response.status_code == 200:
                    check_download(response, where)
    assert seen_marker > 50  # the pages did show the planted text (escaped), so the test looked at something

