"""The what-if scenario engine: pure SimPy and numpy models over a CampusSnapshot (no Django)."""
