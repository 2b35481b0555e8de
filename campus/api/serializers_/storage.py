from campus.models import StorageSystem
from twin.api.serializers import TwinModelSerializer


class StorageSystemSerializer(TwinModelSerializer):
    class Meta:
        model = StorageSystem
        fields = "__all__"
        validators = []
        brief_fields = ("id", "url", "name", "read_gb_s", "write_gb_s")
