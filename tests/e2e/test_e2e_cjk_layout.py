"""Korean and Chinese pages at 360 px: a Korean word is never cut in two (루미/큐브, 업데이/트됩니다), nor a
Chinese name in a table (陳大/文), and a column header stays on one line (名次, not 名/次). Screenshots of the standings and the player pages in both
languages go to artifacts/e2e/ for a person to look at."""

import pytest

from tests.scoring.helpers import busan_day, hong_kong_day

# Every word of the visible text whose letters the browser put on more than one line: a run of Hangul between
# spaces, and a Chinese name in a table (elsewhere Chinese breaks between any two characters, and that is right).
CUT_WORDS = """() => {
  const cut = [];
  const check = (root, pattern) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.parentElement.offsetParent) continue;  // hidden
      for (const match of node.data.matchAll(pattern)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) cut.push(match[0]);
      }
    }
  };
  check(document.querySelector("main"), /[\\uac00-\\ud7a3]{2,}/g);
  document.querySelectorAll("main table a").forEach(name => check(name, /[\\u3400-\\u9fff]{2,}/g));
  return cut;
}"""

# Table headers whose text the browser put on more than one line.
WRAPPED_HEADERS = """() => [...document.querySelectorAll("main th")].filter(th => th.offsetParent).filter(th => {
  const range = document.createRange();
  range.selectNodeContents(th);
  const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
  return tops.size > 1;
}).map(th => th.textContent.trim())"""

WIDER_THAN_THE_PHONE = "() => document.documentElement.scrollWidth > window.innerWidth"


def pages_of(server, event, player):
    at = {"festival": event.festival.slug, "event": event.slug}
    return {
        "standings": server.url("public-standings", **at),
        "player": server.url("public-player", number=1, **at),
        "personal-page": server.url("player-page", token=player.token),
        "event": server.url("event", **at),
    }


@pytest.mark.parametrize("language, day", [("ko", busan_day), ("zh-Hant", hong_kong_day)])
def test_korean_words_stay_whole_and_headers_on_one_line_at_phone_width(phone, server, shot, language, day):
    event, _later, player = day()
    page = phone(language, lang=language)
    problems = {}
    for name, url in pages_of(server, event, player).items():
        page.goto(url)
        shot(page, f"{language}-{name}")
        found = {"cut words": page.evaluate(CUT_WORDS), "wrapped headers": page.evaluate(WRAPPED_HEADERS),
                 "wider than the phone": page.evaluate(WIDER_THAN_THE_PHONE)}
        if any(found.values()):
            problems[name] = {what: value for what, value in found.items() if value}
    assert problems == {}
