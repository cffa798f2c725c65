"""Results given to a ranking body (Korea's PIPA art. 17, 제3자 제공; Hong Kong's PDPO, 資料轉移): only when the
festival names one, said in its own section of the notice, agreed to with a separate, optional tick box — on
the form, the guardian's page, the desk's paper form — and changed at any time from the personal page.

Festivals start on 2030-11-02 with guardian age 14 unless said otherwise: born 2018 is a child.
"""

import html
import re

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone, translation

from tests.factories import make_festival, make_player, make_registration, make_staff, open_event
from tests.tournament.test_festival_forms import creator, festival_data
from tests.tournament.test_guardian import LINK, PUBLIC, child
from tournament.forms.desk import WalkInForm
from tournament.models import AuditEntry, Event, Festival, Player, Registration
from tournament.notice import notice_for
from tournament.permissions import DESK, ORGANISER
from tournament.services import ServiceError
from tournament.services.audit import Actor
from tournament.services.consent import Consent
from tournament.services.festivals import update_festival
from tournament.services.ranking_consent import set_results_to_ranking
from tournament.services.registration import PlayerDetails, register
from tournament.services.walk_in import PersonChoice, walk_in

pytestmark = pytest.mark.django_db

By, How = Registration.ConsentBy, Registration.ConsentHow
RANKING = {"ranking_recipient": "루미큐브 한국랭킹 (코리아보드게임즈)",
           "ranking_recipient_keeps": "랭킹을 공개하는 동안"}
ADULT = {"name": "김민준", "contact": "minjun@example.kr", "birth_year": "2000", "affiliation": "", "ranking_id": "",
         "agree": "on", "notice_version": "1"}


def text(response) -> str:
    return html.unescape(response.content.decode())


def register_url(event):
    return reverse("event-register", kwargs={"festival": event.festival.slug, "event": event.slug})


def ranking_url(player):
    return reverse("player-results-to-ranking", kwargs={"token": player.token})


def ranked_festival(**fields) -> Festival:
    return make_festival(contact="info@busan.kr", **(RANKING | fields))


# --- the notice and the form -----------------------------------------------------------------------------------


def test_without_a_ranking_body_the_notice_says_nothing_leaves_the_organisers_and_asks_nothing(client):
    event = open_event(make_festival(contact="info@busan.kr"))
    page = text(client.get(register_url(event)))
    assert "they are not passed to anyone else" in page
    assert 'id="notice-third-party"' not in page and 'name="ranking_agrees"' not in page
    client.post(register_url(event), ADULT)
    assert Player.objects.get().results_to_ranking is None  # never asked


def test_a_named_ranking_body_has_its_own_section_and_its_own_unticked_optional_box(client):
    event = open_event(ranked_festival())
    page = text(client.get(register_url(event)))
    section = page[page.index('id="notice-third-party"'):]
    section = section[:section.index("</dl>")]
    # PIPA art. 17(2): who receives, what, why, how long, the right to refuse and what follows.
    for said in ("Giving results to a third party", "루미큐브 한국랭킹 (코리아보드게임즈)", "birth year",
                 "ranking id", "count toward its ranking", "랭킹을 공개하는 동안", "You may refuse"):
        assert said in section, said
    assert "except the results given for the ranking with your separate agreement" in page
    box = re.search(r'<input type="checkbox" name="ranking_agrees"[^>]*>', page).group(0)
    assert "checked" not in box and "required" not in box
    assert page.index('name="agree"') < page.index('name="ranking_agrees"')


def test_the_korean_and_hong_kong_notices_use_the_laws_headings():
    festival = ranked_festival()
    with translation.override("ko"):
        heading, body = notice_for(festival).third_party
        assert heading == "개인정보의 제3자 제공" and "거부" in body
    with translation.override("zh-hant"):
        heading, _body = notice_for(festival).third_party
        assert heading == "向第三者轉移資料"


def test_refusing_the_ranking_still_registers_and_agreeing_is_stored_and_logged(client):
    event = open_event(ranked_festival())
    client.post(register_url(event), ADULT)
    refused = Player.objects.get()
    assert refused.results_to_ranking is False and Registration.objects.get(player=refused).status == "registered"
    client.post(register_url(event), ADULT | {"name": "이서연", "contact": "seoyeon@example.kr", "ranking_agrees": "on"})
    agreed = Player.objects.get(name="이서연")
    assert agreed.results_to_ranking is True and agreed.results_to_ranking_at is not None
    entry = AuditEntry.objects.get(action="registration.created", target_id=agreed.registrations.get().pk)
    assert entry.after["results_to_ranking"] is True


def test_the_organiser_must_say_how_long_the_ranking_body_keeps_results(client):
    client.force_login(creator())
    response = client.post(reverse("manage-festival-new"), festival_data(
        slug="ranked-2030", ranking_recipient="루미큐브 한국랭킹", ranking_recipient_keeps=""))
    assert response.status_code == 200 and not Festival.objects.filter(slug="ranked-2030").exists()
    assert "Say how long the ranking body keeps the results" in text(response)


def test_naming_or_changing_the_ranking_body_is_a_new_version_of_the_notice(client):
    festival = make_festival(contact="info@busan.kr")
    values = {name: getattr(festival, name) for name in (
        "name", "slug", "starts_on", "ends_on", "venue", "contact", "timezone", "languages", "privacy_notice",
        "guardian_age", "retention_days", "guardian_hold_days", "ranking_recipient", "ranking_recipient_keeps")}
    actor = Actor(user=make_staff(festival, ORGANISER))
    update_festival(festival=festival, values=values | RANKING, actor=actor)
    festival.refresh_from_db()
    assert festival.privacy_notice_version == 2
    update_festival(festival=festival, values=values | RANKING | {"venue": "벡스코"}, actor=actor)
    festival.refresh_from_db()
    assert festival.privacy_notice_version == 2  # the venue is not in the notice


def test_a_festival_without_a_contact_never_points_to_the_desk():
    festival = make_festival(contact="")  # saved before the form asked for one
    for language, desk in (("en", "desk"), ("ko", "접수처"), ("zh-hant", "報到處")):
        with translation.override(language):
            notice = notice_for(festival)
            assert not any(desk in heading + body for heading, body in notice.sections), language


# --- the guardian, the desk ----------------------------------------------------------------------------------


def test_the_guardian_answers_the_ranking_question_for_the_child(client, django_capture_on_commit_callbacks):
    event = open_event(ranked_festival())
    with django_capture_on_commit_callbacks(execute=True):
        register(event=event, details=child(), actor=PUBLIC, now=timezone.now(),
                 consent=Consent(by=By.GUARDIAN, how=How.ONLINE, language="ko", ranking=True))
    url = LINK.search(mail.outbox[-1].body).group(1)
    page = text(client.get(url))
    assert re.search(r'<input type="checkbox" name="ranking_agrees"[^>]*checked', page)  # as the child's form said
    client.post(url, {"name": "김보호", "agree": "on"})  # the guardian unticks it
    player = Player.objects.get()
    assert player.results_to_ranking is False
    assert AuditEntry.objects.get(action="registration.guardian_agreed").after["results_to_ranking"] is False


@pytest.mark.event_of(checkin_override=Event.CheckinOverride.OPEN)
def test_at_the_desk_an_unticked_box_keeps_what_a_stored_person_said(event):
    festival = event.festival
    Festival.objects.filter(pk=festival.pk).update(**RANKING)
    event.festival.refresh_from_db()
    stored = make_player(festival, name="이서연", contact="", birth_year=2000, results_to_ranking=True)
    form = WalkInForm({"name": "이서연", "birth_year": "2000", "contact": "", "affiliation": "", "agree": "on",
                       "person": str(stored.pk), "seen": str(stored.pk)}, event=event)
    assert "ranking_agrees" in form.fields and form.is_valid()
    consent = form.given_consent()
    assert consent.ranking is None
    desk = Actor(user=make_staff(festival, DESK))
    walk_in(event=event, details=PlayerDetails(name="이서연", contact="", birth_year=2000), actor=desk,
            consent=consent, choice=PersonChoice(player_id=stored.pk, seen=frozenset({stored.pk})))
    stored.refresh_from_db()
    assert stored.results_to_ranking is True
    ticked = WalkInForm({"name": "박지호", "birth_year": "2000", "contact": "", "affiliation": "", "agree": "on",
                         "ranking_agrees": "on"}, event=event)
    assert ticked.is_valid() and ticked.given_consent().ranking is True


# --- the personal page ---------------------------------------------------------------------------------------


def test_a_player_withdraws_and_gives_again_the_agreement_from_the_personal_page(client):
    event = open_event(ranked_festival())
    player = make_player(event.festival, birth_year=1990, results_to_ranking=True)
    make_registration(event, player)
    page = text(client.get(player.get_absolute_url()))
    assert "You agreed that your name" in page and "Withdraw my agreement" in page
    client.post(ranking_url(player), {"agrees": "no"})
    player.refresh_from_db()
    assert player.results_to_ranking is False
    assert "Your results will not be given to 루미큐브 한국랭킹" in text(client.get(player.get_absolute_url()))
    client.post(ranking_url(player), {"agrees": "yes"})
    player.refresh_from_db()
    assert player.results_to_ranking is True
    actions = list(AuditEntry.objects.filter(target_id=player.pk, action__startswith="player.ranking")
                   .order_by("at", "id").values_list("action", "actor_label"))
    assert actions == [("player.ranking_withdrawn", "player link"), ("player.ranking_agreed", "player link")]


def test_a_child_may_withdraw_but_only_a_guardian_agrees():
    festival = ranked_festival()
    player = make_player(festival, birth_year=2018, results_to_ranking=None)
    with pytest.raises(ServiceError) as refused:
        set_results_to_ranking(player=player, agrees=True, actor=PUBLIC)
    assert refused.value.code == "guardian"
    player.refresh_from_db()
    assert player.results_to_ranking is None
    set_results_to_ranking(player=player, agrees=False, actor=PUBLIC)
    player.refresh_from_db()
    assert player.results_to_ranking is False


def test_the_personal_page_shows_no_agree_button_to_a_child(client):
    event = open_event(ranked_festival())
    player = make_player(event.festival, birth_year=2018, results_to_ranking=False)
    make_registration(event, player)
    page = text(client.get(player.get_absolute_url()))
    assert "A parent or guardian can agree to it" in page and 'name="agrees" value="yes"' not in page


@pytest.mark.parametrize("data", [{}, {"agrees": "maybe"}, {"agrees": "yes" * 100}])
def test_nonsense_or_no_ranking_body_changes_nothing(client, data):
    player = make_player(ranked_festival(), results_to_ranking=False)
    response = client.post(ranking_url(player), data, follow=True)
    assert response.status_code == 200 and "Nothing was changed" in text(response)
    player.refresh_from_db()
    assert player.results_to_ranking is False
    plain = make_player(make_festival(contact="x@example.kr"))
    response = client.post(ranking_url(plain), {"agrees": "yes"}, follow=True)
    assert "gives results to no ranking body" in text(response)
    plain.refresh_from_db()
    assert plain.results_to_ranking is None


def test_the_organiser_is_told_the_notice_names_no_contact(client):
    festival = make_festival(contact="")
    client.force_login(make_staff(festival, ORGANISER))
    page = text(client.get(reverse("manage-festival", kwargs={"festival": festival.slug})))
    assert 'id="notice-needs-contact"' in page
    Festival.objects.filter(pk=festival.pk).update(contact="info@busan.kr")
    page = text(client.get(reverse("manage-festival", kwargs={"festival": festival.slug})))
    assert 'id="notice-needs-contact"' not in page
