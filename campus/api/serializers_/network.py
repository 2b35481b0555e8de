from campus.models import Link, Pod, Switch
from twin.api.serializers import TwinModelSerializer


class PodSerializer(TwinModelSerializer):
    class Meta:
        model = Pod
        fields = "__all__"
        validators = []
        brief_fields = ("id", "url", "name")


class SwitchSerializer(TwinModelSerializer):
    class Meta:
        model = Switch
        fields = "__all__"
        validators = []
        brief_fields = ("id", "url", "name", "tier")


class LinkSerializer(TwinModelSerializer):
    class Meta:
        model = Link
        fields = "__all__"
        validators = []
        brief_fields = ("id", "url", "count", "length_m")
