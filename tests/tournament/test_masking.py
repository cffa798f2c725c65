"""The masked form of a name (tournament/masking.py): examples per script, and properties over any text."""

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournament.masking import mask_name
from tournament.models.registration import name_key


@pytest.mark.parametrize("name, masked", [
    ("김민준", "김*준"), ("김준", "김*"), ("남궁민수", "남**수"), ("김", "*"),
    ("王小欣", "王*欣"), ("陳大文", "陳*文"), ("王欣", "王*"),
    ("John Smith", "J. Smith"), ("Mary Jane Watson", "M. J. Watson"), ("Madonna", "M."),
    ("  John \t  Smith ", "J. Smith"),  # extra spaces
    ("Ｊｏｈｎ　Ｓｍｉｔｈ", "J. Smith"),  # full-width letters and space
    ("김 민준", "김*준"),  # a space typed inside a Korean name
    ("王小欣 Wong Siu Yan", "王*欣 W. S. Yan"),  # mixed scripts: each part by its rule
    ("J. Smith", "J. S."),  # already looks masked: every word an initial
    ("J. S.", "*"),
    ("", "*"), ("   ", "*"),
])
def test_names_are_masked_per_script(name, masked):
    assert mask_name(name) == masked


# Names as typed at a desk: Hangul, CJK, Latin with accents, full-width forms, punctuation and odd spaces.
letters = st.one_of(
    st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3),  # Hangul syllables
    st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),  # CJK ideographs
    st.characters(min_codepoint=0xFF21, max_codepoint=0xFF5A),  # full-width Latin
    st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéüñ.-'*"),
    st.sampled_from(" \u3000\t"),
)
names = st.one_of(st.text(letters, max_size=30), st.text(max_size=30))


@settings(max_examples=500, deadline=None)
@given(names)
def test_a_masked_name_is_never_empty_and_never_the_name_itself(name):
    masked = mask_name(name)
    assert masked.strip()
    if len(name_key(name)) >= 2:
        assert name_key(masked) != name_key(name)
        assert masked != unicodedata.normalize("NFKC", name).strip()


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3), min_size=2, max_size=6))
def test_a_korean_name_keeps_its_length_and_its_first_character(name):
    masked = mask_name(name)
    assert len(masked) == len(name) and masked[0] == name[0] and "*" in masked


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text("abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8), min_size=2, max_size=4))
def test_a_latin_name_keeps_its_last_word_and_the_initials_of_the_others(words):
    masked = mask_name(" ".join(words))
    assert masked == " ".join([*(w[0] + "." for w in words[:-1]), words[-1]])


@settings(max_examples=200, deadline=None)
@given(names)
def test_masking_is_stable_whatever_the_width_and_spaces(name):
    assert mask_name(name) == mask_name(unicodedata.normalize("NFKC", name).strip())
