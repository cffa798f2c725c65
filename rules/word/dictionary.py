"""The referee's dictionary check (R10: "words must be in the dictionary"), loaded offline.

The default English word list is the one shipped inside the **pyspellchecker** package (MIT licence;
``spellchecker/resources/en.json.gz``, about 160 000 words including plurals and verb forms). It is
read from the installed package — nothing is downloaded at run time — once per process, and cached.
Why this list: ``rules/README.md`` ("Rummikub Word").

The dependency is optional: without the package :func:`default_dictionary` returns ``None``,
:func:`is_dictionary_word` answers ``None`` ("dictionary not available") and
:func:`require_dictionary` raises :class:`DictionaryUnavailableError`. A house dictionary can be
used instead, or added to the default one: :meth:`WordList.from_words`, :meth:`WordList.with_words`.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import RulesError
from .tiles import JOKER_CHAR, JOKERS_IN_SET, LETTERS, normalize_word

DICTIONARY_PACKAGE = "pyspellchecker"  # the PyPI distribution; imported as ``spellchecker``
DICTIONARY_LANGUAGE = "en"

_ASCII_WORD = re.compile(r"^[A-Za-z]+$")


class DictionaryUnavailableError(RulesError):
    """No dictionary: the optional word-list package is not installed."""

    code = "dictionary_unavailable"

    def __init__(self, reason: str = ""):
        self.reason = reason
        super().__init__(
            f"dictionary not available: install the {DICTIONARY_PACKAGE!r} package"
            + (f" ({reason})" if reason else "")
        )


class _Default:
    """Sentinel: "use :func:`default_dictionary`" (``None`` means: no dictionary)."""

    def __repr__(self) -> str:
        return "DEFAULT_DICTIONARY"


DEFAULT_DICTIONARY = _Default()


@dataclass(frozen=True, eq=False)
class WordList:
    """A set of dictionary words (stored upper case, letters A-Z only) and where it came from."""

    name: str
    words: frozenset[str]

    @classmethod
    def from_words(cls, words: Iterable[str], name: str = "custom") -> WordList:
        """A word list from any iterable of words; entries that are not plain A-Z words (``don't``,
        ``café``, ``ice cream``) are skipped. Case-insensitive."""
        return cls(name, frozenset(w.upper() for w in words if isinstance(w, str) and _ASCII_WORD.match(w)))

    def with_words(self, extra: Iterable[str], name: str | None = None) -> WordList:
        """This list plus a house list (e.g. words the chief referee has allowed)."""
        more = WordList.from_words(extra)
        return WordList(name or f"{self.name} + house words", self.words | more.words)

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self.lookup(word)

    def lookup(self, word: str) -> bool:
        """Is ``word`` a dictionary word? Case-insensitive; a joker (``?``/``*``) may be any letter.

        Raises :class:`~rules.errors.NotationError` for text that is not a tile word.
        """
        w = normalize_word(word)
        if JOKER_CHAR not in w:
            return w in self.words
        return any(True for _ in self._readings(w))

    def readings(self, word: str) -> list[str]:
        """The dictionary words ``word`` can be, its jokers taking any letter (sorted; ``[]`` if none).
        ``readings("DIS?PPEAR") == ["DISAPPEAR"]``."""
        w = normalize_word(word)
        if JOKER_CHAR not in w:
            return [w] if w in self.words else []
        return sorted(set(self._readings(w)))

    def _readings(self, w: str):
        slots = [i for i, c in enumerate(w) if c == JOKER_CHAR]
        if len(slots) <= JOKERS_IN_SET:  # at most 26**2 = 676 look-ups
            chars = list(w)
            for letters in itertools.product(LETTERS, repeat=len(slots)):
                for i, c in zip(slots, letters, strict=True):
                    chars[i] = c
                candidate = "".join(chars)
                if candidate in self.words:
                    yield candidate
        else:  # more jokers than a set holds: scan instead of 26**k look-ups
            pattern = re.compile("^" + w.replace(JOKER_CHAR, "[A-Z]") + "$")
            yield from (x for x in self.words if len(x) == len(w) and pattern.match(x))


def _load_pyspellchecker() -> WordList:
    from importlib.metadata import PackageNotFoundError, version

    from spellchecker import SpellChecker  # optional dependency; ImportError handled by the caller

    checker = SpellChecker(language=DICTIONARY_LANGUAGE, distance=1)
    try:
        ver = version(DICTIONARY_PACKAGE)
    except PackageNotFoundError:  # imported from a source tree
        ver = "unknown version"
    return WordList.from_words(
        checker.word_frequency.keys(), name=f"{DICTIONARY_PACKAGE} {ver} ({DICTIONARY_LANGUAGE})"
    )


@functools.cache
def default_dictionary() -> WordList | None:
    """The default English word list, or ``None`` when the package is not installed (cached)."""
    try:
        return _load_pyspellchecker()
    except ImportError:
        return None


def require_dictionary() -> WordList:
    """The default word list; raises :class:`DictionaryUnavailableError` when it is not installed."""
    d = default_dictionary()
    if d is None:
        raise DictionaryUnavailableError("the package is not installed")
    return d


def resolve_dictionary(dictionary: WordList | _Default | None) -> WordList | None:
    """``DEFAULT_DICTIONARY`` → :func:`default_dictionary` (may be ``None``); otherwise as given."""
    return default_dictionary() if isinstance(dictionary, _Default) else dictionary


def is_dictionary_word(word: str, dictionary: WordList | _Default | None = DEFAULT_DICTIONARY) -> bool | None:
    """``True`` / ``False``, or ``None`` when no dictionary is available (package missing, or
    ``dictionary=None``). Case-insensitive; a joker ``?`` may stand for any letter."""
    d = resolve_dictionary(dictionary)
    return None if d is None else d.lookup(word)
