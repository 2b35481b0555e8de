"""Facility physics: conversion losses, the cooling plant and the weather, hour by hour (docs/model.md)."""

from campus.analysis.facility.year import FacilityYear, PlantYear, facility_year

__all__ = ["FacilityYear", "PlantYear", "facility_year"]
