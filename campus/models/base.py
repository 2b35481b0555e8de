from django.core.exceptions import ValidationError
from django.db import models


class TimestampedModel(models.Model):
    created = models.DateTimeField(auto_now_add=True)
    last_updated = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True

    def clean(self) -> None:
        """The inventory rules the spec importer applies (campus.interchange.rules), so the admin and the
        API refuse what an import would."""
        from campus.integrity import instance_errors

        if errors := instance_errors(self):
            raise ValidationError(errors)


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
