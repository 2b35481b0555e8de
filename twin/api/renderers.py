"""The API's JSON renderer: REST framework's ``JSONRenderer`` with the compact body written by orjson.

REST framework writes JSON with the standard library's encoder, in Python for every value of the document:
on a page of 50 racks (55 kB) that is 1.5 ms of a 12 ms request, on a cold summary or floor map more. orjson
writes the same document in C. What a client reads is unchanged:

- compact separators and UTF-8 text, as REST framework's defaults (``COMPACT_JSON``, ``UNICODE_JSON``);
- U+2028 and U+2029 escaped, as REST framework does (a body stays safe to embed in a script);
- every type orjson does not know itself (``Decimal``, lazy translations, querysets, sets, dates and
  times, anything with ``tolist``) goes through REST framework's own encoder, so it is written as before;
  ``datetime`` goes there too (REST framework ends UTC with ``Z`` and keeps milliseconds);
- numpy arrays and scalars are written as their Python values.

Floats are written by the shortest round-tripping form of each library; they can differ in form
(``1e-05`` against ``0.00001``), never in value. A float that is not finite, which REST framework refuses with
an error (a 500), is written as ``null``. An indented body (``Accept: application/json; indent=4``, the
browsable API) or a project that turns the compact or Unicode settings off is left to REST framework.
"""

from __future__ import annotations

import orjson
from rest_framework.renderers import JSONRenderer
from rest_framework.settings import api_settings
from rest_framework.utils.encoders import JSONEncoder

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_SERIALIZE_NUMPY
_LINE_SEPARATORS = ("\u2028".encode(), "\u2029".encode())


def dumps(data) -> bytes:
    """``data`` as the compact JSON body REST framework's renderer would write."""
    body = orjson.dumps(data, default=JSONEncoder().default, option=_OPTIONS)
    # Both separators' UTF-8 begins with E2 80: one pass over the body where (as nearly always) neither is.
    if b"\xe2\x80" in body and (_LINE_SEPARATORS[0] in body or _LINE_SEPARATORS[1] in body):
        body = body.replace(_LINE_SEPARATORS[0], b"\\u2028").replace(_LINE_SEPARATORS[1], b"\\u2029")
    return body


class TwinJSONRenderer(JSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        if (
            not api_settings.COMPACT_JSON
            or not api_settings.UNICODE_JSON
            or self.encoder_class is not JSONEncoder
            or self.get_indent(accepted_media_type, renderer_context or {}) is not None
        ):
            return super().render(data, accepted_media_type, renderer_context)
        return dumps(data)


__all__ = ["TwinJSONRenderer", "dumps"]
