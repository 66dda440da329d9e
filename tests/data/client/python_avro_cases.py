"""Avro records written by Apache Avro's own Python implementation (Debian's
python3-avro), read back by it with a reader schema, for
tests/unit/test_client_avro.c: our decoder must give the same rows.

Prints one JSON object per line: name, writer, reader (schemas as text),
hex (the binary record, written with the writer schema) and expected (what
avro.io.DatumReader(writer, reader) reads, in the row form of
docs/decoding.md: bytes as base64, decimals as numbers, dates and times as
ISO text), or "error" when Avro refuses to read it.
"""

import base64
import datetime
import decimal
import io
import json
import math

import avro.io
import avro.schema


def conv(s, v):
    """Avro's Python value as a JSON row value, walked by the reader schema."""
    t = s.type
    lt = s.get_prop("logicalType")
    if t == "union":
        for b in s.schemas:
            if avro.io.validate(b, v):
                return conv(b, v)
        raise ValueError(f"no branch for {v!r}")
    if t in ("record", "error"):
        return {f.name: conv(f.type, v[f.name]) for f in s.fields}
    if t == "array":
        return [conv(s.items, x) for x in v]
    if t == "map":
        return {k: conv(s.values, x) for k, x in v.items()}
    if isinstance(v, decimal.Decimal):
        return float(v)
    if t in ("bytes", "fixed"):
        if isinstance(v, str):
            v = v.encode("latin-1")
        return base64.b64encode(v).decode()
    if isinstance(v, datetime.datetime):
        frac = f"{v.microsecond // 1000:03d}" if lt == "timestamp-millis" else f"{v.microsecond:06d}"
        return v.strftime("%Y-%m-%dT%H:%M:%S.") + frac + "Z"
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, datetime.time):
        frac = f"{v.microsecond // 1000:03d}" if lt == "time-millis" else f"{v.microsecond:06d}"
        return v.strftime("%H:%M:%S.") + frac
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    return v


def rec(name, fields, **extra):
    return dict(type="record", name=name, fields=fields, **extra)


def f(name, type_, **extra):
    return dict(name=name, type=type_, **extra)


UTC = datetime.timezone.utc
PRIMS = rec("P", [f("n", "null"), f("b", "boolean"), f("i", "int"), f("l", "long"), f("fl", "float"),
                  f("d", "double"), f("by", "bytes"), f("s", "string")])
COMPLEX = rec("C", [
    f("arr", {"type": "array", "items": "int"}),
    f("m", {"type": "map", "values": "string"}),
    f("e", {"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}),
    f("fx", {"type": "fixed", "name": "F4", "size": 4}),
    f("u", ["null", "string", "long"]),
    f("nested", rec("N", [f("x", "int"), f("tags", {"type": "array", "items": "string"})])),
    f("list", {"type": "array", "items": "N"}),
])
LOGICAL = rec("L", [
    f("dec", {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}),
    f("decf", {"type": "fixed", "name": "D8", "size": 8, "logicalType": "decimal", "precision": 18, "scale": 4}),
    f("date", {"type": "int", "logicalType": "date"}),
    f("tm", {"type": "int", "logicalType": "time-millis"}),
    f("tu", {"type": "long", "logicalType": "time-micros"}),
    f("tsm", {"type": "long", "logicalType": "timestamp-millis"}),
    f("tsu", {"type": "long", "logicalType": "timestamp-micros"}),
    f("id", {"type": "string", "logicalType": "uuid"}),
])
LINKED = rec("Node", [f("v", "int"), f("next", ["null", "Node"], default=None)])

CASES = [
    ("primitives", PRIMS, None, [
        {"n": None, "b": True, "i": -17, "l": 2 ** 62, "fl": 1.5, "d": -0.1, "by": b"\x00\xff\x10",
         "s": "h\u00e9llo \u2603 \"q\" \\ \n"},
        {"n": None, "b": False, "i": 2 ** 31 - 1, "l": -(2 ** 63), "fl": float("inf"), "d": 1e300,
         "by": b"", "s": ""},
    ]),
    ("complex", COMPLEX, None, [
        {"arr": [1, -2, 3], "m": {"k": "v", "z": ""}, "e": "C", "fx": b"abcd", "u": None,
         "nested": {"x": 1, "tags": ["a"]}, "list": [{"x": 2, "tags": []}, {"x": 3, "tags": ["b", "c"]}]},
        {"arr": [], "m": {}, "e": "A", "fx": b"\x00\x01\x02\x03", "u": 7,
         "nested": {"x": 0, "tags": []}, "list": []},
        {"arr": [5], "m": {"a": "b"}, "e": "B", "fx": b"wxyz", "u": "str",
         "nested": {"x": -1, "tags": ["t"]}, "list": []},
    ]),
    ("logical", LOGICAL, None, [
        {"dec": decimal.Decimal("-1234.56"), "decf": decimal.Decimal("3.1415"),
         "date": datetime.date(2024, 2, 29), "tm": datetime.time(13, 45, 1, 123000),
         "tu": datetime.time(0, 0, 59, 999999),
         "tsm": datetime.datetime(2024, 1, 31, 12, 0, 0, 5000, tzinfo=UTC),
         "tsu": datetime.datetime(1969, 12, 31, 23, 59, 59, 1, tzinfo=UTC),
         "id": "123e4567-e89b-12d3-a456-426614174000"},
    ]),
    ("recursive", LINKED, None, [{"v": 1, "next": {"v": 2, "next": {"v": 3, "next": None}}}]),
    # Projection, one rule per case (the specification's "Schema Resolution").
    ("added_field_default", rec("R", [f("a", "int")]),
     rec("R", [f("a", "int"), f("b", "string", default="x"), f("c", ["null", "int"], default=None),
               f("d", {"type": "array", "items": "long"}, default=[1, 2]),
               f("e", "bytes", default="\u0001A"),
               f("g", rec("G", [f("h", "int", default=4)]), default={})]),
     [{"a": 1}]),
    ("promotions", rec("W", [f("il", "int"), f("if", "int"), f("id", "int"), f("lf", "long"), f("ld", "long"),
                             f("fd", "float")]),
     rec("W", [f("il", "long"), f("if", "float"), f("id", "double"), f("lf", "float"), f("ld", "double"),
               f("fd", "double")]),
     [{"il": -5, "if": 3, "id": 2 ** 30, "lf": 2 ** 40, "ld": -(2 ** 50), "fd": 0.1}]),
    ("dropped_fields", rec("R", [f("gone", {"type": "array", "items": rec("X", [f("q", "string")])}), f("a", "int"),
                                 f("m", {"type": "map", "values": ["null", "double"]}), f("u", ["int", "string"]),
                                 f("fx", {"type": "fixed", "name": "F", "size": 3}), f("z", "long")]),
     rec("R", [f("z", "long"), f("a", "int")]),
     [{"gone": [{"q": "x"}, {"q": "yy"}], "a": 9, "m": {"k": 1.0, "n": None}, "u": "s", "fx": b"abc", "z": -1}]),
    ("reordered", rec("R", [f("a", "int"), f("b", "string"), f("c", "boolean")]),
     rec("R", [f("c", "boolean"), f("a", "int"), f("b", "string")]),
     [{"a": 1, "b": "two", "c": True}]),
    ("union_writer_branches", rec("R", [f("u", ["null", "int", "string"])]),
     rec("R", [f("u", ["string", "null", "long"])]),
     [{"u": None}, {"u": 42}, {"u": "s"}]),
    ("union_reader_only", rec("R", [f("v", "int"), f("s", "string")]),
     rec("R", [f("v", ["null", "double"]), f("s", ["null", "string"])]),
     [{"v": 3, "s": "x"}]),
    ("enum_no_default", rec("R", [f("e", {"type": "enum", "name": "E", "symbols": ["A", "NEW"]})]),
     rec("R", [f("e", {"type": "enum", "name": "E", "symbols": ["A"]})]),
     [{"e": "NEW"}]),
    ("missing_no_default", rec("R", [f("a", "int")]), rec("R", [f("a", "int"), f("b", "int")]), [{"a": 1}]),
    ("type_mismatch", rec("R", [f("a", "string")]), rec("R", [f("a", "int")]), [{"a": "x"}]),
]

# Rules Python's Avro 1.11 does not implement (aliases, string <-> bytes, enum
# defaults, a writer's union read by a non-union, ISO-8859-1 bytes defaults):
# the rows are written out by hand from the specification, as Avro Java's
# ResolvingDecoder reads them. "ERROR": the record must be refused.
HAND_CASES = [
    ("renamed_field_alias", rec("R", [f("name", "string"), f("age", "int")]),
     rec("R", [f("full_name", "string", aliases=["name"]), f("age", "int")]),
     [{"name": "Ann", "age": 30}], [{"full_name": "Ann", "age": 30}]),
    ("renamed_type_alias", rec("ns.Old", [f("a", "int")]), rec("ns.New", [f("a", "int")], aliases=["ns.Old"]),
     [{"a": 5}], [{"a": 5}]),
    ("string_bytes", rec("R", [f("sb", "string"), f("bs", "bytes")]), rec("R", [f("sb", "bytes"), f("bs", "string")]),
     [{"sb": "\u00e9t\u00e9", "bs": b"plain"}], [{"sb": "w6l0w6k=", "bs": "plain"}]),
    ("enum_default", rec("R", [f("e", {"type": "enum", "name": "E", "symbols": ["A", "B", "NEW"]})]),
     rec("R", [f("e", {"type": "enum", "name": "E", "symbols": ["UNKNOWN", "B", "A"], "default": "UNKNOWN"})]),
     [{"e": "A"}, {"e": "NEW"}], [{"e": "A"}, {"e": "UNKNOWN"}]),
    ("union_writer_only", rec("R", [f("v", ["null", "int"])]), rec("R", [f("v", "long")]),
     [{"v": 8}, {"v": None}], [{"v": 8}, "ERROR"]),
    ("bytes_default_latin1", rec("R", [f("a", "int")]),
     rec("R", [f("a", "int"), f("e", "bytes", default="\u00ff\u0001")]), [{"a": 1}], [{"a": 1, "e": "/wE="}]),
]


def encode(schema, datum):
    out = io.BytesIO()
    avro.io.DatumWriter(schema).write(datum, avro.io.BinaryEncoder(out))
    return out.getvalue()


def main():
    for name, w, r, data in CASES:
        ws = avro.schema.parse(json.dumps(w))
        rs = avro.schema.parse(json.dumps(r)) if r else ws
        for i, datum in enumerate(data):
            raw = encode(ws, datum)
            row = {"name": f"{name}[{i}]", "writer": json.dumps(w), "reader": json.dumps(r) if r else "",
                   "hex": raw.hex()}
            try:
                got = avro.io.DatumReader(ws, rs).read(avro.io.BinaryDecoder(io.BytesIO(raw)))
                row["expected"] = conv(rs, got)
            except Exception as e:  # Avro refuses: ours must refuse too
                row["error"] = type(e).__name__
            print(json.dumps(row))
    for name, w, r, data, expected in HAND_CASES:
        ws = avro.schema.parse(json.dumps(w))
        for i, datum in enumerate(data):
            row = {"name": f"{name}[{i}]", "writer": json.dumps(w), "reader": json.dumps(r),
                   "hex": encode(ws, datum).hex()}
            if expected[i] == "ERROR":
                row["error"] = "by the specification"
            else:
                row["expected"] = expected[i]
            print(json.dumps(row))


if __name__ == "__main__":
    main()
