"""Project-wide API plumbing (NetBox ``netbox/api``): roles, pagination, errors, the OpenAPI schema class,
the shared serializer and viewset bases and the router. Apps build their endpoints on it; no app imports
another app's ``api`` package."""
