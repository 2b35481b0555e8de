"""Response shapes of the achieved redundancy level (``campus.analysis.redundancy_levels``) and of the
``warnings`` a write answers with when it takes a campus below its declared level (``campus.redundancy_guard``)."""

from rest_framework import serializers

LEVEL_CHOICES = ["N", "N+1", "2N"]


class ElementRefSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="`utility`, `power`, `cooling` or `plant`: impact mode's kind.")
    id = serializers.IntegerField()
    name = serializers.CharField()


class SingleFailureSerializer(serializers.Serializer):
    element = ElementRefSerializer()
    gpus_lost = serializers.IntegerField()
    racks_lost = serializers.ListField(child=serializers.IntegerField())


class FailurePairSerializer(serializers.Serializer):
    maintenance = ElementRefSerializer(help_text="The element out for planned maintenance.")
    failure = ElementRefSerializer(help_text="The element that then fails.")
    gpus_lost = serializers.IntegerField(help_text="GPUs the two out together lose.")
    racks_lost = serializers.ListField(child=serializers.IntegerField())


class ChainLevelSerializer(serializers.Serializer):
    kind = serializers.CharField(
        help_text="`hall` (power: the racks of a hall) or, for cooling, `group` (a named group of units), "
        "`hall air` (a hall's ungrouped air units) or `unit` (a unit alone)."
    )
    id = serializers.JSONField(help_text="The hall's or unit's id, or the group's name.")
    name = serializers.CharField()
    achieved = serializers.ChoiceField(choices=LEVEL_CHOICES)
    racks = serializers.IntegerField(help_text="Racks with GPUs in the chain.")
    gpus = serializers.IntegerField()
    gpus_at_risk = serializers.IntegerField(help_text="GPUs of the chain's racks below the declared level.")


class RedundancyLevelSerializer(serializers.Serializer):
    domain = serializers.ChoiceField(choices=["power", "cooling"])
    field = serializers.CharField(help_text="The campus field declaring the level.")
    declared = serializers.CharField(help_text="`N`, `N+1`, `2N` or empty (not declared).")
    achieved = serializers.ChoiceField(
        choices=LEVEL_CHOICES,
        help_text="2N: any one element of the domain out for maintenance and then any single failure of "
        "another cost no GPU; N+1: any single failure costs none; N otherwise (or racks down at design). "
        "The lowest level of the domain's racks with GPUs.",
    )
    meets_declared = serializers.BooleanField()
    racks_at_risk = serializers.ListField(
        child=serializers.IntegerField(), help_text="Racks below the declared level."
    )
    gpus_at_risk = serializers.IntegerField(help_text="GPUs in racks below the declared level.")
    single_failures = SingleFailureSerializer(
        many=True,
        help_text="Elements whose loss alone costs GPUs (they make it N), most GPUs first, at most 20.",
    )
    pairs = FailurePairSerializer(
        many=True,
        help_text="Pairs (one out, then one failed) that cost GPUs beyond the two alone, at most 20.",
    )
    pairs_count = serializers.IntegerField(help_text="Every such pair.")
    elements = serializers.IntegerField(help_text="Elements of the domain failed.")
    pairs_total = serializers.IntegerField(help_text="Pairs of the domain's elements.")
    pairs_checked = serializers.IntegerField(
        help_text="Pairs failed together: those whose failures meet (the others lose what each loses alone)."
    )
    racks_down_at_design = serializers.ListField(child=serializers.IntegerField())
    racks_counted = serializers.IntegerField(
        help_text="Racks judged: those with GPUs or IT load (cooling: those powered at design)."
    )
    groups = ChainLevelSerializer(many=True, help_text="Each chain's level, the lowest first.")


class RedundancyWarningSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="`redundancy_below_declared`.")
    campus = serializers.IntegerField()
    domain = serializers.ChoiceField(choices=["power", "cooling"])
    declared = serializers.CharField()
    before = serializers.CharField(help_text="The level achieved before the write.")
    after = serializers.CharField(help_text="The level achieved after it.")
    elements = serializers.ListField(
        child=serializers.DictField(),
        help_text="The elements that now cost GPUs: single failures ({kind, id, name}) or pairs "
        "({maintenance, failure}).",
    )
    gpus_at_risk = serializers.IntegerField()
    racks_at_risk = serializers.ListField(child=serializers.IntegerField())
    message = serializers.CharField()
