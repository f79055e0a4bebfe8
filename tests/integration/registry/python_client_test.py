#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An independent client against `snowcar registry`: Confluent's own Python Schema Registry
client (Debian's python3-confluent-kafka) registers, looks up and checks schemas, and Apache
Avro's Python library (python3-avro) writes a payload that is framed and read back by id.

usage: python_client_test.py SNOWCAR_BINARY
"""
import io
import struct
import subprocess
import sys

import avro.io
import avro.schema
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError

V1 = ('{"type":"record","name":"Command","namespace":"snowcar.test","fields":['
      '{"name":"short_description","type":"string"}]}')
V2 = ('{"type":"record","name":"Command","namespace":"snowcar.test","fields":['
      '{"name":"short_description","type":"string"},'
      '{"name":"urgency","type":["null","int"],"default":null}]}')
BAD = ('{"type":"record","name":"Command","namespace":"snowcar.test","fields":['
       '{"name":"short_description","type":"int"}]}')

failures = []
passed = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    (passed if condition else failures).append(what)


def expect_error(call, status, code, what):
    try:
        call()
    except SchemaRegistryError as e:
        check(e.http_status_code == status and e.error_code == code,
              f"{what}: {e.http_status_code}/{e.error_code} (want {status}/{code}): {e.error_message}")
        return
    check(False, f"{what}: no error")


def main():
    proc = subprocess.Popen([sys.argv[1], "registry", "--port", "0"], stdout=subprocess.PIPE,
                            text=True)
    try:
        url = proc.stdout.readline().strip()
        check(url.startswith("http://127.0.0.1:"), f"registry printed its URL ({url})")
        client = SchemaRegistryClient({"url": url})

        id1 = client.register_schema("cmd-value", Schema(V1, "AVRO"))
        again = SchemaRegistryClient({"url": url}).register_schema("cmd-value", Schema(V1, "AVRO"))
        check(again == id1, f"registering the same schema again answers the same id ({id1})")
        check(client.test_compatibility("cmd-value", Schema(V2, "AVRO")),
              "an optional field with a default is BACKWARD compatible")
        check(not client.test_compatibility("cmd-value", Schema(BAD, "AVRO")),
              "a type change is not")
        id2 = client.register_schema("cmd-value", Schema(V2, "AVRO"))
        check(id2 != id1, "a new version gets a new id")
        expect_error(lambda: client.register_schema("cmd-value", Schema(BAD, "AVRO")), 409, 409,
                     "an incompatible schema is refused")
        expect_error(lambda: client.register_schema("other", Schema('{"type":"nope"}', "AVRO")),
                     422, 42201, "an invalid schema is refused")
        expect_error(lambda: client.get_schema(4711), 404, 40403, "an unknown id")
        expect_error(lambda: client.get_latest_version("missing"), 404, 40401, "an unknown subject")

        latest = client.get_latest_version("cmd-value")
        check(latest.version == 2 and latest.schema_id == id2, "latest is version 2")
        check(client.get_versions("cmd-value") == [1, 2], "versions 1 and 2")
        check(client.get_subjects() == ["cmd-value"], "one subject")
        looked_up = client.lookup_schema("cmd-value", Schema(V1, "AVRO"))
        check(looked_up.version == 1 and looked_up.schema_id == id1, "lookup finds version 1")
        check(client.get_compatibility() == "BACKWARD", "global level BACKWARD")
        client.set_compatibility(subject_name="cmd-value", level="NONE")
        check(client.get_compatibility("cmd-value") == "NONE", "subject level NONE")
        check(client.register_schema("cmd-value", Schema(BAD, "AVRO")) > id2,
              "with NONE the type change registers")

        json_id = client.register_schema(
            "json-value", Schema('{"type":"object","properties":{"a":{"type":"string"}}}', "JSON"))
        check(client.get_schema(json_id).schema_type == "JSON", "a JSON Schema keeps its type")

        # A payload written by Apache Avro's library, framed, read back through the id.
        fresh = SchemaRegistryClient({"url": url})
        writer_schema = avro.schema.parse(fresh.get_schema(id2).schema_str)
        out = io.BytesIO()
        avro.io.DatumWriter(writer_schema).write(
            {"short_description": "Printer on fire", "urgency": 2}, avro.io.BinaryEncoder(out))
        framed = struct.pack(">bI", 0, id2) + out.getvalue()
        magic, schema_id = struct.unpack(">bI", framed[:5])
        reader_schema = avro.schema.parse(fresh.get_schema(schema_id).schema_str)
        decoded = avro.io.DatumReader(reader_schema).read(
            avro.io.BinaryDecoder(io.BytesIO(framed[5:])))
        check(magic == 0 and decoded == {"short_description": "Printer on fire", "urgency": 2},
              "an Avro payload round-trips through the registry's id")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    check(proc.returncode == 0, f"registry stopped cleanly on SIGTERM (exit {proc.returncode})")


if __name__ == "__main__":
    main()
    print(f"{len(passed)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)
