"""Recording who did what (DESIGN.md: nothing is lost or silently changed)."""

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser

from ..models import AuditEntry


@dataclass(frozen=True)
class Actor:
    """Who is acting: a signed-in user, or a label for those without an account (a player's link …)."""

    user: AbstractBaseUser | None = None
    label: str = ""

    @classmethod
    def of(cls, request) -> "Actor":
        user = request.user if request.user.is_authenticated else None
        return cls(user=user, label="" if user else "anonymous")

    def __str__(self) -> str:
        return self.user.get_username() if self.user else self.label


SYSTEM = Actor(label="system")


def record(*, actor: Actor, action: str, target=None, event=None, festival=None, before=None, after=None, reason=""):
    if event is not None and festival is None:
        festival = event.festival
    return AuditEntry.objects.create(
        actor=actor.user,
        actor_label=actor.label,
        action=action,
        festival=festival,
        event=event,
        target_type=target._meta.model_name if target is not None else "",
        target_id=target.pk if target is not None else None,
        before=before,
        after=after,
        reason=reason,
    )
