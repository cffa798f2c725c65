"""Who a walk-in is (R9): a name is no identity (김민준 is common). A walk-in never silently becomes a person
already stored: when the typed name is the name of stored players of the festival, the desk is shown them and
chooses one of them or a new person; the stored person's details are never overwritten by what was typed, and
the age rules follow the person actually entered. The service (the desk's pages: test_desk_walk_in_matches.py)."""

import pytest

from tests.factories import EVENT_DAY, make_event, make_festival, make_player, make_registration
from tournament.formats.ranking import is_under_age
from tournament.models import AuditEntry, Event, Player, Registration
from tournament.services import ServiceError
from tournament.services.consent import Consent
from tournament.services.erasure import erase_player
from tournament.services.registration import PlayerDetails
from tournament.services.walk_in import PersonChoice, walk_in, walk_in_matches

pytestmark = pytest.mark.event_of(checkin_override=Event.CheckinOverride.OPEN)

By, How = Registration.ConsentBy, Registration.ConsentHow
PAPER_BY_GUARDIAN = Consent(by=By.GUARDIAN, how=How.PAPER)
PAPER_BY_PLAYER = Consent(by=By.PLAYER, how=How.PAPER)

EVENING = EVENT_DAY.replace(hour=19)  # after the Open: no clash (R9)


def child_year(festival) -> int:
    return festival.starts_on.year - 12


@pytest.fixture
def adult(event):
    """김민준, an adult registered online for another event of the festival."""
    masters = make_event(event.festival, slug="masters", name="Masters", start=EVENING, hours=2)
    player = make_player(event.festival, name="김민준", contact="minjun@example.kr", birth_year=1990,
                         affiliation="부산대학교")
    make_registration(masters, player)
    return player


def child(festival, **fields) -> PlayerDetails:
    """A twelve-year-old 김민준 at the desk with his mother, no contact of his own."""
    values = {"name": "김민준", "contact": "", "birth_year": child_year(festival), "affiliation": "해운대초등학교",
              "guardian_name": "김엄마", "guardian_contact": "010-9876-5432"}
    return PlayerDetails(**(values | fields))


def stored(player: Player) -> tuple:
    player.refresh_from_db()
    return (player.name, player.contact, player.birth_year, player.affiliation, player.guardian_name,
            player.guardian_contact)


def counts():
    return Player.objects.count(), Registration.objects.count(), AuditEntry.objects.count()


# --- The service --------------------------------------------------------------------------------------------


def test_a_walk_in_with_a_stored_players_name_and_no_contact_is_not_entered_until_the_desk_chooses(event, desk,
                                                                                                    adult):
    before, adults_details = counts(), stored(adult)
    with pytest.raises(ServiceError) as refusal:
        walk_in(event=event, details=child(event.festival), actor=desk, consent=PAPER_BY_GUARDIAN)
    assert refusal.value.code == "choose"
    assert counts() == before and stored(adult) == adults_details


def test_the_possible_matches_are_every_stored_player_of_that_name_with_what_identifies_them(event, desk, adult):
    other_festival = make_festival()
    make_player(other_festival, name="김민준")  # another festival: another list of people
    make_player(event.festival, name="김민서")  # a similar name is not the same name
    no_contact = make_player(event.festival, name="김 민준", contact="", birth_year=2015)
    make_registration(event, no_contact, status=Registration.Status.WITHDRAWN)
    matches = walk_in_matches(event=event, details=child(event.festival))
    assert [m.player for m in matches] == [adult, no_contact]
    adults, withdrawn = matches
    assert adults.events == ["Masters"] and withdrawn.events == []
    assert not adults.same_contact
    # What the desk typed and what is stored differ: the desk sees where (the stored values stay).
    assert adults.differences == ("birth_year", "affiliation", "contact", "guardian")
    assert withdrawn.differences == ("birth_year", "affiliation", "guardian")


def test_a_stored_player_whose_personal_data_was_erased_is_no_match(event, desk, adult):
    erase_player(player=adult, hide_in_results=False, actor=desk)
    assert walk_in_matches(event=event, details=child(event.festival)) == []


def test_a_new_person_is_made_though_name_and_empty_contact_are_the_same_and_gets_the_walk_ins_details(event, desk):
    earlier = make_player(event.festival, name="김민준", contact="", birth_year=1990, affiliation="부산대학교")
    earliers_details = stored(earlier)
    seen = frozenset({earlier.pk})
    registration = walk_in(event=event, details=child(event.festival), actor=desk, consent=PAPER_BY_GUARDIAN,
                           choice=PersonChoice(player_id=None, seen=seen))
    newcomer = registration.player
    assert newcomer.pk != earlier.pk and registration.checked_in_at is not None
    assert stored(newcomer) == ("김민준", "", child_year(event.festival), "해운대초등학교", "김엄마", "010-9876-5432")
    assert stored(earlier) == earliers_details
    entry = AuditEntry.objects.get(action="registration.walk_in")
    assert entry.after["person"] == {"match": "new", "player": newcomer.pk, "matches_shown": [earlier.pk]}


def test_the_chosen_person_is_entered_and_what_was_typed_never_overwrites_their_details(event, desk):
    stored_child = make_player(event.festival, name="김민준", contact="mum@example.kr",
                               birth_year=child_year(event.festival) + 1, affiliation="해운대초등학교",
                               guardian_name="김아빠", guardian_contact="dad@example.kr")
    details_before = stored(stored_child)
    typed = child(event.festival, contact="010-1111-2222", affiliation="해운대초")
    registration = walk_in(event=event, details=typed, actor=desk, consent=PAPER_BY_GUARDIAN,
                           choice=PersonChoice(player_id=stored_child.pk, seen=frozenset({stored_child.pk})))
    assert registration.player_id == stored_child.pk and registration.checked_in_at is not None
    assert stored(stored_child) == details_before
    assert Player.objects.count() == 1
    entry = AuditEntry.objects.get(action="registration.walk_in")
    assert entry.after["person"] == {"match": "existing", "player": stored_child.pk,
                                     "matches_shown": [stored_child.pk]}


def test_the_same_name_and_contact_is_offered_as_the_likely_match_and_still_not_merged_silently(event, desk, adult):
    same = PlayerDetails(name="김민준", contact="MinJun@Example.kr", birth_year=1990)
    before = counts()
    with pytest.raises(ServiceError) as refusal:
        walk_in(event=event, details=same, actor=desk, consent=PAPER_BY_PLAYER)
    assert refusal.value.code == "choose" and counts() == before
    [match] = walk_in_matches(event=event, details=same)
    assert match.player == adult and match.same_contact and match.differences == ("affiliation",)
    registration = walk_in(event=event, details=same, actor=desk, consent=PAPER_BY_PLAYER,
                           choice=PersonChoice(player_id=adult.pk, seen=frozenset({adult.pk})))
    assert registration.player_id == adult.pk


def test_a_choice_made_before_the_matches_changed_is_refused_and_nothing_changes(event, desk, adult):
    seen = frozenset({adult.pk})
    make_player(event.festival, name="김민준", contact="", birth_year=2016)  # another desk, a moment ago
    before = counts()
    for player_id in (None, adult.pk):
        with pytest.raises(ServiceError) as refusal:
            walk_in(event=event, details=child(event.festival), actor=desk, consent=PAPER_BY_GUARDIAN,
                    choice=PersonChoice(player_id=player_id, seen=seen))
        assert refusal.value.code == "choose"
    assert counts() == before


def test_only_a_player_among_the_matches_can_be_chosen(event, desk, adult):
    someone_else = make_player(event.festival, name="박지훈")
    stranger = make_player(make_festival(), name="김민준")
    before = counts()
    for player_id in (someone_else.pk, stranger.pk, 10**9):
        with pytest.raises(ServiceError) as refusal:
            walk_in(event=event, details=child(event.festival), actor=desk, consent=PAPER_BY_GUARDIAN,
                    choice=PersonChoice(player_id=player_id, seen=frozenset({adult.pk})))
        assert refusal.value.code == "choose"
    assert counts() == before


def test_without_matches_a_choice_of_a_player_is_refused(event, desk):
    someone_else = make_player(event.festival, name="박지훈")
    with pytest.raises(ServiceError) as refusal:
        walk_in(event=event, details=child(event.festival), actor=desk, consent=PAPER_BY_GUARDIAN,
                choice=PersonChoice(player_id=someone_else.pk, seen=frozenset()))
    assert refusal.value.code == "choose" and Registration.objects.count() == 0


def test_the_age_rules_follow_the_person_entered_a_stored_child_needs_the_guardians_consent(event, desk):
    """R9: typed as an adult, but the stored person chosen is a child: a guardian's consent is needed, and the
    registration is the child's (under 15: no ranking points)."""
    stored_child = make_player(event.festival, name="김민준", contact="", birth_year=child_year(event.festival),
                               guardian_name="김엄마", guardian_contact="010-9876-5432")
    as_adult = child(event.festival, birth_year=1990, guardian_name="", guardian_contact="")
    choice = PersonChoice(player_id=stored_child.pk, seen=frozenset({stored_child.pk}))
    with pytest.raises(ServiceError) as refusal:
        walk_in(event=event, details=as_adult, actor=desk, consent=PAPER_BY_PLAYER, choice=choice)
    assert refusal.value.code == "guardian" and Registration.objects.count() == 0
    registration = walk_in(event=event, details=as_adult, actor=desk, consent=PAPER_BY_GUARDIAN, choice=choice)
    assert registration.player.birth_year == child_year(event.festival)
    assert is_under_age(event.starts_at.year, registration.player.birth_year)


def test_the_age_rules_follow_the_person_entered_a_stored_adult_keeps_no_guardian(event, desk, adult):
    registration = walk_in(event=event, details=child(event.festival), actor=desk, consent=PAPER_BY_PLAYER,
                           choice=PersonChoice(player_id=adult.pk, seen=frozenset({adult.pk})))
    adult.refresh_from_db()
    assert registration.player_id == adult.pk and (adult.guardian_name, adult.guardian_contact) == ("", "")
    assert not is_under_age(event.starts_at.year, adult.birth_year)


def test_a_stored_child_without_a_guardian_gets_the_guardian_who_signed_at_the_desk(event, desk):
    """Registered before guardians were asked: the guardian is added (never replaces one)."""
    stored_child = make_player(event.festival, name="김민준", contact="", birth_year=child_year(event.festival))
    walk_in(event=event, details=child(event.festival), actor=desk, consent=PAPER_BY_GUARDIAN,
            choice=PersonChoice(player_id=stored_child.pk, seen=frozenset({stored_child.pk})))
    stored_child.refresh_from_db()
    assert (stored_child.guardian_name, stored_child.guardian_contact) == ("김엄마", "010-9876-5432")
    assert AuditEntry.objects.get(action="registration.walk_in").after["person"]["guardian_added"] is True


def test_choosing_a_player_already_in_the_event_is_refused_as_a_second_entry(event, desk, adult):
    make_registration(event, adult)
    before = counts()
    with pytest.raises(ServiceError) as refusal:
        walk_in(event=event, details=child(event.festival), actor=desk, consent=PAPER_BY_PLAYER,
                choice=PersonChoice(player_id=adult.pk, seen=frozenset({adult.pk})))
    assert refusal.value.code == "duplicate" and counts() == before


def test_a_phone_number_typed_another_way_is_still_the_same_contact(event):
    """At a Korean festival 010-… and +82 10 … are one number, as the stored keys read them."""
    stored = make_player(event.festival, name="정하은", contact="010-4444-5555", birth_year=1990)
    details = PlayerDetails(name="정하은", contact="+82 10 4444 5555", birth_year=1990)
    [match] = walk_in_matches(event=event, details=details)
    assert match.player == stored and match.same_contact and "contact" not in match.differences
