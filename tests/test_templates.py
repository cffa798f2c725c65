"""Templates: Django's `{# … #}` comment is one line only; one spread over lines is shown to the user as text."""

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def test_no_template_comment_spans_lines():
    spread = [f"{path.relative_to(TEMPLATES)}:{text[:match.start()].count(chr(10)) + 1}"
              for path in sorted(TEMPLATES.rglob("*.html")) for text in [path.read_text()]
              for match in re.finditer(r"\{#(.*?)#\}", text, flags=re.S) if "\n" in match.group(1)]
    assert spread == [], "use {% comment %} for comments over several lines"
