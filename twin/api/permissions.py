"""Roles: viewer reads everything; planner also edits inventory and runs scenarios; admin also manages
users and schedules. A role is a Django group of that name; superusers are admins."""

from rest_framework.permissions import SAFE_METHODS, BasePermission

ROLES = ("viewer", "planner", "admin")


def user_role(user) -> str | None:
    if not user or not user.is_authenticated:
        return None
    if user.is_superuser:
        return "admin"
    cached = getattr(user, "_twin_role", False)
    if cached is not False:
        return cached
    names = {group.name for group in user.groups.all()}
    role = next((r for r in reversed(ROLES) if r in names), None)
    user._twin_role = role
    return role


def has_role(user, needed: str) -> bool:
    role = user_role(user)
    return role is not None and ROLES.index(role) >= ROLES.index(needed)


class RolePermission(BasePermission):
    """Reads need the view's ``read_role`` (default: any role); writes need ``write_role`` (default: planner).

    Anonymous requests fail authentication first, so they get 401 (with a WWW-Authenticate header) rather
    than 403."""

    def has_permission(self, request, view) -> bool:
        if request.method in SAFE_METHODS:
            return has_role(request.user, getattr(view, "read_role", "viewer"))
        return has_role(request.user, getattr(view, "write_role", "planner"))
