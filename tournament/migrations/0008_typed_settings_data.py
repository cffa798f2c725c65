"""Copy the list settings from their text columns ("3,3,3") to the JSON lists ([3, 3, 3]), and back.

A text is read as the old model methods read it (split at commas, blank parts skipped). A text they refused
gets what the app did with it: games per round [3, 3, 3] (the timetable's fallback), no ranking points (the
results pages gave none), the default standings order. Languages keep the codes the site offers (any case);
none left gives the default, Korean and English.
"""

from django.conf import settings
from django.db import migrations

CRITERIA = ("wins", "points", "average", "lot", "playoff")  # tournament.formats.ranking.CRITERIA


def _parts(text: str) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def _numbers(text: str, low: int, high: int) -> list[int] | None:
    try:
        numbers = [int(part) for part in _parts(text)]
    except ValueError:
        return None
    return numbers if all(low <= n <= high for n in numbers) else None


def stage_games(text: str) -> list[int]:
    return _numbers(text, 1, 9) or [3, 3, 3]


def ranking_points(text: str) -> list[int]:
    return _numbers(text, 0, 100_000) or []


def tiebreaks(text: str) -> list[str]:
    names = _parts(text)
    return names if all(name in CRITERIA for name in names) else []


def languages(text: str) -> list[str]:
    offered = {code.lower(): code for code, _name in settings.LANGUAGES}
    return [offered[part.lower()] for part in _parts(text) if part.lower() in offered] or ["ko", "en"]


def as_text(values) -> str:
    return ",".join(str(value) for value in values)


EVENT = {"stage_games": stage_games, "ranking_points": ranking_points, "tiebreaks": tiebreaks}
FESTIVAL = {"languages": languages}


def _copy(model, fields: dict, to_lists: bool) -> None:
    rows = list(model.objects.all())
    for row in rows:
        for name, read in fields.items():
            if to_lists:
                setattr(row, name, read(getattr(row, f"{name}_text")))
            else:
                setattr(row, f"{name}_text", as_text(getattr(row, name)))
    columns = list(fields) if to_lists else [f"{name}_text" for name in fields]
    model.objects.bulk_update(rows, columns, batch_size=500)


def to_lists(apps, schema_editor):
    _copy(apps.get_model("tournament", "Festival"), FESTIVAL, True)
    _copy(apps.get_model("tournament", "Event"), EVENT, True)


def to_text(apps, schema_editor):
    _copy(apps.get_model("tournament", "Festival"), FESTIVAL, False)
    _copy(apps.get_model("tournament", "Event"), EVENT, False)


class Migration(migrations.Migration):

    dependencies = [
        ('tournament', '0007_typed_settings'),
    ]

    operations = [
        migrations.RunPython(to_lists, to_text),
    ]
