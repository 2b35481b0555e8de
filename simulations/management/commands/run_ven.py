import asyncio

from django.core.management.base import BaseCommand, CommandError

from campus.models import Campus
from simulations.openadr.signals import UNIT_MW
from simulations.openadr.ven import CampusVen


class Command(BaseCommand):
    help = (
        "Run the campus as an OpenADR 2.0b VEN against a VTN: register, poll, answer each event through the "
        "grid_limit scenario (docs/grid.md, OpenADR). Runs until stopped."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campus", type=int, required=True)
        parser.add_argument("--vtn-url", required=True, help="e.g. https://vtn.example/OpenADR2/Simple/2.0b")
        parser.add_argument("--ven-name", required=True)
        parser.add_argument("--dispatch-unit", choices=sorted(UNIT_MW), default="MW")

    def handle(self, *args, **options):
        if not Campus.objects.filter(pk=options["campus"]).exists():
            raise CommandError(f"no campus {options['campus']}")
        ven = CampusVen(
            options["campus"], options["vtn_url"], options["ven_name"], dispatch_unit=options["dispatch_unit"]
        )

        async def main():
            await ven.run()
            await asyncio.Event().wait()

        asyncio.run(main())
