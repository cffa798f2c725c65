"""Erase contacts, birth years and guardians' details of festivals past their retention period (run daily).

Safe to run any number of times: a festival already erased with nothing new to erase is skipped and gets no
second audit record. `--dry-run` lists what would be erased and changes nothing.
"""

from django.core.management.base import BaseCommand
from django.utils import timezone

from tournament.services.erasure import delete_expired_files, erase_festival, erasure_due, festivals_due


class Command(BaseCommand):
    help = "Erase players' contacts, birth years and guardians' details once a festival's retention period is over."

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="list what would be erased; change nothing")

    def handle(self, *args, dry_run, **options):
        now = timezone.now()
        erased = 0
        for festival in festivals_due(now=now):
            erasure = erase_festival(festival=festival, now=now, dry_run=dry_run)
            if erasure is None:
                continue
            erased += 1
            due = timezone.localtime(erasure_due(festival), festival.tzinfo)
            self.stdout.write(
                f"{'Would erase' if dry_run else 'Erased'} {festival.slug} (due {due:%Y-%m-%d %H:%M %Z}): "
                f"{erasure.players} players, {erasure.audit_entries} audit entries scrubbed, "
                f"{erasure.pending_imports} uploads waiting for confirmation deleted"
            )
        if not dry_run:
            files = delete_expired_files(now=now)
            if files:
                self.stdout.write(f"Deleted {files} expired uploads waiting for confirmation.")
        if not erased:
            self.stdout.write("Nothing to erase.")
