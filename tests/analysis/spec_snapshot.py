"""A generated campus spec as a snapshot without the database, for the property tests: the one path the
generator itself uses (``campus.interchange.spec_snapshot``)."""

from campus.interchange.spec_snapshot import spec_snapshot

__all__ = ["spec_snapshot"]
