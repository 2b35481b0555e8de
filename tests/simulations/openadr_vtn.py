"""A real OpenADR 2.0b VTN (openleadr's server) for the VEN's end-to-end test: it registers any VEN as
``ven-campus``, offers two events and writes each answer it receives as a JSON line to ``--out``.

Run: python tests/simulations/openadr_vtn.py --port 18080 --out /tmp/answers.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
from datetime import UTC, datetime, timedelta

from openleadr import OpenADRServer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    async def on_create_party_registration(info):
        return "ven-campus", "reg-1"

    async def on_register_report(*_args, **_kwargs):
        return None

    async def on_response(ven_id, event_id, opt_type):
        with open(args.out, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"ven_id": ven_id, "event_id": event_id, "opt": opt_type}) + "\n")

    async def serve():
        server = OpenADRServer(
            vtn_id="test-vtn", http_port=args.port, requested_poll_freq=timedelta(seconds=1)
        )
        server.add_handler("on_create_party_registration", on_create_party_registration)
        server.add_handler("on_register_report", on_register_report)
        start = datetime.now(UTC) + timedelta(minutes=40)
        # SIMPLE level 1 (the twin reads it as 10 % of the load): the campus can hold it by capping
        server.add_event(
            ven_id="ven-campus",
            signal_name="SIMPLE",
            signal_type="level",
            intervals=[{"dtstart": start, "duration": timedelta(hours=1), "signal_payload": 1}],
            callback=on_response,
            event_id="ev-simple",
        )
        # a level of 0 MW: no campus can draw nothing while it runs
        server.add_event(
            ven_id="ven-campus",
            signal_name="LOAD_DISPATCH",
            signal_type="setpoint",
            intervals=[{"dtstart": start, "duration": timedelta(hours=1), "signal_payload": 0.0}],
            callback=on_response,
            event_id="ev-zero",
        )
        await server.run()
        await asyncio.Event().wait()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
