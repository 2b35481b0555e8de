from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand

USERNAME = "demo"
PASSWORD = "demo-planner"  # local demo only: `make run` binds to 127.0.0.1


class Command(BaseCommand):
    help = "Create the local demo planner account (demo / demo-planner) unless it exists."

    def handle(self, *args, **options):
        user, created = get_user_model().objects.get_or_create(username=USERNAME)
        if created:
            user.set_password(PASSWORD)
            user.save()
            user.groups.add(Group.objects.get_or_create(name="planner")[0])
            self.stdout.write(f"demo planner created: {USERNAME} / {PASSWORD}")
