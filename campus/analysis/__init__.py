"""Pure-Python analytics of a campus snapshot: power, cooling, fabric, compute, reliability, impact.

Nothing in this package imports Django; every function takes a ``CampusSnapshot`` (or plain numbers).
"""
