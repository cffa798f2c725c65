"""In a real browser at 360×740, in Korean: the collection notice is read before the form is sent, and a
twelve-year-old registers only with a parent's or guardian's name, contact and agreement (PIPA: under 14)."""

from playwright.sync_api import expect

from tests.factories import make_festival, open_event
from tournament.models import Player, Registration


def send_with_both_agreements(page) -> None:
    """The guardian ticks their box and the notice's (still ticked after a refusal, or not), sends, and lands
    on the child's personal page."""
    page.check("#id_guardian_agrees")
    if not page.locator("#id_agree").is_checked():
        page.check("#id_agree")
    with page.expect_navigation():
        page.locator("main form [type=submit]").click()
    expect(page.locator("h1")).to_have_text("김하늘")


def test_a_child_registers_in_korean_with_a_guardian_after_reading_the_notice(phone, server, shot):
    event = open_event(make_festival(contact="kids@busan-festival.kr"))
    child_born = event.festival.starts_on.year - 12
    page = phone("parent", lang="ko-KR")
    page.context.add_cookies([{"name": "django_language", "value": "ko", "url": server.root}])
    page.goto(server.url("event-register", festival=event.festival.slug, event=event.slug))
    assert page.locator("html").get_attribute("lang") == "ko"

    notice = page.locator("#collection-notice")
    for heading in ("수집·이용 목적", "수집 항목", "보유 및 이용 기간", "동의를 거부할 권리"):
        expect(notice).to_contain_text(heading)
    expect(notice).to_contain_text("kids@busan-festival.kr")
    # The notice comes before the agreement, which starts unticked.
    assert page.evaluate("""() => {
        const n = document.getElementById('collection-notice'), a = document.getElementById('id_agree');
        return !!(n.compareDocumentPosition(a) & Node.DOCUMENT_POSITION_FOLLOWING);
    }""")
    expect(page.locator("#id_agree")).not_to_be_checked()
    # With JavaScript the guardian's fields wait for a birth year that needs them.
    expect(page.locator("#guardian-fields")).to_be_hidden()
    page.fill("#id_name", "김하늘")
    page.fill("#id_contact", "010-2018-0101")
    page.fill("#id_birth_year", "1990")
    expect(page.locator("#guardian-fields")).to_be_hidden()
    page.fill("#id_birth_year", str(child_born))
    expect(page.locator("#guardian-fields")).to_be_visible()
    shot(page, "notice-and-guardian-fields")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360

    # Without the guardian: refused, with the reason, and nothing saved.
    page.check("#id_agree")
    with page.expect_navigation():
        page.locator("main form [type=submit]").click()
    expect(page.locator("main form .alert-danger, main form .alert-block").first).to_contain_text(
        "법정대리인의 동의를 받아 신청합니다")
    expect(page.locator("#guardian-fields")).to_be_visible()
    shot(page, "refused-without-guardian")
    assert not Player.objects.exists()

    page.fill("#id_guardian_name", "김보호")
    page.fill("#id_guardian_contact", "010-2018-0202")
    send_with_both_agreements(page)
    shot(page, "registered-with-guardian")
    registration = Registration.objects.get(event=event)
    assert (registration.player.guardian_name, registration.player.guardian_contact) == ("김보호", "010-2018-0202")
    assert (registration.consent_by, registration.consent_how, registration.consent_notice_version) == (
        Registration.ConsentBy.GUARDIAN, Registration.ConsentHow.ONLINE, 1)


def test_after_the_notice_changed_a_child_enters_another_event_once_the_guardian_agrees_again(phone, server, shot):
    from tests.factories import make_player, make_registration

    festival = make_festival()
    first, second = open_event(festival), open_event(festival, name="어린이 루미큐브", days_ahead=11)
    child = make_player(festival, name="김하늘", birth_year=festival.starts_on.year - 12, guardian_name="김보호",
                        guardian_contact="010-2018-0202")
    make_registration(first, child, consent_notice_version=festival.privacy_notice_version,
                      consent_by=Registration.ConsentBy.GUARDIAN, consent_how=Registration.ConsentHow.ONLINE)
    festival.privacy_notice_version += 1  # the organiser edited the notice since
    festival.save(update_fields=["privacy_notice_version"])

    page = phone("parent", lang="ko-KR")
    page.context.add_cookies([{"name": "django_language", "value": "ko", "url": server.root}])
    page.goto(server.root + child.get_absolute_url())
    with page.expect_navigation():
        page.locator(f"form[action$='/enter/{second.slug}/'] button").click()
    expect(page.locator("h1")).to_have_text("어린이 루미큐브 참가 신청")
    expect(page.locator("#collection-notice")).to_contain_text("수집·이용 목적")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    shot(page, "notice-again")
    assert not Registration.objects.filter(event=second).exists()

    page.check("#id_agree")  # the guardian's own box left unticked: refused, nothing entered
    with page.expect_navigation():
        page.locator("main form [type=submit]").click()
    expect(page.locator("main form")).to_contain_text("법정대리인")
    shot(page, "guardian-box-missing")
    assert not Registration.objects.filter(event=second).exists()

    send_with_both_agreements(page)
    shot(page, "entered")
    registration = Registration.objects.get(event=second)
    assert (registration.consent_by, registration.consent_notice_version) == (
        Registration.ConsentBy.GUARDIAN, festival.privacy_notice_version)
