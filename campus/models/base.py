from collections.abc import Callable
from typing import ClassVar

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone


def _no_rules(obj: models.Model) -> dict[str, str]:
    return {}


def SET_NULL_STAMPED(collector, field, sub_objs, using):  # noqa: N802 (named like Django's SET_NULL)
    """``on_delete``: SET_NULL that also stamps the rows it changes (``last_updated``).

    Django's SET_NULL updates the referencing rows without their ``auto_now`` stamp, so a pod deleted left its
    racks' table version as it was and the analytics' incremental snapshot kept the racks' pod (and a scenario
    on the pod passed the campus check)."""
    collector.add_field_update(field, None, sub_objs)
    collector.add_field_update(field.model._meta.get_field("last_updated"), timezone.now(), sub_objs)


class StampedQuerySet(models.QuerySet):
    """A queryset whose writes that bypass ``save()`` stamp ``last_updated`` as ``save()`` does.

    ``QuerySet.update()`` and ``bulk_update()`` leave ``auto_now`` fields as they were. A campus's version
    (``campus.versions``: row count and newest ``last_updated`` per table) then stays the same although rows
    changed, and every process that had read the campus kept its analytics (summary, timeline, headroom,
    placement) of the old rows: a branch merged into its parent, written with ``bulk_update``, left the
    parent's summary showing the design before the merge. Every write through a model's manager, its
    related managers or ``bulk_update_with_history`` goes through here."""

    def update(self, **kwargs):
        kwargs.setdefault("last_updated", timezone.now())
        return super().update(**kwargs)

    update.alters_data = True

    def bulk_update(self, objs, fields, batch_size=None):
        objs = list(objs)
        fields = list(fields)
        now = timezone.now()
        for obj in objs:
            obj.last_updated = now
        if "last_updated" not in fields:
            fields.append("last_updated")
        return super().bulk_update(objs, fields, batch_size=batch_size)

    bulk_update.alters_data = True


class TimestampedModel(models.Model):
    created = models.DateTimeField(auto_now_add=True)
    last_updated = models.DateTimeField(auto_now=True)

    objects = StampedQuerySet.as_manager()

    # The inventory rules ``clean()`` applies: ``campus.integrity.instance_errors``, set once by
    # ``CampusConfig.ready()``. The rules read every model, so the models cannot import them.
    instance_rules: ClassVar[Callable[[models.Model], dict[str, str]]] = staticmethod(_no_rules)

    class Meta:
        abstract = True

    def clean(self) -> None:
        """The inventory rules the spec importer applies (campus.interchange.rules), so the admin and the
        API refuse what an import would."""
        if errors := TimestampedModel.instance_rules(self):
            raise ValidationError(errors)


class InventoryModel(TimestampedModel):
    """An inventory object: what the campus holds, with the dates it enters and leaves service.

    Empty dates: in service since always and never retired. An object is in service on day D when
    (``in_service_date`` is empty or ≤ D) and (``retire_date`` is empty or > D); analytics count only
    what is in service on their ``as_of`` day (docs/planning.md, "Phases")."""

    in_service_date = models.DateField(
        null=True,
        blank=True,
        help_text="First day in service (energised, commissioned); empty: in service since always.",
    )
    retire_date = models.DateField(
        null=True,
        blank=True,
        help_text="First day out of service (decommissioned); empty: never retired. After in_service_date.",
    )

    class Meta:
        abstract = True


class CatalogModel(TimestampedModel):
    """A catalog row: a default that users may override, always with where its numbers come from."""

    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=128)
    source = models.TextField(help_text="Where the figures come from (document, date).")
    estimate = models.BooleanField(
        default=False, help_text="True where a figure is an estimate, not a published value."
    )

    class Meta:
        abstract = True
        ordering = ("slug",)

    def __str__(self) -> str:
        return self.name
