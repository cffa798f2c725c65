"""The longest button of the registrations import, "Import the … valid rows and drop the … bad ones", fits a
360 px phone in every language: it wraps inside the screen, nothing is cut off, the page does not scroll
sideways — even with the largest numbers an import allows (2,000 rows)."""

import pytest
from playwright.sync_api import expect

from tests.factories import make_event, make_festival, make_staff

LANGS = {"en": "en-GB", "ko": "ko-KR", "zh-hant": "zh-HK"}
ROWS = "event,name,contact,birth_year\n" + "".join(
    f"open,Player {n},p{n}@example.org,2001\n" for n in range(12)) + "open,No Contact,,1990\nopen,,x@example.org,1990\n"


@pytest.mark.parametrize("lang", LANGS)
def test_the_keep_the_valid_rows_button_fits_a_phone(lang, phone, server, shot, sign_in):
    festival = make_festival()
    make_event(festival, slug="open")
    organiser = make_staff(festival, "organiser")
    page = phone("organiser", lang=LANGS[lang])
    page.context.add_cookies([{"name": "django_language", "value": lang, "url": server.root}])
    sign_in(page, organiser, next_url=server.url("manage-import", festival=festival.slug).removeprefix(server.root))
    page.set_input_files("input[type=file]", files=[{"name": "players.csv", "mimeType": "text/csv",
                                                      "buffer": ROWS.encode()}])
    with page.expect_navigation():
        page.locator("main form button[type=submit], main form input[type=submit]").first.click()
    button = page.locator('button[name="action"][value="valid"]')
    expect(button).to_be_visible()
    assert page.locator("html").get_attribute("lang") == lang

    # The numbers an upload of 2,000 rows could show, in place of 12 and 2.
    page.evaluate("""b => { b.textContent = b.textContent.replace(/\\d+/, '1998').replace(/(\\D)2(\\D|$)/, '$1999$2'); }""",
                  button.element_handle())
    shot(page, f"import-preview-{lang}")
    fits = page.evaluate("""b => {
        const box = b.getBoundingClientRect();
        return {left: box.left, right: box.right, clipped: b.scrollWidth > b.clientWidth,
                page: document.documentElement.scrollWidth, viewport: window.innerWidth, text: b.textContent};
    }""", button.element_handle())
    assert "1998" in fits["text"] and "999" in fits["text"], fits
    assert fits["left"] >= 0 and fits["right"] <= fits["viewport"], fits
    assert not fits["clipped"], fits
    assert fits["page"] <= fits["viewport"], fits

