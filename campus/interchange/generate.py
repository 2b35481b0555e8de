"""The generator's public names at their original address; the code lives in ``campus.interchange.generator``."""

from campus.interchange.generator import (
    COOLING,
    FABRIC_SWITCH,
    Catalog,
    GeneratedDesign,
    GeneratorError,
    generate,
    generate_spec,
    nodes_per_rack,
    pick_node_model,
)

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
