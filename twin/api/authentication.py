"""Token authentication that remembers a key's user for a few seconds in the process.

DRF's ``TokenAuthentication`` reads the token and its user from the database on every request, and the role
check then reads the user's groups: two queries before any work, a large share of a trivial request. Here a
key's user (with its role) is kept for ``TWIN_TOKEN_CACHE_S`` seconds (default 10) per process. A token
deleted or a user changed through this process takes effect at once (the signals below forget the cache); a
change made through another process is seen at most that many seconds later. Each request gets its own copy
of the user, so nothing one request sets on it leaks into another.
"""

from __future__ import annotations

import copy
import os
import threading
import time
from collections import OrderedDict

from django.contrib.auth import get_user_model
from django.db.models.signals import m2m_changed, post_delete, post_save
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from twin.api.permissions import user_role

TTL_S = float(os.environ.get("TWIN_TOKEN_CACHE_S", "10"))
MAX_KEYS = 10_000

_users: OrderedDict[str, tuple[object, Token, float]] = OrderedDict()
_lock = threading.Lock()


def forget(*args, **kwargs) -> None:
    with _lock:
        _users.clear()


class CachedTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key):
        now = time.monotonic()
        with _lock:
            hit = _users.get(key)
            if hit is not None and now - hit[2] < TTL_S:
                _users.move_to_end(key)
                return copy.copy(hit[0]), hit[1]
        user, token = super().authenticate_credentials(key)
        user_role(user)  # read the groups once; the copies carry the role
        if TTL_S > 0:
            with _lock:
                _users[key] = (user, token, now)
                _users.move_to_end(key)
                while len(_users) > MAX_KEYS:
                    _users.popitem(last=False)
        return copy.copy(user), token


User = get_user_model()
post_save.connect(forget, sender=Token, dispatch_uid="twin-token-cache-token-save")
post_delete.connect(forget, sender=Token, dispatch_uid="twin-token-cache-token-delete")
post_save.connect(forget, sender=User, dispatch_uid="twin-token-cache-user-save")
post_delete.connect(forget, sender=User, dispatch_uid="twin-token-cache-user-delete")
m2m_changed.connect(forget, sender=User.groups.through, dispatch_uid="twin-token-cache-user-groups")
