from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from rest_framework import serializers

from twin.api.permissions import ROLES, user_role
from twin.api.serializers import SelfUrlField


class UserSerializer(serializers.ModelSerializer):
    """A user and the role they hold; ``password`` is write-only and stored hashed."""

    url = SelfUrlField()
    role = serializers.ChoiceField(choices=ROLES, required=False, allow_null=True)
    password = serializers.CharField(
        write_only=True, required=False, min_length=8, max_length=128, style={"input_type": "password"}
    )

    class Meta:
        model = get_user_model()
        fields = (
            "id",
            "url",
            "username",
            "email",
            "first_name",
            "last_name",
            "is_active",
            "role",
            "password",
            "last_login",
            "date_joined",
        )
        read_only_fields = ("last_login", "date_joined")
        brief_fields = ("id", "url", "username")

    def __init__(self, *args, brief: bool = False, **kwargs):
        self.brief = brief
        super().__init__(*args, **kwargs)

    def get_fields(self):
        fields = super().get_fields()
        if self.brief:
            return {name: field for name, field in fields.items() if name in self.Meta.brief_fields}
        return fields

    def to_representation(self, instance):
        data = super().to_representation(instance)
        if "role" in self.fields:
            data["role"] = user_role(instance)
        return data

    def _apply(self, user, role, password):
        if password:
            user.set_password(password)
            user.save(update_fields=["password"])
        if role is not serializers.empty:
            user.groups.remove(*Group.objects.filter(name__in=ROLES))
            if role:
                group, _ = Group.objects.get_or_create(name=role)
                user.groups.add(group)
        return user

    def create(self, validated_data):
        role = validated_data.pop("role", "viewer")
        password = validated_data.pop("password", None)
        user = super().create(validated_data)
        if not password:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        return self._apply(user, role, password)

    def update(self, instance, validated_data):
        role = validated_data.pop("role", serializers.empty)
        password = validated_data.pop("password", None)
        user = super().update(instance, validated_data)
        return self._apply(user, role, password)
