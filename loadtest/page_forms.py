"""The forms of a page as a browser would send them untouched: shared by the load test (locustfile.py) and
the two-servers check (two_servers.py). Standard library only, so locust's processes can import it."""

import re
from html.parser import HTMLParser


class PageForms(HTMLParser):
    """Every <form> of a page (its action) with its <input>s' attributes."""

    def __init__(self, html: str):
        super().__init__()
        self.forms: list[dict] = []  # {"action": url, "inputs": [attrs]}
        self._form: dict | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self._form = {"action": attrs.get("action", ""), "inputs": []}
            self.forms.append(self._form)
        elif tag == "input" and self._form is not None:
            self._form["inputs"].append(attrs)

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None

    def matching(self, pattern: str) -> list[dict]:
        return [form for form in self.forms if re.search(pattern, form["action"])]


def browser_data(form: dict) -> dict[str, str]:
    """What a browser would send for this form untouched: hidden and text values, checked radios and boxes."""
    data: dict[str, str] = {}
    for attrs in form["inputs"]:
        name, kind = attrs.get("name"), attrs.get("type", "text")
        if not name:
            continue
        if kind in ("radio", "checkbox"):
            if "checked" in attrs:
                data[name] = attrs.get("value", "on")
        else:
            data.setdefault(name, attrs.get("value") or "")
    return data
