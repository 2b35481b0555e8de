from campus.models import EnergyStorage, PowerDevice, PowerFeed
from twin.api.serializers import TwinModelSerializer


class PowerDeviceSerializer(TwinModelSerializer):
    class Meta:
        model = PowerDevice
        fields = "__all__"
        validators = []
        brief_fields = ("id", "url", "name", "kind")


class PowerFeedSerializer(TwinModelSerializer):
    class Meta:
        model = PowerFeed
        fields = "__all__"
        validators = []
        brief_fields = ("id", "url", "side", "rating_kw")


class EnergyStorageSerializer(TwinModelSerializer):
    class Meta:
        model = EnergyStorage
        fields = "__all__"
        validators = []
        brief_fields = ("id", "url", "name", "power_mw", "energy_mwh")
