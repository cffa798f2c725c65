"""How tests press a button that asks for confirmation (tournament.services.confirmation): open its page
(GET, with the action's own fields), then send it with the state that page showed, as the browser would."""


def confirmation(client, url, data=None):
    """The confirmation page of `url`, and the state it carries (None when the page asks nothing)."""
    page = client.get(url, data or {})
    preview = page.context["preview"] if page.status_code == 200 and page.context else None
    return page, (preview.state if preview is not None and not preview.blockers else None)


def confirmed_post(client, url, data=None, **kwargs):
    """Open the confirmation page, then confirm it."""
    data = dict(data or {})
    _page, state = confirmation(client, url, data)
    return client.post(url, {**data, **({"confirm": state} if state else {})}, **kwargs)
