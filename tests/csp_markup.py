"""What the Content-Security-Policy (config/settings/base.py) would block in a page, found in its markup.

The policy allows scripts, styles and images from the site only (and data: images). A browser silently
drops what breaks it — an inline <script>, an onclick=, a style= attribute, a javascript: link — so a
page can lose its behaviour or its looks without any server error. `csp_problems(html)` lists each such
thing with its line, for tests that render pages (tests/test_security_headers.py, and every response of
tests/test_no_server_errors.py).
"""

import json
from html.parser import HTMLParser

# <script> types the browser does not run: data blocks (json_script) are fine under the policy.
DATA_SCRIPT_TYPES = {"application/json", "application/ld+json"}
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "hx-get", "hx-post", "poster", "data"}
HTMX_CONFIG = {"includeIndicatorStyles": False, "allowEval": False, "allowScriptTags": False}


def _local(url: str) -> bool:
    """Served by this site: a path, not another origin (//host or scheme:)."""
    return url.startswith("/") and not url.startswith("//")


class _Finder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.loads_htmx = False
        self.htmx_config: str | None = None
        self._inline_script_line: int | None = None
        self._inline_text = ""

    def _problem(self, text: str) -> None:
        self.problems.append(f"line {self.getpos()[0]}: {text}")

    def handle_starttag(self, tag, attrs):
        values = {name: (value or "") for name, value in attrs}
        for name, value in attrs:
            value = value or ""
            if name.startswith("on"):
                self._problem(f"<{tag} {name}=…>: inline event handler (use addEventListener in static/js)")
            elif name == "style":
                self._problem(f"<{tag} style=\"{value[:60]}\">: inline style (use a class in static/css)")
            elif name.startswith(("hx-on", "data-hx-on")):
                self._problem(f"<{tag} {name}=…>: htmx inline handler (needs eval)")
            elif name in {"hx-vars", "data-hx-vars"} or (
                    name in {"hx-vals", "data-hx-vals"} and value.strip().startswith(("js:", "javascript:"))):
                self._problem(f"<{tag} {name}=…>: htmx values computed by JavaScript (needs eval)")
            if name in URL_ATTRIBUTES and "".join(value.split()).lower().startswith("javascript:"):
                self._problem(f"<{tag} {name}=\"{value[:60]}\">: javascript: URL")
        if tag == "script":
            src = values.get("src", "")
            if src and not _local(src):
                self._problem(f"<script src=\"{src}\">: from another origin")
            if "htmx" in src:
                self.loads_htmx = True
            if not src and values.get("type", "").lower() not in DATA_SCRIPT_TYPES:
                self._inline_script_line = self.getpos()[0]
                self._inline_text = ""
        elif tag == "style":
            self._problem("<style> element (move the rules to static/css)")
        elif tag == "link" and "stylesheet" in values.get("rel", "").lower().split():
            if not _local(values.get("href", "")):
                self._problem(f"<link rel=stylesheet href=\"{values.get('href')}\">: from another origin")
        elif tag == "img":
            src = values.get("src", "")
            if not (_local(src) or src.startswith("data:")):
                self._problem(f"<img src=\"{src[:60]}\">: from another origin")
        elif tag in {"object", "embed", "base", "iframe"}:
            self._problem(f"<{tag}>: blocked by the policy (object-src, base-uri, frame-ancestors)")
        elif tag == "meta" and values.get("name") == "htmx-config":
            self.htmx_config = values.get("content", "")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "script":
            self.handle_endtag(tag)

    def handle_data(self, data):
        if self._inline_script_line is not None:
            self._inline_text += data

    def handle_endtag(self, tag):
        if tag == "script" and self._inline_script_line is not None:
            self.problems.append(f"line {self._inline_script_line}: inline <script> "
                                 f"({self._inline_text.strip()[:60]!r}); use <script src> from static/js")
            self._inline_script_line = None


def csp_problems(html: str) -> list[str]:
    """Everything in `html` that the site's Content-Security-Policy would block or that needs eval."""
    finder = _Finder()
    finder.feed(html)
    finder.close()
    problems = finder.problems
    if finder.loads_htmx:
        # Without this meta htmx injects its own <style> (blocked) and may eval attribute code.
        try:
            config = json.loads(finder.htmx_config) if finder.htmx_config else None
        except ValueError:
            config = None
        if not isinstance(config, dict) or any(config.get(k, True) != v for k, v in HTMX_CONFIG.items()):
            problems.append(f"htmx is loaded without <meta name=\"htmx-config\"> setting {HTMX_CONFIG} "
                            "(templates/_htmx_config.html)")
    return problems


def is_html(response) -> bool:
    return response.get("Content-Type", "").startswith("text/html")
