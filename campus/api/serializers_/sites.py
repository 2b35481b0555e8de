from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from campus.analysis.capex import MAX_PRICE_USD, validate_overrides
from campus.api.rack_power import rack_power
from campus.interchange.rules import (
    GRID_CAPACITY_MESSAGE,
    UTILITY_CAPACITY_MESSAGE,
    grid_capacity_problem,
    utility_capacity_problem,
)
from campus.models import Building, Campus, DataHall, Rack, Row, UtilityFeed
from twin.api.serializers import TwinModelSerializer

BRIEF = ("id", "url", "name")


class CampusSerializer(TwinModelSerializer):
    price_overrides = serializers.DictField(
        child=serializers.FloatField(min_value=0, max_value=MAX_PRICE_USD),
        required=False,
        help_text="The campus's own unit prices, USD, by price-catalog key (GET /api/price-catalog/): "
        '{"switch/quantum-2-qm9700": 30000}. An unknown key is a 400 naming it.',
    )

    class Meta:
        model = Campus
        fields = "__all__"
        read_only_fields = ("parent", "branched_at")
        validators = []
        brief_fields = BRIEF
        # A negative or null capacity gets the rule's own message, as 0 does (not "greater than or equal to 0")
        extra_kwargs = {
            "grid_capacity_mw": {
                "error_messages": {"min_value": GRID_CAPACITY_MESSAGE, "null": GRID_CAPACITY_MESSAGE}
            }
        }

    def validate_grid_capacity_mw(self, value: float) -> float:
        # the rule every write path shares (the spec importer and the admin give the same message)
        if message := grid_capacity_problem(value):
            raise serializers.ValidationError(message)
        return value

    def validate_price_overrides(self, value: dict) -> dict:
        try:
            return validate_overrides(value)
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from None


class UtilityFeedSerializer(TwinModelSerializer):
    class Meta:
        model = UtilityFeed
        fields = "__all__"
        validators = []
        brief_fields = BRIEF
        # a negative capacity gets the rule's own message, as 0 does (not "greater than or equal to 0")
        extra_kwargs = {"capacity_mw": {"error_messages": {"min_value": UTILITY_CAPACITY_MESSAGE}}}

    def validate_capacity_mw(self, value: float) -> float:
        # the rule every write path shares (the spec importer and the admin give the same message)
        if message := utility_capacity_problem(value):
            raise serializers.ValidationError(message)
        return value


class BuildingSerializer(TwinModelSerializer):
    class Meta:
        model = Building
        fields = "__all__"
        validators = []
        brief_fields = BRIEF


class DataHallSerializer(TwinModelSerializer):
    class Meta:
        model = DataHall
        fields = "__all__"
        validators = []
        brief_fields = BRIEF


class RowSerializer(TwinModelSerializer):
    class Meta:
        model = Row
        fields = "__all__"
        validators = []
        brief_fields = BRIEF


class RackFeedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    side = serializers.CharField()
    rating_kw = serializers.FloatField()
    upstream_id = serializers.IntegerField()
    upstream_name = serializers.CharField()


class RackPowerSerializer(serializers.Serializer):
    gpus = serializers.IntegerField(help_text="GPUs in the rack's active servers.")
    gpus_by_model = serializers.DictField(child=serializers.IntegerField())
    it_load_kw = serializers.FloatField(
        help_text="Modelled IT load (servers plus extra_it_kw), kW: the GPUs at TDP and the catalog's "
        "overhead, or at the campus's calibrated gpu_power_fraction and server_overhead_scale."
    )
    design_kw = serializers.FloatField()
    feeds = RackFeedSerializer(many=True)
    feed_a_kw = serializers.FloatField(help_text="Total rating of the rack's side-A feeds, kW.")
    feed_b_kw = serializers.FloatField(help_text="Total rating of the rack's side-B feeds, kW.")
    single_side_load_pct = serializers.FloatField(
        allow_null=True,
        help_text="IT load as a % of the weaker side's rating (what one side carries if the other fails).",
    )


class RackSerializer(TwinModelSerializer):
    power = serializers.SerializerMethodField()

    class Meta:
        model = Rack
        fields = "__all__"
        validators = []
        brief_fields = BRIEF

    @extend_schema_field(RackPowerSerializer)
    def get_power(self, rack):
        return rack_power(rack, self.context)
