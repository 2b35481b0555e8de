from rest_framework import serializers


class FieldChangeSerializer(serializers.Serializer):
    field = serializers.CharField()
    old = serializers.JSONField(allow_null=True)
    new = serializers.JSONField(allow_null=True)


class ChangeUserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class ChangeSerializer(serializers.Serializer):
    """One entry of the change log: who changed which object when, and each field's before and after."""

    id = serializers.IntegerField(help_text="Id of the history record.")
    model = serializers.CharField(help_text="Model name, e.g. 'rack'.")
    object_id = serializers.IntegerField()
    object_repr = serializers.CharField()
    type = serializers.ChoiceField(choices=["+", "~", "-"], help_text="+ created, ~ changed, - deleted.")
    date = serializers.DateTimeField()
    user = ChangeUserSerializer(allow_null=True)
    reason = serializers.CharField(allow_null=True)
    changes = FieldChangeSerializer(many=True)
