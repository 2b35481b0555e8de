"""The database catalog in the row shape of ``campus.catalog_data``, for the generator.

Generated campuses then use the catalog as the user keeps it (added models, changed figures), not only
the shipped defaults.
"""

from __future__ import annotations

from django.forms.models import model_to_dict

from campus.interchange.generate import Catalog
from campus.models import GPUModel, LinkMedium, NodeModel, SwitchModel


def db_catalog() -> Catalog:
    """GPU, node, switch and medium rows keyed by slug (four queries)."""
    nodes = {}
    for row in NodeModel.objects.select_related("gpu_model"):
        data = model_to_dict(row)
        data["gpu"] = row.gpu_model.slug
        nodes[row.slug] = data
    return Catalog(
        gpus={row.slug: model_to_dict(row) for row in GPUModel.objects.all()},
        node_models=nodes,
        switch_models={row.slug: model_to_dict(row) for row in SwitchModel.objects.all()},
        media={row.slug: model_to_dict(row) for row in LinkMedium.objects.all()},
    )
