from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from campus.interchange.demo import DEMO_NAME
from campus.models import Campus
from simulations.models import Scenario, Schedule

# The what-if runs a planner would watch every night on the demo campus.
DEMO_SCHEDULES = (
    {
        "scenario": {
            "kind": "grid_limit",
            "name": "Grid cut 25% for 3 h",
            "description": "Demand-response event: shed a quarter of the campus's load for three hours.",
            "params": {},
        },
        "name": "Nightly grid cut",
        "crontab": "0 2 * * *",
        "replicas": 10,
        "thresholds": [{"metric": "campus.power.grid_headroom_mw", "op": "<", "value": 0}],
    },
    {
        "scenario": {
            "kind": "failure_cascade",
            "name": "Failures over a week",
            "description": "Every component class at the catalog's rates; campus-wide job with checkpoint/restart.",
            "params": {"duration_days": 7},
        },
        "name": "Nightly failure cascade",
        "crontab": "30 2 * * *",
        "replicas": 20,
        "thresholds": [{"metric": "ettr", "op": "<", "value": 0.85, "stat": "mean"}],
    },
)


class Command(BaseCommand):
    help = "Attach the nightly what-if schedules to the demo campus once (does nothing when they exist)."

    @transaction.atomic
    def handle(self, *args, **options):
        campus = Campus.objects.filter(name=DEMO_NAME).first()
        if campus is None:
            raise CommandError(f'no campus named "{DEMO_NAME}": run load_demo_campus first')
        created = 0
        for entry in DEMO_SCHEDULES:
            if Schedule.objects.filter(name=entry["name"]).exists():
                continue
            scenario, _ = Scenario.objects.get_or_create(
                campus=campus, name=entry["scenario"]["name"], defaults=entry["scenario"]
            )
            schedule = Schedule(
                scenario=scenario,
                name=entry["name"],
                crontab=entry["crontab"],
                replicas=entry["replicas"],
                thresholds=entry["thresholds"],
            )
            schedule.full_clean(exclude=["periodic_task"])
            schedule.save()
            created += 1
        self.stderr.write(f"demo schedules: {created} created")
