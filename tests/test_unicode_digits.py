"""Numbers typed with other digits. "²" is a digit to str.isdigit but not a number int() reads (a server error
wherever one guarded the other); full-width "４", what a Chinese or Korean keyboard may type, is a decimal
digit int() reads. Every place that turns typed text into a number asks str.isdecimal."""

import pytest
from django.test import Client

from tests.factories import make_event, make_player, make_registration

pytestmark = pytest.mark.django_db


@pytest.fixture
def event():
    event = make_event()
    make_registration(event, make_player(event.festival, name="Kim Minjun"), number=4)
    return event


@pytest.mark.parametrize("query", ["²", "4²", "¹²³", "⑦"])
def test_a_superscript_or_circled_digit_finds_no_one_and_breaks_nothing(event, query):
    response = Client().get(f"/f/{event.festival.slug}/{event.slug}/player/", {"q": query})
    assert response.status_code == 200
    assert "Kim Minjun" not in response.content.decode()


def test_a_full_width_number_finds_the_player(event):
    response = Client().get(f"/f/{event.festival.slug}/{event.slug}/player/", {"q": "４"})
    assert response.status_code == 200
    assert "Kim Minjun" in response.content.decode()


def test_a_full_width_number_finds_only_this_event_s_player_in_two_festivals(event):
    other = make_event()  # another festival, its own player number 4
    make_registration(other, make_player(other.festival, name="Chan Tai Man"), number=4)
    assert other.festival != event.festival
    for shown, hidden, where in (("Kim Minjun", "Chan Tai Man", event), ("Chan Tai Man", "Kim Minjun", other)):
        html = Client().get(f"/f/{where.festival.slug}/{where.slug}/player/", {"q": "４"}).content.decode()
        assert shown in html and hidden not in html
