"""A sheet's sender is stored as written (data, in English for a table link) and shown in the reader's language."""

from django.template import Context, Template
from django.utils import translation

from scoring.models import TableLink
from scoring.templatetags.sheet_text import sender


def test_a_table_links_label_is_shown_in_the_readers_language():
    stored = TableLink(table_number=13).label
    with translation.override("ko"):
        assert sender(stored) == "13조 링크"
    with translation.override("zh-hant"):
        assert sender(stored) == "第13組連結"
    with translation.override("en"):
        assert sender(stored) == "table 13 link"


def test_a_username_or_an_imported_sheet_is_shown_as_stored():
    assert sender("kim_referee") == "kim_referee"
    assert sender("text") == "text"
    assert sender(None) is None


def test_the_referee_pages_sheet_line_has_no_english_in_korean():
    page = Template("{% load i18n sheet_text %}{% blocktranslate with who=via|sender %}sent by {{ who }} at "
                    "{{ when }}{% endblocktranslate %}")
    with translation.override("ko"):
        text = page.render(Context({"via": "table 7 link", "when": "10:20"}))
    assert "link" not in text and "7조 링크" in text
