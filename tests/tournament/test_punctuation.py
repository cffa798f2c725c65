"""Punctuation belongs to the language (docs/GLOSSARY.md: Chinese uses full-width marks): a label's colon and a
list's separator come from the catalogue, not from the template."""

import pytest
from django.template import Context, Template
from django.utils import translation

from tests.factories import make_registration

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


def test_a_page_reads_its_labels_with_a_full_width_colon_in_chinese(client, event):
    registration = make_registration(event, number=7)
    page = client.get(registration.player.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="zh-hant").content.decode()
    assert "語言：" in page and "語言:" not in page
