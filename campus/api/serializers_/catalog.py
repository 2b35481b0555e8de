from campus.models import FailureRate, GPUModel, LinkMedium, NodeModel, SwitchModel
from twin.api.serializers import TwinModelSerializer


class CatalogSerializer(TwinModelSerializer):
    class Meta:
        brief_fields = ("id", "url", "slug", "name")


class GPUModelSerializer(CatalogSerializer):
    class Meta(CatalogSerializer.Meta):
        model = GPUModel
        fields = "__all__"
        validators = []


class NodeModelSerializer(CatalogSerializer):
    class Meta(CatalogSerializer.Meta):
        model = NodeModel
        fields = "__all__"
        validators = []


class SwitchModelSerializer(CatalogSerializer):
    class Meta(CatalogSerializer.Meta):
        model = SwitchModel
        fields = "__all__"
        validators = []


class LinkMediumSerializer(CatalogSerializer):
    class Meta(CatalogSerializer.Meta):
        model = LinkMedium
        fields = "__all__"
        validators = []


class FailureRateSerializer(TwinModelSerializer):
    class Meta:
        model = FailureRate
        fields = "__all__"
        validators = []
        brief_fields = ("id", "url", "dataset", "component")
