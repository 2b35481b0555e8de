"""Reference-design generator: a whole campus of N GPUs as a campus spec (a plain dict).

``generate_spec`` returns the same document ``campus.interchange.importer.import_campus`` reads, so generated
and hand-written campuses go through one validation and one writer. Pure Python: the catalog comes in
as rows (``campus.catalog_data`` by default, or the database's via ``campus.interchange.catalog.db_catalog``).
docs/generator.md gives every design rule and where its numbers come from.

One module per step:
- ``plan``: GPUs → servers (node model by GPU and NIC) → racks (by rack units and the rack power limit; an
  NVL72 rack is 18 trays) → pods (compute islands of at most ``pod_max_gpus`` / ``island_gpus``).
- ``layout``: pods → buildings (at most ``building_max_it_mw`` of IT each, a phase's own if it has one;
  an island continues in the next building with ``island_spans_buildings``) → halls (at most
  ``hall_max_it_mw``) → rows of ``racks_per_row``, with positions on the floor.
- ``power``: the chain of ``power_redundancy``: 2N (default) utility A/B → substations → per hall
  transformer, switchgear (+ N+1 generators), UPS modules → per row PDU A/B → rack feeds A and B, each
  rated for the whole rack; N (side A alone); N+1 (k + 1 distributed redundant blocks per hall, each rack
  on two of them); and the mechanical boards that feed the cooling.
- ``cooling``: per building a set of plants and per hall a group of CDUs (liquid) or CRAHs (air), N, N+1
  (default) or 2N by ``cooling_redundancy``; every rack is assigned a unit.
- ``fabric``: per pod the tiers ``campus.analysis.fabric.plan_campus`` gives (tiers that close with the
  pod's uplinks), leaf groups per rail or per row, one spine/core group per pod, and above the pods a
  super-spine layer or a shared non-blocking top; switches sized for the planning margin.
- ``document``: ``generate_spec`` itself, which checks the parameters and runs the steps.
"""

from campus.interchange.generator.common import COOLING, FABRIC_SWITCH, Catalog, GeneratorError
from campus.interchange.generator.document import GeneratedDesign, generate, generate_spec
from campus.interchange.generator.plan import nodes_per_rack, pick_node_model

__all__ = [
    "COOLING",
    "FABRIC_SWITCH",
    "Catalog",
    "GeneratedDesign",
    "GeneratorError",
    "generate",
    "generate_spec",
    "nodes_per_rack",
    "pick_node_model",
]
