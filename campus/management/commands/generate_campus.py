import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from campus import catalog_data
from campus.analysis.weather import CLIMATES, DEFAULT_CLIMATE
from campus.interchange.catalog import db_catalog
from campus.interchange.formats import dump_spec
from campus.interchange.generate import FABRIC_SWITCH, GeneratorError, generate
from campus.interchange.generator.common import (
    COOLING_REDUNDANCY,
    DEFAULT_COOLING_REDUNDANCY,
    DEFAULT_POWER_REDUNDANCY,
    FACILITY_WATER_C,
    HEAT_REJECTION,
    POWER_REDUNDANCY,
)
from campus.interchange.importer import SpecError, import_campus


def parse_mix(text: str) -> list[dict]:
    """ "h100-sxm:8192,gb200:4608" -> [{"gpu_model": "h100-sxm", "gpus": 8192}, ...]."""
    mix = []
    for part in text.split(","):
        model, sep, count = part.strip().partition(":")
        if not sep or not model or not count.strip().isdigit():
            raise CommandError(f'--mix: expected "gpu-model:count,...", got "{part.strip()}"')
        mix.append({"gpu_model": model.strip(), "gpus": int(count)})
    return mix


def parse_phases(text: str) -> list[dict]:
    """ "2026-01-01:h100-sxm:8192,2027-01-01:b200:4096:150" -> [{"date", "gpu_model", "gpus"}, ...]; a
    fourth piece is the phase's own building_max_it_mw."""
    phases = []
    for part in text.split(","):
        pieces = [p.strip() for p in part.strip().split(":")]
        if len(pieces) not in (3, 4) or not pieces[2].isdigit():
            raise CommandError(
                f'--phases: expected "YYYY-MM-DD:gpu-model:count[:building-MW],...", got "{part.strip()}"'
            )
        phase: dict = {"date": pieces[0], "gpu_model": pieces[1], "gpus": int(pieces[2])}
        if len(pieces) == 4:
            try:
                phase["building_max_it_mw"] = float(pieces[3])
            except ValueError:
                raise CommandError(f'--phases: building MW "{pieces[3]}" is not a number') from None
        phases.append(phase)
    return phases


class Command(BaseCommand):
    help = "Generate a reference-design campus (power, cooling, fabric) and import it; prints the campus id."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True)
        parser.add_argument("--gpus", type=int, help="Number of GPUs (or give --mix).")
        parser.add_argument("--gpu-model", default="h100-sxm")
        parser.add_argument("--fabric", default="infiniband-ndr", choices=sorted(FABRIC_SWITCH))
        parser.add_argument(
            "--topology", default="rail-optimized", choices=("rail-optimized", "middle-of-rack")
        )
        parser.add_argument(
            "--nic",
            choices=sorted(catalog_data.NIC_KINDS),
            help="Server model by NIC kind (default: the GPU model's first server).",
        )
        parser.add_argument("--cooling", default="liquid", choices=("liquid", "air"))
        parser.add_argument(
            "--pue",
            type=float,
            help="A typed PUE override (default: none, the PUE comes from the plant and the weather).",
        )
        parser.add_argument("--price", type=float, default=0.078, help="Energy price, USD/kWh.")
        parser.add_argument(
            "--climate", default=DEFAULT_CLIMATE, choices=CLIMATES, help="Reference weather year of the site."
        )
        parser.add_argument("--mix", help='GPU mix, e.g. "h100-sxm:8192,gb200:4608".')
        parser.add_argument("--oversubscription", type=float, default=7.0, help="Above each island.")
        parser.add_argument("--pod-max-gpus", type=int, default=8192)
        parser.add_argument(
            "--island-gpus", type=int, help="GPUs per compute island (the newer name of --pod-max-gpus)."
        )
        parser.add_argument(
            "--island-spans-buildings",
            action="store_true",
            help="An island larger than a building continues in the next one.",
        )
        parser.add_argument(
            "--planning-margin-pct",
            type=float,
            default=0.0,
            help="Spare leaf ports, rack positions, power and cooling, %% above the design.",
        )
        parser.add_argument(
            "--phases",
            help='A build-out in phases, e.g. "2026-01-01:h100-sxm:8192,2027-01-01:b200:4096" (docs/generator.md).',
        )
        parser.add_argument("--building-max-it-mw", type=float, default=80.0)
        parser.add_argument("--hall-max-it-mw", type=float, default=20.0)
        parser.add_argument("--racks-per-row", type=int, default=32)
        parser.add_argument(
            "--bess-mw-per-building", type=float, default=0.0, help="Battery storage per building, MW."
        )
        parser.add_argument("--bess-hours", type=float, help="Storage hours at full power (default 2).")
        parser.add_argument(
            "--power-redundancy",
            default=DEFAULT_POWER_REDUNDANCY,
            choices=POWER_REDUNDANCY,
            help="Critical power topology: N, N+1 (distributed redundant blocks) or 2N (default).",
        )
        parser.add_argument(
            "--cooling-redundancy",
            default=DEFAULT_COOLING_REDUNDANCY,
            choices=COOLING_REDUNDANCY,
            help="Spare cooling units and plants: N, N+1 (default) or 2N.",
        )
        parser.add_argument(
            "--power-architecture",
            default="ac",
            choices=("ac", "dc-800", "dc-400"),
            help="Distribution from medium voltage to the racks: ac (default), dc-800 (solid-state "
            "transformers, 800 VDC busways) or dc-400 (sidecar power racks, ±400 VDC).",
        )
        parser.add_argument(
            "--heat-rejection",
            default="auto",
            choices=tuple(HEAT_REJECTION),
            help="The plants: auto (by the climate's design hours), evaporative, air-cooled, dry, adiabatic "
            "or hybrid (docs/generator.md).",
        )
        parser.add_argument(
            "--facility-water",
            choices=tuple(FACILITY_WATER_C),
            help="ASHRAE class of the liquid loop's facility water: W32, W40 or W45 (default: the catalog's).",
        )
        parser.add_argument(
            "--replace", action="store_true", help="Replace an existing campus of the same name."
        )
        parser.add_argument(
            "--spec-only", action="store_true", help="Write the spec instead of importing it."
        )
        parser.add_argument("-o", "--output", help="With --spec-only: file to write (.json for JSON).")

    def handle(self, *args, **o):
        started = time.perf_counter()
        try:
            design = generate(
                name=o["name"],
                gpus=o["gpus"],
                gpu_model=o["gpu_model"],
                fabric=o["fabric"],
                topology=o["topology"],
                nic=o["nic"],
                cooling=o["cooling"],
                pue=o["pue"],
                price_usd_per_kwh=o["price"],
                climate=o["climate"],
                mix=parse_mix(o["mix"]) if o["mix"] else None,
                phases=parse_phases(o["phases"]) if o["phases"] else None,
                oversubscription=o["oversubscription"],
                pod_max_gpus=o["pod_max_gpus"],
                island_gpus=o["island_gpus"],
                planning_margin_pct=o["planning_margin_pct"],
                island_spans_buildings=o["island_spans_buildings"],
                building_max_it_mw=o["building_max_it_mw"],
                hall_max_it_mw=o["hall_max_it_mw"],
                racks_per_row=o["racks_per_row"],
                bess_mw_per_building=o["bess_mw_per_building"],
                bess_hours=o["bess_hours"],
                power_redundancy=o["power_redundancy"],
                cooling_redundancy=o["cooling_redundancy"],
                power_architecture=o["power_architecture"],
                heat_rejection=o["heat_rejection"],
                facility_water=o["facility_water"],
                catalog=db_catalog(),
            )
        except GeneratorError as exc:
            raise CommandError(f"--{exc.field.replace('_', '-')}: {exc}") from None
        spec = design.spec
        for note in design.notes:
            self.stderr.write(f"note: {note}")
        self.stderr.write(f"{'generated':>15}: {time.perf_counter() - started:6.2f} s")
        if o["spec_only"]:
            output = o["output"]
            fmt = "json" if output and output.lower().endswith(".json") else "yaml"
            text = dump_spec(spec, fmt)
            if output:
                Path(output).write_text(text, encoding="utf-8")
                self.stderr.write(f"spec written to {output}")
            else:
                self.stdout.write(text, ending="")
            return

        def progress(stage: str, count: int) -> None:
            self.stderr.write(f"{stage:>15}: {count:>7} rows  {time.perf_counter() - started:6.2f} s")

        try:
            campus = import_campus(spec, progress=progress, replace=o["replace"])
        except SpecError as exc:
            for error in exc.errors:
                self.stderr.write(f"{error['path']}: {error['message']}")
            raise CommandError(f"{len(exc.errors)} error(s); nothing was written") from None
        self.stdout.write(str(campus.pk))
