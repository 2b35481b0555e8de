"""Prices and the bill of materials: ``GET /api/price-catalog/`` and ``GET /api/campuses/{id}/bom/``.

The catalog rows are ``campus.catalog_data.PRICES`` (docs/capex.md); a campus overrides any of them by key in
``Campus.price_overrides``. The bill of materials is ``campus.analysis.bom.campus_bom`` of the campus's
snapshot, kept with the campus state until its revision grows.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from campus import state as states
from campus.analysis import bom as bom_mod
from campus.analysis.capex import price_catalog, tco, unit_price
from campus.api.serializers_.analytics import AsOfQuery, tco_discount_field, tco_horizon_field
from campus.models import Campus
from twin.api.exceptions import field_error
from twin.api.serializers.base import StrictQueryMixin


class PriceCatalogQuerySerializer(StrictQueryMixin, serializers.Serializer):
    campus = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=2**63 - 1,
        help_text="Show this campus's prices: its overrides (`Campus.price_overrides`) in place of the rows.",
    )


class PriceRowSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="`kind/item`: the key a campus overrides the row by.")
    category = serializers.ChoiceField(choices=bom_mod.CATEGORIES)
    kind = serializers.CharField()
    item = serializers.CharField(help_text="The model, device kind or class priced (`other`: the fallback).")
    unit = serializers.CharField(help_text="What the price is per: kW, kWh, m2, switch, module, cable, ...")
    unit_price_usd = serializers.FloatField()
    source = serializers.CharField()
    year = serializers.IntegerField(help_text="The year the price is of.")
    estimate = serializers.BooleanField()
    notes = serializers.CharField()
    lead_time_weeks = serializers.FloatField(allow_null=True)
    overridden = serializers.BooleanField(help_text="The campus's own price (with `?campus=`).")


class PriceCatalogView(APIView):
    """Every price row (docs/capex.md)."""

    @extend_schema(
        operation_id="price_catalog_list",
        summary="The price catalog: every unit price with its unit, source and year",
        description="One row per priced item: power devices per kW of rating, cooling units and plants per kW "
        "of heat, utility feeds per kW, energy storage per kWh, switches per box by model, optical modules "
        "per module by reach class and line rate, cables per cable (fibre per metre plus its terminations), "
        "servers per server by model, buildings per m2 of footprint, racks per rack. `estimate` marks a "
        "figure that is not a published price. With `?campus=` the campus's overrides replace the rows "
        "they name.",
        parameters=[PriceCatalogQuerySerializer],
        responses={
            200: PriceRowSerializer(many=True),
            400: OpenApiResponse(description="The field at fault."),
        },
        tags=["capex"],
    )
    def get(self, request):
        query = PriceCatalogQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        overrides: dict[str, float] = {}
        if (campus_id := query.validated_data.get("campus")) is not None:
            campus = Campus.objects.filter(pk=campus_id).only("price_overrides").first()
            if campus is None:
                raise serializers.ValidationError({"campus": [f"No campus {campus_id}."]})
            overrides = campus.price_overrides or {}
        rows = [unit_price(r.kind, r.item, overrides).as_dict() for r in price_catalog()]
        return Response(rows)


class BomQuerySerializer(StrictQueryMixin, AsOfQuery):
    group = serializers.ChoiceField(
        choices=bom_mod.GROUPS,
        default="campus",
        help_text="Split the lines by building, hall or pod (an item of no such place has `group` null).",
    )
    horizon_years = tco_horizon_field()
    discount_rate = tco_discount_field()


class BomLineSerializer(serializers.Serializer):
    category = serializers.ChoiceField(choices=bom_mod.CATEGORIES)
    kind = serializers.CharField(help_text="The price kind: power-device, switch, optic, cable, server, ...")
    item = serializers.CharField(
        help_text="Device kind, switch or server model, optic reach class and rate, cable type and rate."
    )
    detail = serializers.CharField(help_text="A cable's length bin (`7-50 m`); empty otherwise.")
    group = serializers.DictField(allow_null=True, help_text="`{kind, id, name}` with `?group=`; else null.")
    count = serializers.FloatField(
        help_text="Devices, switches, modules, cables, servers, buildings or racks."
    )
    quantity = serializers.FloatField(help_text="What the unit price is per, in `unit`.")
    unit = serializers.CharField()
    unit_price_usd = serializers.FloatField(help_text="total_usd / quantity (a fibre line: per cable).")
    total_usd = serializers.FloatField()
    price_key = serializers.CharField(help_text="The price-catalog row (GET /api/price-catalog/).")
    source = serializers.CharField()
    year = serializers.IntegerField()
    estimate = serializers.BooleanField()
    overridden = serializers.BooleanField()


class BomSerializer(serializers.Serializer):
    campus = serializers.DictField()
    group = serializers.ChoiceField(choices=bom_mod.GROUPS)
    lines = BomLineSerializer(many=True)
    capex_usd = serializers.DictField(
        child=serializers.FloatField(),
        help_text="By category (power, cooling, network, compute, building), and total.",
    )
    counts = serializers.DictField(
        child=serializers.FloatField(),
        help_text="Items by kind, each the inventory's count: utility feeds, power devices, energy storage, "
        "in-rack PDUs (one per feed ending at a rack), cooling units, plants, rack manifolds (direct-to-chip "
        "racks), switches, optical modules, cables, servers, racks, buildings.",
    )
    it_mw = serializers.FloatField(help_text="The design IT load, MW (the summary's `power.design_it_mw`).")
    usd_per_mw_it = serializers.FloatField(allow_null=True)
    tco = serializers.DictField(
        help_text="`capex_usd` + `energy_usd` + `fuel_usd` (the year's grid energy and generator fuel over "
        "`horizon_years`, discounted at `discount_rate`, paid at each year's end) = `total_usd`."
    )


BOM_EXAMPLE = {
    "campus": {"id": 1, "name": "Example"},
    "group": "campus",
    "lines": [
        {
            "category": "network",
            "kind": "switch",
            "item": "quantum-2-qm9700",
            "detail": "",
            "group": None,
            "count": 8210,
            "quantity": 8210,
            "unit": "switch",
            "unit_price_usd": 36000.0,
            "total_usd": 295560000.0,
            "price_key": "switch/quantum-2-qm9700",
            "source": "E. Cheah, 'H100 Freakonomics' (2024-08)",
            "year": 2024,
            "estimate": False,
            "overridden": False,
        }
    ],
    "capex_usd": {"power": 4.3e8, "cooling": 1.2e8, "network": 9.0e8, "compute": 3.9e9, "building": 4.3e8},
    "usd_per_mw_it": 3.6e7,
}


class BomView(APIView):
    """A campus's bill of materials with prices (docs/capex.md)."""

    @extend_schema(
        operation_id="campuses_bom_retrieve",
        summary="Bill of materials: every item by category, counted once, with its unit price and source",
        description="Power devices and the grid connection of each utility feed (per kW), energy storage "
        "(per kWh), cooling units and plants (per kW of heat), switches by model, optical modules by reach "
        "class and line rate, cables by type and length bin, servers by model, racks with their in-rack PDUs "
        "(one per feed ending at the rack, per kW) and manifolds (direct-to-chip racks), buildings (per m2). "
        "Counts equal the inventory's: "
        "a switch group of n boxes is n switches, a link bundle of n cables n cables; the modules are one "
        "per switch end of an optical cable and one per node end (a half for twin-port NICs). Prices are the "
        "price catalog's rows with the campus's `price_overrides`. `capex_usd` sums the lines by category; "
        "`tco` adds the year's energy and fuel over the horizon.",
        parameters=[BomQuerySerializer],
        responses={200: BomSerializer, 400: OpenApiResponse(description="The field at fault.")},
        examples=[OpenApiExample("A 100k-GPU campus (abridged)", value=BOM_EXAMPLE, response_only=True)],
        tags=["capex"],
    )
    def get(self, request, pk: int):
        query = BomQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        v = query.validated_data
        campus = get_object_or_404(Campus, pk=pk)
        state = states.campus_state(campus, v.get("as_of"))
        horizon = v.get("horizon_years") or bom_mod.DEFAULT_HORIZON_YEARS
        rate = v["discount_rate"] if v.get("discount_rate") is not None else bom_mod.DEFAULT_DISCOUNT_RATE

        def body() -> dict:
            bom = bom_mod.campus_bom(state.snap, v["group"])
            power = states.campus_summary(state, **states.default_summary_params())["power"]
            capex = bom.capex_usd()
            it_mw = power["design_it_mw"]
            supply = power["grid_supply"]
            return {
                "campus": {"id": campus.pk, "name": campus.name},
                **bom.as_dict(),
                "it_mw": it_mw,
                "usd_per_mw_it": capex["total"] / it_mw if it_mw > 0 else None,
                "tco": tco(
                    capex["total"], supply["grid_cost_usd"], supply["generator_cost_usd"], horizon, rate
                ),
            }

        try:
            text, etag = states.rendered(state, ("bom", v["group"], horizon, rate), body)
        except ValueError as exc:
            raise field_error(exc) from None
        response = HttpResponse(text, content_type="application/json")
        response["ETag"] = etag
        return response


urlpatterns = [
    path("price-catalog/", PriceCatalogView.as_view(), name="price-catalog"),
    path("campuses/<int:pk>/bom/", BomView.as_view(), name="campus-bom"),
]
