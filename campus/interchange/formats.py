"""Reading and writing spec documents as YAML or JSON (libyaml's C loader and dumper when available)."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import ijson
import yaml

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[misc,valid-type]
    """The safe loader without YAML's implicit timestamps: an unquoted 2027-01-01 stays the text the
    spec's dates are (``in_service_date``), as in JSON."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

YAML_MEDIA_TYPES = ("application/x-yaml", "application/yaml", "text/yaml", "text/x-yaml")


class SpecFormatError(ValueError):
    """The document is not valid YAML/JSON; the message says where."""


def parse_spec(text: str | bytes, fmt: str = "yaml") -> Any:
    """Parse a spec document. JSON is a subset of YAML, so "yaml" reads both."""
    try:
        if fmt == "json":
            return json.loads(text)
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader
    except json.JSONDecodeError as exc:
        raise SpecFormatError(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise SpecFormatError(f"the document is not UTF-8 text (byte {exc.start})") from None
    except RecursionError:
        raise SpecFormatError("the document nests too deeply") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise SpecFormatError(f"invalid YAML{where}: {problem}") from None


def dump_spec(spec: dict[str, Any], fmt: str = "yaml") -> str:
    """The spec as text; keys keep the exporter's order (name first)."""
    if fmt == "json":
        return json.dumps(spec, indent=2, ensure_ascii=False) + "\n"
    return yaml.dump(spec, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)


def dump_spec_chunks(spec: dict[str, Any], batch: int = 200) -> Iterator[str]:
    """The YAML text of ``dump_spec(spec, "yaml")`` piece by piece: each top-level key in turn, a list of
    them ``batch`` items at a time (a block sequence's items are independent of one another, so the pieces
    join to the very same text), so the text is never held whole. A list of at most ``batch`` items (the
    buildings, which hold the halls, rows and racks) goes one item at a time."""
    for key, value in spec.items():
        if isinstance(value, list) and value:
            yield dump_spec({key: None}).replace(" null\n", "\n", 1)  # "key:\n"
            step = 1 if len(value) <= batch else batch
            for start in range(0, len(value), step):
                yield yaml.dump(
                    value[start : start + step],
                    Dumper=_Dumper,
                    sort_keys=False,
                    allow_unicode=True,
                    width=120,
                )
        else:
            yield dump_spec({key: value})


def encode_chunks(value: Any, encode: Callable[[Any], str], batch: int = 200) -> Iterator[str]:
    """Compact JSON (no whitespace between tokens) piece by piece: ``encode`` (the one-shot encoder of the
    whole text, e.g. ``json.dumps`` with ``separators=(",", ":")``) of each top-level value, a list's items
    ``batch`` at a time (one at a time in a list of at most ``batch``); the pieces join to ``encode(value)``."""
    if not isinstance(value, dict):
        yield encode(value)
        return
    yield "{"
    for number, (key, item) in enumerate(value.items()):
        head = ("," if number else "") + encode(str(key)) + ":"
        if isinstance(item, list) and item:
            yield head + "["
            step = 1 if len(item) <= batch else batch
            for start in range(0, len(item), step):
                text = encode(item[start : start + step])
                yield ("," if start else "") + text[1:-1]
            yield "]"
        else:
            yield head + encode(item)
    yield "}"


class ZlibReader:
    """A read-only file over zlib-compressed bytes, inflating as it is read (the whole text is never held).

    ``consumed`` is the share of the compressed input read so far (0-1), for progress reports."""

    CHUNK = 256 * 1024

    def __init__(self, data: bytes) -> None:
        self._data = memoryview(data)
        self._pos = 0
        self._inflate = zlib.decompressobj()
        self._buffer = b""

    @property
    def consumed(self) -> float:
        return self._pos / len(self._data) if len(self._data) else 1.0

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            size = 1 << 62
        while len(self._buffer) < size and not self._inflate.eof and self._pos < len(self._data):
            chunk = self._data[self._pos : self._pos + self.CHUNK]
            self._pos += len(chunk)
            self._buffer += self._inflate.decompress(chunk)
        if len(self._buffer) < size and self._pos >= len(self._data) and not self._inflate.eof:
            self._buffer += self._inflate.flush()
        out, self._buffer = self._buffer[:size], self._buffer[size:]
        return out


def parse_json_stream(stream) -> Any:
    """Parse a JSON spec from a binary file as it is read (ijson over yajl), numbers as int or float.

    The text is never held whole: only the document being built is in memory."""
    try:
        documents = ijson.items(stream, "", use_float=True)
        document = next(documents)
        for _ in documents:  # anything after the document is an error, as json.loads says
            raise SpecFormatError("invalid JSON: more than one document")
        return document
    except StopIteration:
        raise SpecFormatError("invalid JSON: the document is empty") from None
    except ijson.JSONError as exc:
        text = exc.args[0] if exc.args else exc
        text = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
        raise SpecFormatError(f"invalid JSON: {text.strip().splitlines()[0]}") from None
    except UnicodeDecodeError as exc:
        raise SpecFormatError(f"the document is not UTF-8 text (byte {exc.start})") from None
    except RecursionError:
        raise SpecFormatError("the document nests too deeply") from None
