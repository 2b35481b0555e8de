"""Request and response shapes of the design-branch endpoints (branch, diff, merge)."""

from rest_framework import serializers

from campus.models import Campus
from twin.api.serializers.base import StrictFieldsMixin, StrictQueryMixin


class TextOnlyField(serializers.CharField):
    """A name given as JSON text: a number or a boolean is refused rather than turned into text."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


def new_campus_name(value: str) -> str:
    """The name of a campus about to be made (a branch): stripped, not blank, not taken by another campus."""
    value = value.strip()
    if not value:
        raise serializers.ValidationError("This field may not be blank.")
    if Campus.objects.filter(name=value).exists():
        raise serializers.ValidationError(f'A campus named "{value}" exists already.')
    return value


class BranchRequestSerializer(StrictFieldsMixin, serializers.Serializer):
    name = TextOnlyField(
        max_length=128, help_text="Name of the new campus (unique among campuses), as JSON text."
    )

    def validate_name(self, value: str) -> str:
        return new_campus_name(value)


class BranchSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The new campus (the branch).")
    parent = serializers.IntegerField(help_text="The campus it was branched from.")
    name = serializers.CharField()
    branched_at = serializers.DateTimeField()


class DiffQuerySerializer(StrictQueryMixin, serializers.Serializer):
    against = serializers.IntegerField(
        min_value=1, max_value=2**63 - 1, help_text="The campus to compare with ('theirs')."
    )


class DiffObjectSerializer(serializers.Serializer):
    model = serializers.CharField(help_text="Model name, as /api/changes/ names it (rack, powerdevice, ...).")
    name = serializers.CharField(help_text="Natural key: the name, with its container's for nested objects.")


class DiffChangeSerializer(DiffObjectSerializer):
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.JSONField(), min_length=2, max_length=2),
        help_text="Each differing field as [theirs, ours]; references by the referenced object's name.",
    )


class DiffObjectsSerializer(serializers.Serializer):
    added = DiffObjectSerializer(many=True, help_text="In this campus only.")
    removed = DiffObjectSerializer(many=True, help_text="In `against` only.")
    changed = DiffChangeSerializer(many=True)


class DiffSerializer(serializers.Serializer):
    ours = serializers.IntegerField()
    theirs = serializers.IntegerField()
    objects = DiffObjectsSerializer()
    figures = serializers.DictField(
        child=serializers.ListField(
            child=serializers.FloatField(allow_null=True), min_length=3, max_length=3
        ),
        help_text="Summary figures as [theirs, ours, ours − theirs] (null where a figure does not exist).",
    )


class MergeRequestSerializer(StrictFieldsMixin, serializers.Serializer):
    pass


class MergeSerializer(serializers.Serializer):
    parent = serializers.IntegerField(help_text="The campus the branch was merged into.")
    added = serializers.IntegerField()
    changed = serializers.IntegerField()
    removed = serializers.IntegerField()


class MergeProblemSerializer(serializers.Serializer):
    model = serializers.CharField()
    name = serializers.CharField()
    reason = serializers.CharField()
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False)


class MergeErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    objects = MergeProblemSerializer(many=True)
