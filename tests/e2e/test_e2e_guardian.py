"""In a real browser at 360×740: a child registers on the public form, and the guardian agrees from the link
e-mailed to them, on their own phone, in the language the child's form was filled in (PIPA art. 22-2: the
organiser checks that the guardian agreed; the child's tick is not it)."""

import re

import pytest
from django.core import mail
from playwright.sync_api import expect

from tests.factories import make_festival, open_event
from tournament.models import AuditEntry, Registration

CASES = {
    "ko": {"festival": "부산 루미큐브 대회", "event": "어린이부", "child": "김하늘", "contact": "010-2018-0101",
           "guardian": "김보호", "email": "parent@example.kr", "heading": "법정대리인의 동의", "waiting": "법정대리인",
           "agreed": "동의가 기록되었습니다", "form_sent": "링크를 보냈습니다"},
    "zh-hant": {"festival": "香港魔力橋大賽", "event": "兒童組", "child": "王小欣", "contact": "9123 4567",
                "guardian": "王大文", "email": "parent@example.hk", "heading": "家長或監護人的同意",
                "waiting": "家長或監護人", "agreed": "你的同意已記錄", "form_sent": "我們已把連結發送至"},
}


@pytest.mark.parametrize("language", CASES)
def test_a_child_registers_and_the_guardian_agrees_from_the_e_mailed_link(phone, server, shot, language):
    case = CASES[language]
    event = open_event(make_festival(name=case["festival"], contact="kids@festival.example"), name=case["event"])
    mail.outbox.clear()

    child = phone("child", lang=language)
    child.context.add_cookies([{"name": "django_language", "value": language, "url": server.root}])
    child.goto(server.url("event-register", festival=event.festival.slug, event=event.slug))
    assert child.locator("html").get_attribute("lang") == language
    child.fill("#id_name", case["child"])
    child.fill("#id_contact", case["contact"])
    child.fill("#id_birth_year", str(event.festival.starts_on.year - 12))
    expect(child.locator("#guardian-fields")).to_be_visible()
    child.fill("#id_guardian_name", case["guardian"])
    child.fill("#id_guardian_contact", case["email"])
    child.check("#id_guardian_agrees")
    child.check("#id_agree")
    with child.expect_navigation():
        child.locator("main form [type=submit]").click()
    # The result: the child's page says the guardian must agree, where the link went, and until when.
    expect(child.locator("h1")).to_have_text(case["child"])
    expect(child.locator("main .alert-success")).to_contain_text(case["form_sent"])
    expect(child.locator("[data-guardian=waiting]")).to_be_visible()
    assert child.evaluate("document.documentElement.scrollWidth") <= 360
    shot(child, "child-form-result")
    registration = Registration.objects.get(event=event)
    assert registration.status == Registration.Status.REGISTERED and registration.waits_for_guardian

    # The guardian's own phone, its browser in English: the page follows the child's form.
    [message] = mail.outbox
    assert message.to == [case["email"]] and case["festival"] in message.subject
    path = re.search(r"https?://[^/\s]+(/guardian/[A-Za-z0-9_-]+/)", message.body).group(1)
    guardian = phone("guardian", lang="en-US")
    guardian.goto(server.url(path))
    assert guardian.locator("html").get_attribute("lang") == language
    expect(guardian.locator("h1")).to_have_text(case["heading"])
    expect(guardian.locator("#collection-notice")).to_be_visible()
    expect(guardian.locator("#guardian-child")).to_contain_text(case["child"])
    expect(guardian.locator("#guardian-events")).to_contain_text(case["event"])
    expect(guardian.locator("[data-guardian-state=waiting]")).to_be_visible()
    expect(guardian.locator("#id_name")).to_have_value(case["guardian"])
    assert guardian.evaluate("document.documentElement.scrollWidth") <= 360
    shot(guardian, "guardian-page")

    # Without the tick: refused, nothing recorded; then agreed.
    guardian.evaluate("document.getElementById('id_agree').removeAttribute('required')")
    with guardian.expect_navigation():
        guardian.locator("#guardian-form [type=submit]").click()
    expect(guardian.locator("#guardian-form .invalid-feedback, #guardian-form .text-danger").first).to_be_visible()
    assert Registration.objects.get(pk=registration.pk).waits_for_guardian
    shot(guardian, "guardian-refused-without-the-tick")
    guardian.check("#id_agree")
    with guardian.expect_navigation():
        guardian.locator("#guardian-form [type=submit]").click()
    expect(guardian.locator("main .alert-success").first).to_contain_text(case["agreed"])
    expect(guardian.locator("[data-guardian-state=agreed]")).to_contain_text(case["guardian"])
    expect(guardian.locator("#guardian-form")).to_have_count(0)
    assert guardian.evaluate("document.documentElement.scrollWidth") <= 360
    shot(guardian, "guardian-agreed")

    registration.refresh_from_db()
    assert (registration.guardian_check, registration.guardian_checked_name) == (
        Registration.GuardianCheck.EMAIL, case["guardian"])
    assert AuditEntry.objects.filter(action="registration.guardian_agreed", target_id=registration.pk).exists()
    # The child's page no longer says it waits.
    child.reload()
    expect(child.locator("[data-guardian=waiting]")).to_have_count(0)


def test_the_desk_sees_a_child_waiting_for_the_guardian_and_checks_in_with_the_paper_form(
        phone, server, shot, sign_in):
    from tests.factories import make_event, make_player, make_registration, make_staff
    from tournament.models import Event

    event = make_event(checkin_override=Event.CheckinOverride.OPEN, name="어린이부")
    kid = make_player(event.festival, name="이별", birth_year=event.festival.starts_on.year - 10,
                      guardian_name="이보호", guardian_contact="010-5555-1234")
    waiting = make_registration(event, kid, consent_by=Registration.ConsentBy.GUARDIAN, consent_notice_version=1,
                                consent_how=Registration.ConsentHow.ONLINE,
                                guardian_check=Registration.GuardianCheck.WAITING)
    page = phone("desk", lang="ko")
    page.context.add_cookies([{"name": "django_language", "value": "ko", "url": server.root}])
    desk = server.url("desk", festival=event.festival.slug, event=event.slug)
    sign_in(page, make_staff(event.festival, "desk"), next_url=desk.removeprefix(server.root))
    expect(page.locator("[data-guardian-count]")).to_be_visible()
    page.locator("#desk-q").fill("이별")
    row = page.locator("#desk-results li", has_text="이별")
    expect(row.locator("[data-guardian=waiting]")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    shot(page, "desk-child-waiting-for-the-guardian")
    # The button needs the tick (the browser asks for it; the server refuses without it too).
    row.locator("[data-guardian-form] button").click()
    assert not Registration.objects.get(pk=waiting.pk).is_checked_in
    row.locator("[data-guardian-form] input[name=signed]").check()
    row.locator("[data-guardian-form] button").click()
    row = page.locator("#desk-results li", has_text="이별")
    expect(row.locator(".badge.text-bg-success")).to_be_visible()
    shot(page, "desk-child-checked-in-with-the-paper-form")
    waiting.refresh_from_db()
    assert waiting.is_checked_in and waiting.guardian_check == Registration.GuardianCheck.PAPER
    assert waiting.guardian_checked_name == "이보호"
