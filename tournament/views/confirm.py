"""The confirmation page of an action that cannot be undone or touches everyone (services.confirmation):
GET shows what will happen; a POST carries back the state the page showed, and the service refuses it when
it is missing or the state has changed since — then the page is shown again, with the figures as they are now.
Plain forms: no JavaScript needed."""

from collections.abc import Callable
from dataclasses import dataclass, field

from django.shortcuts import render

from ..forms.confirm import ConfirmForm
from ..services.confirmation import Blocker, Preview, Unconfirmed
from .helpers import run_service

Fix = Callable[[Blocker], tuple[str, str] | None]  # a blocker → (where it is fixed, the link's words)


def blocker_links(blockers: list[Blocker], fix: Fix | None = None) -> list[dict]:
    """Each reason with a link to where it is fixed, for the page beside the disabled button."""
    out = []
    for blocker in blockers:
        where = fix(blocker) if fix else None
        out.append({"code": blocker.code, "message": blocker.message,
                    "url": where[0] if where else "", "label": where[1] if where else ""})
    return out


@dataclass
class Page:
    """What the confirmation page needs besides the preview."""

    action: str  # the URL the form posts to
    back: str  # where "Go back" leads
    button: str  # the confirming button's words
    context: dict  # festival, event … for the layout
    hidden: list[tuple[str, str]] = field(default_factory=list)  # the action's own fields, carried along
    fix: Fix | None = None
    danger: bool = False
    back_label: str = ""  # the words of the link back (default: the event's name)


def confirmation_page(request, preview: Preview, page: Page, *, notice: str = ""):
    return render(request, "confirm.html", {
        **page.context, "preview": preview, "blockers": blocker_links(preview.blockers, page.fix), "page": page,
        "notice": notice,
    })


def confirm_and_run(request, *, preview: Callable[[], Preview], call: Callable[[str], object], page: Page,
                    done, then):
    """GET: the confirmation page. POST: `call(expect)`, the service with the confirmed state; its answer as
    `run_service` gives it, or the page again when the service says it was not (or no longer) confirmed."""
    if request.method != "POST":
        return confirmation_page(request, preview(), page)
    expect = ConfirmForm(request.POST).expect()
    try:
        return run_service(request, lambda: call(expect), done=done, then=then)
    except Unconfirmed as refusal:
        return confirmation_page(request, preview(), page, notice=refusal.message)
