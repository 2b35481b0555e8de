from django.core.management.base import BaseCommand

from campus.catalog_loader import sync_catalog


class Command(BaseCommand):
    help = "Insert the documented catalog defaults (GPU, node and switch models, link media, failure rates)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--overwrite", action="store_true", help="Reset default rows to the documented values."
        )

    def handle(self, *args, overwrite=False, **options):
        written = sync_catalog(overwrite=overwrite)
        total = sum(written.values())
        self.stdout.write(
            f"catalog: {total} rows written " + ", ".join(f"{k}={v}" for k, v in sorted(written.items()))
        )
