"""A person's name as the public sees it when names are masked (pure Python: no Django, nothing first-party).

The rule, per script:

- **Korean, Chinese, Japanese** (wide characters, whitespace between them ignored): the first and the last
  character stay, each one between becomes `*` — 김민준 → 김*준, 남궁민수 → 남**수, 王小欣 → 王*欣; a
  two-character name keeps its first: 김준 → 김*, 王欣 → 王*; a single character becomes `*`.
- **Latin and other narrow scripts**: every word but the last becomes its initial and a full stop, the last
  word stays — "John Smith" → "J. Smith", "Mary Jane Watson" → "M. J. Watson"; a single word becomes its
  initial — "Madonna" → "M.". The family name stays readable, as on a printed draw sheet; a Hong Kong name
  written family name first ("Chan Tai Man") keeps its last given name instead: "C. T. Man", still not the name.
- **Both** ("王小欣 Wong Siu Yan"): each part by its own rule, in the order written — "王*欣 W. S. Yan".

Full-width letters and digits are read as their ordinary forms first (NFKC) and runs of spaces count as one.
Whatever is typed, the answer is never empty and never the name itself (compared width-folded, case-folded,
without spaces) for a name of two characters or more: when the rule would give the name back (someone typed
"J. Smith"), every word becomes an initial ("J. S."), and failing that the answer is a single `*`.
"""

import unicodedata

MASK = "*"


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


def _key(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def _mask_wide(text: str) -> str:
    if len(text) <= 1:
        return MASK
    if len(text) == 2:
        return text[0] + MASK
    return text[0] + MASK * (len(text) - 2) + text[-1]


def _initial(word: str) -> str:
    return word[0] + "."


def _masked(words: list[str], *, keep_last: bool) -> str:
    wide = [any(_wide(char) for char in word) for word in words]
    narrow = [word for word, is_wide in zip(words, wide, strict=True) if not is_wide]
    last = len(narrow) - 1 if keep_last and len(narrow) > 1 else -1
    parts, wide_done, index = [], False, 0
    for word, is_wide in zip(words, wide, strict=True):
        if is_wide:
            if not wide_done:  # all wide words together, where the first one stands
                parts.append(_mask_wide("".join(w for w, flag in zip(words, wide, strict=True) if flag)))
                wide_done = True
            continue
        parts.append(word if index == last else _initial(word))
        index += 1
    return " ".join(parts)


def mask_name(name: str) -> str:
    """The masked form of `name` (see the module's rule)."""
    words = unicodedata.normalize("NFKC", name or "").split()
    if not words:
        return MASK
    original = _key(" ".join(words))
    for keep_last in (True, False):
        masked = _masked(words, keep_last=keep_last)
        if masked.strip() and _key(masked) != original:
            return masked
    return MASK
