from rest_framework.routers import DefaultRouter, Route


class TwinRouter(DefaultRouter):
    """DefaultRouter plus bulk writes on the list route (NetBox's NetBoxRouter): PUT/PATCH/DELETE a list."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        list_route = self.routes[0]
        self.routes[0] = Route(
            url=list_route.url,
            mapping={
                **list_route.mapping,
                "put": "bulk_update",
                "patch": "bulk_partial_update",
                "delete": "bulk_destroy",
            },
            name=list_route.name,
            detail=list_route.detail,
            initkwargs=list_route.initkwargs,
        )
