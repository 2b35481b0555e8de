"""The campus's VEN: an ``openleadr`` client that registers with a VTN, polls it, and answers each event
through ``answer.answer_event`` (the Django work runs in a worker thread, ``sync_to_async``)."""

from __future__ import annotations

from asgiref.sync import sync_to_async
from openleadr import OpenADRClient

from simulations.openadr.answer import answer_event


class CampusVen:
    def __init__(
        self,
        campus_id: int,
        vtn_url: str,
        ven_name: str,
        *,
        dispatch_unit: str = "MW",
        base_params: dict | None = None,
    ) -> None:
        self.campus_id = campus_id
        self.vtn_url = vtn_url
        self.dispatch_unit = dispatch_unit
        self.base_params = base_params
        self.client = OpenADRClient(ven_name=ven_name, vtn_url=vtn_url, allow_jitter=False)
        self.client.add_handler("on_event", self.on_event)

    async def on_event(self, event: dict) -> str:
        row = await sync_to_async(answer_event)(
            self.campus_id,
            self.vtn_url,
            self.client.ven_id or "",
            event,
            dispatch_unit=self.dispatch_unit,
            base_params=self.base_params,
        )
        return row.opt

    async def run(self) -> None:
        await self.client.run()

    async def stop(self) -> None:
        await self.client.stop()
