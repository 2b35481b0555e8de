"""Placeholder."""


def prepare(snap, params):
    raise NotImplementedError


def run(plan, seed, progress=None):
    raise NotImplementedError
