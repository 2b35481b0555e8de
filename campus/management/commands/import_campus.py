import sys
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from campus.interchange.formats import SpecFormatError, parse_spec
from campus.interchange.importer import SpecError, import_campus


class Command(BaseCommand):
    help = "Import a campus spec (YAML or JSON) and print the new campus id. Nothing is written on any error."

    def add_arguments(self, parser):
        parser.add_argument("file", help="Spec file (.yaml, .yml or .json); - reads standard input.")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="Replace the contents of an existing campus of the same name.",
        )

    def handle(self, *args, file: str, replace: bool = False, **options):
        if file == "-":
            text, fmt = sys.stdin.read(), "yaml"
        else:
            path = Path(file)
            if not path.is_file():
                raise CommandError(f"{file}: no such file")
            text = path.read_text(encoding="utf-8")
            fmt = "json" if path.suffix.lower() == ".json" else "yaml"
        try:
            data = parse_spec(text, fmt)
        except SpecFormatError as exc:
            raise CommandError(f"{file}: {exc}") from None
        started = time.perf_counter()

        def progress(stage: str, count: int) -> None:
            self.stderr.write(f"{stage:>15}: {count:>7} rows  {time.perf_counter() - started:6.2f} s")

        try:
            campus = import_campus(data, progress=progress, replace=replace)
        except SpecError as exc:
            for error in exc.errors:
                self.stderr.write(f"{error['path']}: {error['message']}")
            raise CommandError(f"{file}: {len(exc.errors)} error(s); nothing was written") from None
        self.stdout.write(str(campus.pk))
