"""R10: "is it a word?" — the default English word list (optional package, offline) and house lists."""

import sys

import pytest

from rules.errors import NotationError, RulesError
from rules.word import (
    DictionaryUnavailableError,
    WordList,
    default_dictionary,
    is_dictionary_word,
    require_dictionary,
)
from rules.word import dictionary as dictionary_module

HOUSE = WordList.from_words(
    ["disappear", "lap", "chip", "ear", "clap", "pear", "don't", "café", "ice cream"], "house"
)


@pytest.fixture
def no_package(monkeypatch):
    """As if the word-list package were not installed."""
    dictionary_module.default_dictionary.cache_clear()
    monkeypatch.setitem(sys.modules, "spellchecker", None)  # makes `import spellchecker` raise ImportError
    yield
    monkeypatch.undo()
    dictionary_module.default_dictionary.cache_clear()


def test_word_list_is_case_insensitive_and_skips_non_tile_words():
    assert len(HOUSE) == 6  # don't, café, ice cream are not tile words
    assert "Disappear" in HOUSE and HOUSE.lookup("chip") and "CHIPS" not in HOUSE
    assert 42 not in HOUSE
    with pytest.raises(NotationError):
        HOUSE.lookup("ICE CREAM")


def test_a_joker_may_stand_for_any_letter():
    assert HOUSE.lookup("DIS?PPEAR") and HOUSE.readings("dis*ppear") == ["DISAPPEAR"]
    assert HOUSE.readings("?EAR") == ["PEAR"] and HOUSE.readings("??AR") == ["PEAR"]
    assert HOUSE.readings("C?") == [] and not HOUSE.lookup("??")
    assert WordList.from_words(["ABCD"]).lookup("????")  # more jokers than a set has: scanned, same answer


def test_house_words_extend_a_list():
    more = HOUSE.with_words(["qat"])
    assert "QAT" in more and "QAT" not in HOUSE and "CHIP" in more
    assert is_dictionary_word("qat", more) is True and is_dictionary_word("qat", HOUSE) is False


def test_no_dictionary_means_none():
    assert is_dictionary_word("cat", None) is None


def test_package_missing_gives_none_and_a_clear_error(no_package):
    assert default_dictionary() is None
    assert is_dictionary_word("cat") is None
    with pytest.raises(DictionaryUnavailableError) as e:
        require_dictionary()
    assert isinstance(e.value, RulesError) and e.value.code == "dictionary_unavailable"
    assert "pyspellchecker" in str(e.value)


def test_default_dictionary_common_words_and_a_non_word():
    pytest.importorskip(
        "spellchecker", reason="the optional word-list package (pyspellchecker) is not installed"
    )
    d = require_dictionary()
    assert d is default_dictionary()  # loaded once, cached
    assert d.name.startswith("pyspellchecker ") and len(d) > 100_000
    for word in [
        "cat",
        "CATS",
        "Disappear",
        "disappeared",
        "chip",
        "lap",
        "ear",
        "black",
        "first",
        "jumped",
        "quiz",
    ]:
        assert is_dictionary_word(word) is True, word
    for word in ["XQZT", "QQQ", "DISAPEAR", "LAPC"]:
        assert is_dictionary_word(word) is False, word
    assert d.lookup("DIS?PPEAR") and d.lookup("JA?Z")
