"""Punctuation belongs to the language (docs/GLOSSARY.md: Chinese uses full-width marks): a label's colon, a
list's separator, an aside's brackets and a sentence's full stop come from the catalogue, not from the template;
and the pages a Hong Kong player reads show no ASCII mark beside Chinese text."""

import re
from html.parser import HTMLParser

import pytest
from django.template import Context, Template
from django.urls import reverse
from django.utils import translation

from tests.factories import make_registration
from tests.scoring.helpers import hong_kong_day

PAGE = Template('{% load i18n punctuation %}{% translate "Contact" %}{% colon %}{{ who }} — {{ names|joined }}')


@pytest.mark.parametrize("language, expected", [
    ("en", "Contact: Kim — Kim, Lee, <b>"),
    ("ko", "문의: Kim — Kim, Lee, <b>"),
    ("zh-hant", "查詢：Kim — Kim、Lee、<b>"),
])
def test_a_label_and_a_list_in_each_language(language, expected):
    with translation.override(language):
        text = PAGE.render(Context({"who": "Kim", "names": ["Kim", "Lee", "<b>"]}))
    assert text == expected.replace("<b>", "&lt;b&gt;")  # the items are escaped, the separator is not


ASIDE = Template("{% load punctuation %}Open{{ day|bracketed }}{% full_stop %}{% sentence_space %}Next{% dash %}x")


@pytest.mark.parametrize("language, expected", [
    ("en", "Open (<3 Dec>). Next — x"),
    ("ko", "Open(<3 Dec>). Next — x"),
    ("zh-hant", "Open（<3 Dec>）。Next——x"),
])
def test_an_aside_a_full_stop_a_dash_and_the_space_between_sentences_in_each_language(language, expected):
    with translation.override(language):
        text = ASIDE.render(Context({"day": "<3 Dec>"}))
    assert text == expected.replace("<3 Dec>", "&lt;3 Dec&gt;")


def test_a_page_reads_its_labels_with_a_full_width_colon_in_chinese(client, event):
    registration = make_registration(event, number=7)
    page = client.get(registration.player.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="zh-hant").content.decode()
    assert "語言：" in page and "語言:" not in page


# ------------------------------------------------------------------ the pages, read in Hong Kong Chinese

CJK = "[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]"
# An ASCII colon, comma or bracket with a Chinese character on either side, spaces between ignored; an ASCII
# full stop ending a Chinese sentence ("1." before a name is a seat number, "（.xlsx）" a file's ending).
HALF_WIDTH_BY_CHINESE = re.compile(rf"{CJK}\s*[:,()]|[:,()]\s*{CJK}|[\u3400-\u9fff]\s*\.(?!\w)")
# Chinese runs its sentences on: "…重新載入。搜尋…", never "…重新載入。 搜尋…"; nor a space after "：" or "，".
SPACED_SENTENCES = re.compile(rf"[。！？：；，、]\s+{CJK}")
SHOWN_ATTRIBUTES = ("title", "aria-label", "alt", "placeholder")
INLINE = {"a", "abbr", "b", "code", "em", "i", "small", "span", "strong", "time"}


class ShownText(HTMLParser):
    """What a reader sees or hears: text outside <script>/<style>, and the attributes shown as text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.pieces, self.hidden = [], 0

    def handle_starttag(self, tag, attrs):
        self.hidden += tag in ("script", "style")
        self.pieces.extend(value for name, value in attrs if name in SHOWN_ATTRIBUTES and value)
        classes = dict(attrs).get("class") or ""
        if tag not in INLINE or "btn" in classes or "badge" in classes:
            self.pieces.append("\n")  # a block, a cell, a button or a badge ends a run of text

    def handle_endtag(self, tag):
        self.hidden -= tag in ("script", "style")

    def handle_data(self, data):
        if not self.hidden:
            self.pieces.append(data.replace("\n", " "))  # a line break in the source is a space on the page


def half_width_next_to_chinese(html: str) -> list[str]:
    parser = ShownText()
    parser.feed(html)
    lines = "".join(parser.pieces).splitlines()
    return [" ".join(line.split()) for line in lines
            if HALF_WIDTH_BY_CHINESE.search(line) or SPACED_SENTENCES.search(line.strip())]


@pytest.mark.django_db
def test_the_public_and_personal_pages_use_full_width_marks_next_to_chinese(client):
    event, later, player = hong_kong_day()
    left = event.registrations.get(number=8)
    festival = event.festival
    at = {"festival": festival.slug, "event": event.slug}
    pages = {
        "festival": reverse("festival", kwargs={"festival": festival.slug}),
        "event": reverse("event", kwargs=at),
        "standings": reverse("public-standings", kwargs=at),
        "player": reverse("public-player", kwargs={**at, "number": 1}),
        "personal page": reverse("player-page", kwargs={"token": player.token}),
        "registration form": reverse("event-register", kwargs={"festival": festival.slug, "event": later.slug}),
        "erase page": reverse("player-erase", kwargs={"token": player.token}),
        "seat search": reverse("public-seat", kwargs=at) + "?q=陳",
        "player who left": reverse("public-player", kwargs={**at, "number": 8}),
        "personal page of a player who left": reverse("player-page", kwargs={"token": left.player.token}),
    }
    found = {}
    for name, url in pages.items():
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hant")
        html = response.content.decode()
        assert response.status_code == 200 and '<html lang="zh-hant">' in html, name
        if bad := half_width_next_to_chinese(html):
            found[name] = bad
    assert found == {}, "\n".join(f"{name}: {line}" for name, lines in found.items() for line in lines)


def test_the_page_check_sees_a_half_width_mark_by_chinese_and_nothing_else():
    assert half_width_next_to_chinese("<p>第1輪: 第1組</p>") == ["第1輪: 第1組"]
    assert half_width_next_to_chinese("<li>公開賽 (2026年12月3日)</li>")
    assert half_width_next_to_chinese('<a title="第1輪, 第1局">x</a>')
    assert half_width_next_to_chinese("<p>棄權 · 第1輪、第1局. 之前的賽果</p>")
    assert half_width_next_to_chinese("<p>按勝出局數排名。\n  仍然同分的參加者名次相同。</p>")
    assert half_width_next_to_chinese("<p>第1輪：第1組（12:00）</p><p>Round 1: table 1 (a, b). Next.</p>") == []
    assert half_width_next_to_chinese("<p>檔案（.xlsx）</p><p>排名。</p><p>仍然同分。</p><td>1. 陳大文</td>") == []
    assert half_width_next_to_chinese("<script>var a = '第1輪: x';</script><td>賽果</td><td>(3)</td>") == []
