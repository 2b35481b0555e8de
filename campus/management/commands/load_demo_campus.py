from django.core.management.base import BaseCommand

from campus.interchange.demo import DEMO_NAME, load_demo_campus


class Command(BaseCommand):
    help = f'Load the demo campus "{DEMO_NAME}" once (does nothing when a campus of that name exists).'

    def handle(self, *args, **options):
        campus, created = load_demo_campus()
        state = "loaded" if created else "already present"
        self.stderr.write(f'demo campus "{campus.name}" {state} (id {campus.pk})')
        self.stdout.write(str(campus.pk))
