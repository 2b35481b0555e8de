"""Roles: viewer reads everything; planner also edits inventory and runs scenarios; admin also manages
users and schedules. A role is a Django group of that name; superusers are admins."""

from rest_framework.permissions import SAFE_METHODS, BasePermission

ROLES = ("viewer", "planner", "admin")


def user_role(user) -> str | None:
    if not user or not user.is_authenticated:
        return None
    if user.is_superuser:
        return "admin"
    names = {group.name for group in user.groups.all()}
    for role in reversed(ROLES):
        if role in names:
            return role
    return None


class RolePermission(BasePermission):
    """Reads need any role; writes need planner (or the view's ``write_role``)."""

    def has_permission(self, request, view) -> bool:
        role = user_role(request.user)
        if role is None:
            return False
        if request.method in SAFE_METHODS:
            return True
        needed = getattr(view, "write_role", "planner")
        return ROLES.index(role) >= ROLES.index(needed)
