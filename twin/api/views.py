"""The answer to paths under /api/ that no app's router claims."""

from django.http import HttpResponsePermanentRedirect, JsonResponse
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt


# A 404 changes nothing; without csrf_exempt, unsafe methods with a session cookie would get Django's HTML
# CSRF page instead.
@csrf_exempt
def api_not_found(request, *args, **kwargs):
    """Unknown paths under /api/ answer in JSON like every other API error (Django's page is HTML).
    A path missing its trailing slash is redirected for GET, as APPEND_SLASH would."""
    if not request.path.endswith("/"):
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            match = None
        if match is not None and match.func is not api_not_found:
            if request.method in ("GET", "HEAD"):
                query = request.META.get("QUERY_STRING", "")
                return HttpResponsePermanentRedirect(request.path + "/" + (f"?{query}" if query else ""))
            return JsonResponse({"detail": f"Not found. Did you mean {request.path}/ ?"}, status=404)
    return JsonResponse({"detail": "Not found."}, status=404)
