"""The campus as an OpenADR 2.0b VEN: it registers with a utility's or aggregator's VTN (the ``openleadr``
library), receives events, evaluates each through the grid_limit scenario against the inventory of the
day, and opts in or out with the predicted impact; events and answers are stored
(``simulations.models.DemandResponseEvent``) and listed at ``/api/demand-response-events/``.

``signals``: what an OpenADR event asks, as grid_limit's events (pure); ``answer``: the evaluation and the
record (Django); ``ven``: the client (asyncio). docs/grid.md, "OpenADR".
"""
