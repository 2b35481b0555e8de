"""Rack-scale NVLink domains: the server models that are installed a whole rack at a time.

NVIDIA GB200 NVL72 joins 72 Blackwell GPUs in one NVLink domain across the 18 compute trays (4 GPUs each) of
one rack (NVIDIA GB200 NVL72 product page and DGX GB200 user guide), so a rack holds none of its trays or all
18. A model whose slug names an NVLink domain of N GPUs ("nvl72", "nvl36") is read the same way: N GPUs over
the model's GPUs per node.
"""

from __future__ import annotations

import re

NVL72_TRAYS_PER_RACK = 18  # GB200 NVL72: 18 compute trays of 4 GPUs
_NVL_GPUS = re.compile(r"nvl(\d+)", re.IGNORECASE)
# From Vera Rubin on NVIDIA names the NVLink domain by reticle dies, not packages: NVL144 is 72 Rubin packages
# of 2 dies in 18 trays of 4, NVL576 is 144 Rubin Ultra packages of 4 dies in 72 blades of 2 (Kyber rack).
DIES_PER_PACKAGE = {"vr200-nvl144-tray": 2, "rubin-ultra-nvl576-blade": 4}


def whole_rack_nodes(node_model_slug: str, gpus_per_node: int) -> int | None:
    """How many nodes of this model make the one rack-scale NVLink domain it belongs to (GB200 NVL72:
    72 GPUs / 4 per tray = 18), or None for a model that may be installed one server at a time."""
    match = _NVL_GPUS.search(node_model_slug)
    if match is None or gpus_per_node <= 0:
        return None
    gpus = int(match.group(1)) // DIES_PER_PACKAGE.get(node_model_slug, 1)
    if gpus == 72 and gpus_per_node == 4:
        return NVL72_TRAYS_PER_RACK
    return max(1, gpus // gpus_per_node)
