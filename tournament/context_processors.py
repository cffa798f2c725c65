"""Template context the project adds to Django's."""

# Where a page stored for many visitors (scoring/views/public.py) holds the CSRF token; each answer puts the
# visitor's own token there. Letters and digits only, as a real token, so escaping leaves it unchanged.
CSRF_PLACEHOLDER = "csrfPlaceholder0sharedPage0notAToken"


def csrf_placeholder(request):
    """The placeholder instead of the token while such a page is rendered (after Django's own csrf
    processor, so it wins); nothing otherwise."""
    if getattr(request, "csrf_placeholder", False):
        return {"csrf_token": CSRF_PLACEHOLDER}
    return {}
