from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from campus.interchange.exporter import export_campus
from campus.interchange.formats import dump_spec
from campus.models import Campus


class Command(BaseCommand):
    help = "Export a campus as a spec (YAML or JSON) to standard output or a file."

    def add_arguments(self, parser):
        parser.add_argument("id", type=int, help="Campus id.")
        parser.add_argument("--format", choices=("yaml", "json"), default="yaml")
        parser.add_argument("-o", "--output", help="Write to this file instead of standard output.")

    def handle(self, *args, id: int, format: str = "yaml", output: str | None = None, **options):
        campus = Campus.objects.filter(pk=id).first()
        if campus is None:
            raise CommandError(f"no campus with id {id}")
        text = dump_spec(export_campus(campus), format)
        if output:
            Path(output).write_text(text, encoding="utf-8")
            self.stderr.write(f"campus {id} written to {output}")
        else:
            self.stdout.write(text, ending="")
