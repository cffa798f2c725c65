"""`manage.py simulate_event --format busan|hk [--game word] --players N --seed S`: play a whole event."""

from django.core.management.base import BaseCommand, CommandError

from scoring.simulation import FORMATS, GAMES, SimulationError, simulate, summary_lines
from tournament.models import Festival


class Command(BaseCommand):
    help = (
        "Create an event of N checked-in players (in a new festival unless --festival is given) and play it "
        "to the end through the same services as the web pages, with plausible score sheets made by rules/. "
        "The same seed plays the same event."
    )

    def add_arguments(self, parser):
        parser.add_argument("--format", required=True, choices=sorted(FORMATS), dest="fmt",
                            help="busan (elimination rounds and a final) or hk (move up a table).")
        parser.add_argument("--game", default="classic", choices=sorted(GAMES),
                            help="classic (Rummikub, default) or word (Rummikub Word, R10).")
        parser.add_argument("--players", required=True, type=int, help="Checked-in players (at least 2).")
        parser.add_argument("--seed", type=int, default=1, help="Same seed, same event (default 1).")
        parser.add_argument("--festival", default=None, help="Slug of an existing festival to add the event to.")
        parser.add_argument("--name", default=None, help="The event's name.")

    def handle(self, *args, fmt: str, game: str, players: int, seed: int, festival: str | None, name: str | None, **options):
        target = None
        if festival is not None:
            target = Festival.objects.filter(slug=festival).first()
            if target is None:
                raise CommandError(f"No festival with the slug {festival!r}.")
        try:
            event = simulate(fmt, players, seed, festival=target, name=name, game=game)
        except SimulationError as error:
            raise CommandError(str(error)) from error
        for line in summary_lines(event):
            self.stdout.write(line)
