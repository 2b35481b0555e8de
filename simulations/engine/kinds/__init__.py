"""One package per scenario kind (see ``simulations.engine.registry``)."""
