import django_filters

from simulations.choices import RunStatus, ScenarioKind
from simulations.models import Run, Scenario, Schedule
from twin.api.filters import TwinFilterSet, UtcIsoDateTimeFilter


class ScenarioFilterSet(TwinFilterSet):
    kind = django_filters.MultipleChoiceFilter(choices=ScenarioKind.choices)
    name = django_filters.CharFilter(lookup_expr="icontains")

    class Meta:
        model = Scenario
        fields = ("campus", "kind", "name", "owner")


class RunFilterSet(TwinFilterSet):
    # The run's own campus and kind (recorded when it was queued), not its scenario's current ones.
    campus = django_filters.NumberFilter(field_name="campus_id", label="Campus id")
    kind = django_filters.MultipleChoiceFilter(choices=ScenarioKind.choices)
    status = django_filters.MultipleChoiceFilter(choices=RunStatus.choices)
    created_after = UtcIsoDateTimeFilter(field_name="created", lookup_expr="gte")
    created_before = UtcIsoDateTimeFilter(field_name="created", lookup_expr="lt")

    class Meta:
        model = Run
        fields = ("scenario", "campus", "status", "kind", "flagged", "schedule")


class ScheduleFilterSet(TwinFilterSet):
    campus = django_filters.NumberFilter(field_name="scenario__campus_id", label="Campus id")

    class Meta:
        model = Schedule
        fields = ("scenario", "campus", "enabled")
