import django_filters
from django import forms

from simulations.choices import RunStatus, ScenarioKind
from simulations.models import Run, Scenario, Schedule
from twin.api.filters import TwinFilterSet, UtcIsoDateTimeFilter


class StrictBooleanField(forms.NullBooleanField):
    """true/false (also True/False, 1/0); any other value is an error, not "no filter" (django's
    NullBooleanField reads "maybe" as unknown, so ``?flagged=maybe`` listed every run)."""

    TRUE = ("true", "True", "1")
    FALSE = ("false", "False", "0")
    widget = forms.TextInput  # NullBooleanSelect reads any other value as unknown before to_python sees it

    def to_python(self, value):
        if value in (None, ""):
            return None
        if value is True or value in self.TRUE:
            return True
        if value is False or value in self.FALSE:
            return False
        raise forms.ValidationError(f"{value!r} is not a boolean; give true or false", code="invalid")

    def validate(self, value):
        pass


class StrictBooleanFilter(django_filters.BooleanFilter):
    field_class = StrictBooleanField


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
    flagged = StrictBooleanFilter()

    class Meta:
        model = Run
        fields = ("scenario", "campus", "status", "kind", "flagged", "schedule")


class ScheduleFilterSet(TwinFilterSet):
    campus = django_filters.NumberFilter(field_name="scenario__campus_id", label="Campus id")
    enabled = StrictBooleanFilter()

    class Meta:
        model = Schedule
        fields = ("scenario", "campus", "enabled")
