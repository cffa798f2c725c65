"""Names someone can see: a name made only of blank or invisible characters (the Hangul fillers, the blank
Braille pattern, zero-width joiners, spaces of any width, combining marks with nothing to sit on) is refused
with one message wherever the app takes a name — players, guardians, festivals, events, timetable slots,
imported rows, the accounts it makes — and the notice-version field of the consent forms, when tampered with,
is answered with a message on the form."""

import html
import re

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import translation

from tests.factories import make_player, make_staff, open_event
from tests.tournament.test_consent import ADULT, GUARDIAN, register_url, stored, twelve_year_old_born
from tests.tournament.test_festival_forms import (
    creator,
    event_url,
    festival_data,
    new_event_url,
    posted,
    rows,
)
from tests.tournament.test_imports import csv_bytes, preview, row_html
from tournament.forms.registration import EnterAgainForm
from tournament.models import Event, Festival, Registration
from tournament.visible_names import is_invisible, validate_visible_name

pytestmark = pytest.mark.django_db

INVISIBLE_NAMES = {
    "hangul-filler": "\u3164",
    "hangul-fillers-and-spaces": " \u3164 \u3164 ",
    "choseong-jungseong-fillers": "\u115f\u1160",
    "halfwidth-hangul-filler": "\uffa0",
    "braille-blank": "\u2800\u2800",
    "zero-width-joiners": "\u200d\u200c\u200d",
    "zero-width-space": "\u200b",
    "word-joiner-and-bom": "\u2060\ufeff",
    "ideographic-space": "\u3000",
    "combining-marks-alone": "\u0301\u0308",
    "variation-selector": "\ufe0f",
    "combining-grapheme-joiner": "\u034f",
    "tag-space": "\U000e0020",
}
# A form strips ordinary whitespace first: a name of spaces alone is an empty one ("This field is required").
NOT_EMPTY_ONCE_STRIPPED = {key: name for key, name in INVISIBLE_NAMES.items() if name.strip()}
VISIBLE_NAMES = ["김민준", "陳大文", "O'Brien", "A", "\u3164A", "Kim \u200dLee", "क्\u200dष", "ㄱ"]
MESSAGE = "only blank or invisible characters"


@pytest.mark.parametrize("name", INVISIBLE_NAMES.values(), ids=INVISIBLE_NAMES.keys())
def test_a_name_of_only_invisible_characters_is_refused(name):
    assert all(is_invisible(ch) for ch in name)
    with pytest.raises(ValidationError) as refused:
        validate_visible_name(name)
    assert refused.value.code == "invisible" and MESSAGE in refused.value.messages[0]


@pytest.mark.parametrize("name", VISIBLE_NAMES)
def test_a_name_with_anything_visible_passes(name):
    validate_visible_name(name)


def test_the_message_speaks_the_readers_language():
    for language in ("ko", "zh-hant"):
        with translation.override(language), pytest.raises(ValidationError) as refused:
            validate_visible_name("\u3164")
        assert MESSAGE not in refused.value.messages[0]


def _errors(response, field) -> str:
    return " ".join(str(e) for e in response.context["form"].errors.get(field, []))


@pytest.mark.parametrize("name", NOT_EMPTY_ONCE_STRIPPED.values(), ids=NOT_EMPTY_ONCE_STRIPPED.keys())
def test_a_player_and_a_guardian_need_a_visible_name(client, name):
    event = open_event()
    response = client.post(register_url(event), ADULT | {"name": name})
    assert response.status_code == 200 and MESSAGE in _errors(response, "name")
    child = ADULT | GUARDIAN | {"birth_year": twelve_year_old_born(event.festival), "guardian_name": name}
    response = client.post(register_url(event), child)
    assert response.status_code == 200 and MESSAGE in _errors(response, "guardian_name")
    assert stored() == (0, 0)


@pytest.mark.parametrize("name", ["\u3164", "\u2800", "\u200d"], ids=["hangul-filler", "braille", "zwj"])
def test_a_festival_and_an_event_need_a_visible_name(client, festival, name):
    client.force_login(creator())
    response = client.post(reverse("manage-festival-new"), festival_data(name=name))
    assert response.status_code == 200 and MESSAGE in _errors(response, "name")
    assert Festival.objects.count() == 1
    client.force_login(make_staff(festival, "organiser"))
    form = client.get(new_event_url(festival), {"preset": "busan"}).context["form"]
    response = client.post(new_event_url(festival), posted(form.initial, festival.tzinfo) | {"name": name})
    assert response.status_code == 200 and MESSAGE in _errors(response, "name")
    assert not Event.objects.filter(festival=festival).exists()


def test_an_added_timetable_slot_needs_a_visible_name(organiser_client_of_event, event):
    data = rows(event, organiser_client_of_event) | {"slot-4-label": "\u3164", "slot-4-starts": "12:00",
                                                      "slot-4-ends": "12:30"}
    response = organiser_client_of_event.post(event_url("manage-event-schedule", event), data)
    assert response.status_code == 200
    errors = [" ".join(form.errors.get("label", [])) for form in response.context["formset"].forms]
    assert any(MESSAGE in error for error in errors), errors
    event.refresh_from_db()
    assert event.timetable == []


@pytest.fixture
def organiser_client_of_event(client, event):
    client.force_login(make_staff(event.festival, "organiser"))
    return client


def test_an_imported_row_needs_a_visible_name(organiser_client_of_event, festival, event):
    header = ["event", "name", "contact", "birth_year", "affiliation", "ranking_id"]
    content = csv_bytes([["open", "\u3164\u3164", "filler@example.org", "2000", "", ""],
                         ["open", "김민준", "minjun@example.org", "2000", "", ""]], header=header)
    _url, page = preview(organiser_client_of_event, festival, content)
    assert "table-danger" in row_html(page, 2) and MESSAGE in html.unescape(row_html(page, 2))
    assert "table-danger" not in row_html(page, 3)


def test_an_account_made_by_the_command_needs_a_visible_username():
    with pytest.raises(CommandError, match=MESSAGE):
        call_command("add_organiser", "\u3164", "--create", "--password", "pw-for-tests-only")
    assert not User.objects.exists()


# --- the notice version the consent forms send back -------------------------------------------------------

TAMPERED_VERSIONS = ["", "abc", "0", "-1", "9" * 30, "1.5"]
VERSION_MESSAGE = "could not tell which version of the collection notice"


@pytest.mark.parametrize("version", TAMPERED_VERSIONS)
def test_a_tampered_notice_version_is_answered_with_a_message_on_the_public_form(client, version):
    event = open_event()
    response = client.post(register_url(event), ADULT | {"notice_version": version})
    page = html.unescape(response.content.decode())
    assert response.status_code == 200 and VERSION_MESSAGE in page
    # The form comes back with the version shown, to be agreed to again: sending it then registers.
    assert f'name="notice_version" value="{event.festival.privacy_notice_version}"' in page
    assert "checked" not in re.search(r'<input[^>]*name="agree"[^>]*>', page).group(0)
    assert stored() == (0, 0)
    assert client.post(register_url(event), ADULT).status_code == 302


@pytest.mark.parametrize("version", TAMPERED_VERSIONS)
def test_a_tampered_notice_version_is_answered_with_a_message_on_the_personal_page(client, festival, version):
    event = open_event(festival)
    player = make_player(festival)
    url = reverse("player-enter", kwargs={"token": player.token, "event": event.slug})
    response = client.post(url, {"notice_version": version, "agree": "on"})
    assert response.status_code == 200 and VERSION_MESSAGE in html.unescape(response.content.decode())
    assert not Registration.objects.filter(event=event).exists()
    form = EnterAgainForm({"notice_version": version, "agree": "on"}, player=player)
    assert not form.is_valid() and VERSION_MESSAGE in " ".join(form.non_field_errors())
