from campus.models import CoolingPlant, CoolingUnit
from twin.api.serializers import TwinModelSerializer


class CoolingPlantSerializer(TwinModelSerializer):
    class Meta:
        model = CoolingPlant
        fields = "__all__"
        validators = []
        brief_fields = ("id", "url", "name", "kind")


class CoolingUnitSerializer(TwinModelSerializer):
    class Meta:
        model = CoolingUnit
        fields = "__all__"
        validators = []
        brief_fields = ("id", "url", "name", "kind")
