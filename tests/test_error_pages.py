"""The error pages say what to do next, in the reader's language: a personal link that does not work sends the
player to the desk; a refusal tells a signed-in person which account they use and leads to My work, someone
signed out to the sign-in page."""

from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from tests.factories import make_event, make_staff
from tournament.views.errors import permission_denied


def test_a_lost_or_mistyped_personal_link_sends_the_player_to_the_desk(client, db):
    for path in ("/p/not-a-real-token/", "/p/not-a-real-token/erase/", "/p/"):
        response = client.get(path)
        page = response.content.decode()
        assert response.status_code == 404 and "Ask the desk for your link" in page, path
    other = client.get("/no-such-page/").content.decode()
    assert "Ask the desk" not in other and "There is no such page." in other


def test_a_refusal_tells_a_signed_in_person_which_account_and_leads_to_my_work(client, db):
    event = make_event()
    desk = make_staff(event.festival, "desk", username="desk-kim")
    client.force_login(desk)
    response = client.get(reverse("manage-event", kwargs={"festival": event.festival.slug, "event": event.slug}))
    page = response.content.decode()
    assert response.status_code == 403
    assert "Sign in with an account" not in page and "desk-kim" in page
    assert f'href="{reverse("manage-home")}"' in page and "My work" in page


def test_a_refusal_signed_out_leads_to_the_sign_in_page_and_back(rf, db):
    request = rf.get("/manage/some/page/")
    request.user = AnonymousUser()
    page = permission_denied(request).content.decode()
    assert "Sign in with an account that may do this." in page
    assert f'href="{reverse("login")}?next=%2Fmanage%2Fsome%2Fpage%2F"' in page
