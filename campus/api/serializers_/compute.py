from campus.models import Node
from twin.api.serializers import TwinModelSerializer


class NodeSerializer(TwinModelSerializer):
    class Meta:
        model = Node
        fields = "__all__"
        validators = []
        brief_fields = ("id", "url", "name")
