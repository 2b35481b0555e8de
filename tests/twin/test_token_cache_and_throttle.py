"""The process-local token cache forgets what this process revokes; the in-process throttle keeps DRF's
sliding log: at most N requests in any window of the period, and Retry-After until the oldest one leaves."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from tests.conftest import client_for, make_user
from twin.api import throttling


@pytest.mark.django_db
def test_a_deleted_token_is_refused_at_once_and_a_role_change_applies_at_once():
    user = make_user("cached", "viewer")
    client = client_for(user)
    url = reverse("campus-list")
    assert client.get(url).status_code == 200
    assert client.post(url, {"name": "X", "grid_capacity_mw": 1}, format="json").status_code == 403
    user.groups.set([Group.objects.get_or_create(name="planner")[0]])
    assert client.post(url, {"name": "X", "grid_capacity_mw": 1}, format="json").status_code == 201
    Token.objects.filter(user=user).delete()
    assert client.get(url).status_code == 401


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class ThreePerMinute(throttling.TwinAnonRateThrottle):
    rate = "3/min"


def test_the_local_sliding_log_allows_n_per_window_and_says_how_long_to_wait():
    throttling.forget()
    clock = Clock()
    request = APIRequestFactory().get("/", REMOTE_ADDR="10.0.0.9")

    def attempt():
        throttle = ThreePerMinute()
        throttle.timer = clock
        drf_request = Request(request)
        drf_request._user = type("Anon", (), {"is_authenticated": False})()
        return throttle.allow_request(drf_request, None), throttle

    for t in (0.0, 10.0, 20.0):
        clock.now = 1000.0 + t
        assert attempt()[0]
    clock.now = 1030.0
    allowed, throttle = attempt()
    assert not allowed
    # the oldest of the three (t = 0) leaves the 60 s window at t = 60: 30 s from t = 30
    assert throttle.wait() == pytest.approx(30.0)
    clock.now = 1060.0  # exactly one period after the first: DRF drops times <= now - duration
    assert attempt()[0]
    clock.now = 1065.0  # t = 10, 20 and 60 are in the window
    assert not attempt()[0]
    throttling.forget()
