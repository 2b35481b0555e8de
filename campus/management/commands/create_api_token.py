from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from rest_framework.authtoken.models import Token

from twin.api.permissions import ROLES


class Command(BaseCommand):
    help = "Create (or reuse) a user with a role and print an API token for scripts."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--role", choices=ROLES, default="viewer")
        parser.add_argument("--rotate", action="store_true", help="Replace an existing token with a new one.")

    @transaction.atomic
    def handle(self, *args, username: str, role: str, rotate: bool = False, **options):
        if not username.strip():
            raise CommandError("username must not be empty")
        user, _ = get_user_model().objects.get_or_create(username=username)
        groups = {name: Group.objects.get_or_create(name=name)[0] for name in ROLES}
        user.groups.remove(*[g for name, g in groups.items() if name != role])
        user.groups.add(groups[role])
        user.is_staff = role == "admin"
        user.save(update_fields=["is_staff"])
        if rotate:
            Token.objects.filter(user=user).delete()
        token, _ = Token.objects.get_or_create(user=user)
        self.stdout.write(token.key)
