"""The dashboard's pages. Each is a template that carries a small JSON boot block; the page's JS module
reads everything else from the REST API with the session cookie."""

from functools import lru_cache

from django.contrib.auth import get_user_model
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.hashers import check_password
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import Resolver404, resolve, reverse

from campus.management.commands.ensure_demo_user import PASSWORD as DEMO_PASSWORD
from campus.management.commands.ensure_demo_user import USERNAME as DEMO_USERNAME
from campus.models import Building, Campus, DataHall
from twin.api.permissions import ROLES, user_role
from twin.api.views import api_not_found


@lru_cache(maxsize=8)
def _is_demo_password(encoded: str) -> bool:
    """Whether a stored password hash is the demo account's published password (checked once per hash and
    process: a hash costs a few hundred milliseconds, and the sign-in page is open to anyone)."""
    return check_password(DEMO_PASSWORD, encoded)


class LoginView(auth_views.LoginView):
    """Django's sign-in page with a hint of the demo account while it exists with its published password
    (``make run`` creates it; a server whose demo password was changed, or that has none, shows nothing)."""

    template_name = "frontend/login.html"
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        encoded = (
            get_user_model()
            .objects.filter(username=DEMO_USERNAME, is_active=True)
            .values_list("password", flat=True)
            .first()
        )
        if encoded and _is_demo_password(encoded):
            context["demo"] = {"username": DEMO_USERNAME, "password": DEMO_PASSWORD}
        return context


def _context(request, campus: Campus | None, page: str, **boot) -> dict:
    role = user_role(request.user)
    can_write = role is not None and ROLES.index(role) >= ROLES.index("planner")
    campuses = list(Campus.objects.order_by("name").values("id", "name"))
    return {
        "campus": campus,
        "campuses": campuses,
        "page": page,
        "role": role,
        "can_write": can_write,
        "boot": {
            "campusId": campus.id if campus else None,
            "campusName": campus.name if campus else "",
            "role": role,
            "canWrite": can_write,
            "page": page,
            **boot,
        },
    }


@login_required
def home(request):
    first = Campus.objects.order_by("name").values_list("id", flat=True).first()
    if first is not None:
        return redirect(reverse("frontend:overview", args=[first]))
    return render(request, "frontend/empty.html", _context(request, None, "overview"))


@login_required
def overview(request, campus_id: int):
    campus = get_object_or_404(Campus, pk=campus_id)
    return render(request, "frontend/overview.html", _context(request, campus, "overview"))


def _navigation(campus: Campus) -> list[dict]:
    """Buildings and their halls with rack counts, for the map's campus → building → hall picker."""
    halls = (
        DataHall.objects.filter(building__campus=campus)
        .annotate(rack_count=Count("racks"))
        .order_by("building__name", "name")
        .values("id", "name", "building_id", "rack_count")
    )
    buildings = {
        b["id"]: {**b, "halls": []}
        for b in Building.objects.filter(campus=campus).order_by("name").values("id", "name")
    }
    for hall in halls:
        building = buildings.get(hall["building_id"])
        if building is not None:
            building["halls"].append({"id": hall["id"], "name": hall["name"], "racks": hall["rack_count"]})
    return list(buildings.values())


def _has_route(path: str) -> bool:
    """Whether the API serves this path (the map offers rack placement only where the endpoint exists)."""
    try:
        match = resolve(path)
    except Resolver404:
        return False
    return match.func is not api_not_found


def _int_param(request, name: str) -> int | None:
    value = request.GET.get(name, "")
    return int(value) if value.isdigit() else None


@login_required
def floor_map(request, campus_id: int):
    campus = get_object_or_404(Campus, pk=campus_id)
    hall_id = _int_param(request, "hall")
    missing_hall = None
    if hall_id is not None and not DataHall.objects.filter(pk=hall_id, building__campus=campus).exists():
        # A hall of another design (a link kept from the parent or a branch) or one since removed: the
        # campus's map with a note saying so, not a whole-page 404.
        missing_hall = (
            DataHall.objects.filter(pk=hall_id)
            .values("name", "building__name", "building__campus__name", "building__campus_id")
            .first()
        ) or {"name": f"#{hall_id}"}
        # A branch keeps its parent's names: the same building's hall of that name here, when there is one.
        hall_id = (
            DataHall.objects.filter(
                building__campus=campus,
                name=missing_hall["name"],
                building__name=missing_hall.get("building__name"),
            )
            .values_list("id", flat=True)
            .first()
        )
        missing_hall["instead"] = hall_id is not None
    context = _context(
        request,
        campus,
        "map",
        hallId=hall_id,
        buildingId=_int_param(request, "building"),
        rackId=_int_param(request, "rack"),
        runId=_int_param(request, "run"),
        navigation=_navigation(campus),
        placement=_has_route(f"/api/campuses/{campus.pk}/placement/"),
    )
    context["missing_hall"] = missing_hall
    return render(request, "frontend/map.html", context)


@login_required
def scenarios(request, campus_id: int):
    campus = get_object_or_404(Campus, pk=campus_id)
    return render(
        request,
        "frontend/scenarios.html",
        _context(request, campus, "scenarios", runId=_int_param(request, "run")),
    )


@login_required
def compare(request, campus_id: int):
    """Two designs side by side (``?against=`` the other campus, usually the parent or a branch)."""
    campus = get_object_or_404(Campus, pk=campus_id)
    against = _int_param(request, "against")
    if against is None:
        against = campus.parent_id
    context = _context(request, campus, "compare", againstId=against)
    context["boot"]["campuses"] = context["campuses"]
    return render(request, "frontend/compare.html", context)


@login_required
def inventory(request, campus_id: int, view: str = "tables", object_id: int | None = None):
    """The inventory's tables and the top bar's search (``?table=``, ``?q=``), a power device's page, a cooling
    unit's page, a rack's page with its elevations, and the capacity report; the page's module reads the rest from the API."""
    campus = get_object_or_404(Campus, pk=campus_id)
    page = "capacity" if view == "capacity" else "inventory"
    context = _context(
        request,
        campus,
        page,
        view=view,
        objectId=object_id,
        table=request.GET.get("table", "")[:32],
        q=request.GET.get("q", "").strip()[:128],
        search=request.GET.get("search", "").strip()[:128],
    )
    return render(request, "frontend/inventory.html", context)
