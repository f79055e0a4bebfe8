#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reads a topic written by snowcar's typed formats with readers snowcar did not write:
python3-confluent-kafka (librdkafka) consumes it, and python3-avro decodes Avro payloads
against the schema the registry holds for the record's id (Confluent's wire format), or the
schema given in a file for unframed Avro.

Prints one JSON object per record: {"key": ..., "schema_id": ..., "value": ...}, Avro logical
types rendered as text (timestamp -> ISO-8601, date -> YYYY-MM-DD, decimal -> its digits).
Exits 2 on a record it cannot decode, naming it.
"""
import argparse
import datetime
import decimal
import io
import json
import sys
import urllib.request

import avro.io
import avro.schema
from topic_reader import print_topic


def plain(value):
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, datetime.datetime):
        return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    return value


class Schemas:
    def __init__(self, registry, schema_file):
        self.registry = registry
        self.cache = {}
        self.file_schema = None
        if schema_file:
            with open(schema_file, encoding="utf-8") as f:
                self.file_schema = avro.schema.parse(f.read())

    def by_id(self, schema_id):
        if schema_id not in self.cache:
            with urllib.request.urlopen(f"{self.registry}/schemas/ids/{schema_id}", timeout=30) as r:
                answer = json.load(r)
            self.cache[schema_id] = (answer.get("schemaType", "AVRO"), answer["schema"])
        return self.cache[schema_id]


def decode(payload, fmt, schemas):
    schema_id = None
    if payload[:1] == b"\x00" and schemas.registry:
        schema_id = int.from_bytes(payload[1:5], "big", signed=True)
        kind, text = schemas.by_id(schema_id)
        payload = payload[5:]
        if kind == "JSON":
            return schema_id, json.loads(payload)
        schema = avro.schema.parse(text)
    elif fmt == "avro":
        schema = schemas.file_schema
    else:
        return schema_id, json.loads(payload)
    reader = avro.io.DatumReader(schema)
    value = reader.read(avro.io.BinaryDecoder(io.BytesIO(payload)))
    return schema_id, plain(value)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--format", choices=["avro", "json"], default="avro")
    p.add_argument("--key-format", choices=["avro", "string"], default="string")
    p.add_argument("--registry", default="")
    p.add_argument("--schema-file", default="")
    args = p.parse_args()

    schemas = Schemas(args.registry, args.schema_file)

    def record(msg):
        schema_id, value = decode(msg.value(), args.format, schemas)
        key = msg.key()
        if args.key_format == "avro":
            key_payload = key[5:] if key[:1] == b"\x00" else key
            key = avro.io.DatumReader(avro.schema.parse('"string"')).read(
                avro.io.BinaryDecoder(io.BytesIO(key_payload)))
        else:
            key = key.decode()
        return {"key": key, "schema_id": schema_id, "value": value}

    return print_topic(args.bootstrap, args.topic, "typed-reader", record)


if __name__ == "__main__":
    sys.exit(main())
