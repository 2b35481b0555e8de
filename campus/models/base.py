from django.db import models


class TimestampedModel(models.Model):
    created = models.DateTimeField(auto_now_add=True)
    last_updated = models.DateTimeField(auto_now=True)

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
