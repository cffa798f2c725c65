"""One contact, however it is spelled: phone numbers read with the festival's country (phonenumbers), e-mail
addresses without case. The key decides who is the same person (imports, the desk) and what an erasure finds."""

import importlib

import pytest
from django.apps import apps
from django.utils import timezone

from tests.factories import make_event, make_festival, make_player, make_registration, make_staff
from tournament.models import PendingImport, Player
from tournament.models.festival import TIMEZONE_CHOICES
from tournament.models.registration import contact_key
from tournament.services.audit import Actor
from tournament.services.erasure import erase_player

pytestmark = pytest.mark.django_db

KOREAN_SPELLINGS = ["+82 10-4444-5555", "010 4444 5555", "０１０-４４４４-５５５５", "01044445555", "010-4444-5555"]


def test_every_spelling_of_a_korean_mobile_number_has_one_key_at_a_korean_festival():
    festival = make_festival(timezone="Asia/Seoul")
    keys = {make_player(festival, name=f"P{i}", contact=spelling).contact_key
            for i, spelling in enumerate(KOREAN_SPELLINGS)}
    assert keys == {"+821044445555"}


def test_a_local_number_is_read_in_the_festival_s_own_country():
    hong_kong = make_festival(timezone="Asia/Hong_Kong")
    seoul = make_festival(timezone="Asia/Seoul")
    assert make_player(hong_kong, contact="9123 4567").contact_key == "+85291234567"
    assert make_player(hong_kong, contact="+852 9123-4567").contact_key == "+85291234567"
    assert make_player(seoul, contact="+852 9123 4567").contact_key == "+85291234567"
    assert make_player(seoul, contact="9123 4567").contact_key != "+85291234567"


def test_every_festival_time_zone_but_utc_names_a_country_for_phone_numbers():
    festival = make_festival()
    for zone, _label in TIMEZONE_CHOICES:
        festival.timezone = zone
        assert (festival.phone_region is None) == (zone == "UTC"), zone


def test_without_a_country_a_number_with_its_country_code_is_still_read_and_others_keep_their_digits():
    assert contact_key("+82 10-4444-5555") == contact_key("010 4444 5555", "KR") == "+821044445555"
    assert contact_key("010 4444 5555") == "01044445555"


def test_e_mail_addresses_are_compared_without_case_or_width():
    festival = make_festival()
    assert make_player(festival, contact="Kim@Example.com").contact_key == "kim@example.com"
    assert contact_key("ｋｉｍ＠ｅｘａｍｐｌｅ.com") == contact_key("kim@example.com")


@pytest.mark.parametrize("spelling", ["010 4444 5555", "０１０-４４４４-５５５５", "+82 10-4444-5555", "01044445555"])
def test_erasing_my_data_deletes_uploads_that_spell_my_contact_differently(spelling):
    festival = make_festival(timezone="Asia/Seoul")
    event = make_event(festival)
    player = make_registration(event, make_player(festival, contact="010-4444-5555")).player
    organiser = make_staff(festival, "organiser")

    def upload(key, contact):
        return PendingImport.objects.create(key=key * 20, festival=festival, uploaded_by=organiser,
                                            file_name="a.csv", rows=[[2, event.slug, "Someone", contact, "1988"]])

    naming_me = upload("a", spelling)
    someone_else = upload("b", "010 4444 5556")

    erasure = erase_player(player=player, hide_in_results=False, actor=Actor(label="test"),
                           now=event.starts_at + timezone.timedelta(days=1))

    assert erasure.pending_imports == 1
    assert not PendingImport.objects.filter(pk=naming_me.pk).exists()
    assert PendingImport.objects.filter(pk=someone_else.pk).exists()


def test_the_migration_recomputes_the_keys_stored_before():
    festival = make_festival(timezone="Asia/Seoul")
    typed = make_player(festival, contact="010 4444 5555")
    mail = make_player(festival, contact="Kim@Example.com")
    erased = make_player(festival, contact="")
    Player.objects.filter(pk=typed.pk).update(contact_key="01044445555")  # as digits-only keys were stored
    Player.objects.filter(pk=erased.pk).update(contact_key=f"erased:{erased.pk}")
    migration = importlib.import_module("tournament.migrations.0019_player_identity")

    migration.recompute_contact_keys(apps, schema_editor=None)

    keys = dict(Player.objects.values_list("pk", "contact_key"))
    assert keys == {typed.pk: "+821044445555", mail.pk: "kim@example.com", erased.pk: f"erased:{erased.pk}"}
