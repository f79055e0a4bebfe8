#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reads a topic written with value.format=protobuf (and key.format=protobuf) with tools
snowcar did not write: python3-confluent-kafka consumes it, each record's schema is fetched
from the registry by the id in Confluent's wire format, protoc compiles that .proto text
into a descriptor set, and python3-protobuf decodes the payload with it.

Prints one JSON object per record: {"key": ..., "schema_id": ..., "message": ...,
"value": ...}, the value as python3-protobuf's own JSON mapping writes it
(json_format.MessageToDict, field names as declared: int64 as a string, a Timestamp as
RFC 3339, an unset field left out). Exits 2 on a record it cannot decode, naming it.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import urllib.request

from topic_reader import print_topic
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory


def read_varint(data, pos):
    shift = result = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def zigzag(n):
    return (n >> 1) ^ -(n & 1)


class Schemas:
    def __init__(self, registry, workdir):
        self.registry = registry
        self.workdir = workdir
        self.cache = {}

    def by_id(self, schema_id):
        if schema_id in self.cache:
            return self.cache[schema_id]
        with urllib.request.urlopen(f"{self.registry}/schemas/ids/{schema_id}", timeout=30) as r:
            answer = json.load(r)
        if answer.get("schemaType") != "PROTOBUF":
            raise ValueError(f"schema {schema_id} is {answer.get('schemaType', 'AVRO')}, not PROTOBUF")
        name = f"schema_{schema_id}.proto"
        with open(os.path.join(self.workdir, name), "w", encoding="utf-8") as f:
            f.write(answer["schema"])
        out = os.path.join(self.workdir, f"schema_{schema_id}.pb")
        subprocess.run(["protoc", f"-I{self.workdir}", "-I/usr/include", "--include_imports",
                        f"--descriptor_set_out={out}", name], check=True, cwd=self.workdir)
        files = descriptor_pb2.FileDescriptorSet()
        with open(out, "rb") as f:
            files.ParseFromString(f.read())
        pool = descriptor_pool.DescriptorPool()
        for fd in files.file:
            pool.Add(fd)
        mine = files.file[-1]  # --include_imports lists the imports first
        self.cache[schema_id] = (pool, mine)
        return self.cache[schema_id]


def decode(data, schemas):
    if data[:1] != b"\x00":
        raise ValueError("not in Confluent's wire format")
    schema_id = int.from_bytes(data[1:5], "big", signed=True)
    pool, file_proto = schemas.by_id(schema_id)
    count, pos = read_varint(data, 5)
    count = zigzag(count)
    path = [0]
    if count > 0:
        path = []
        for _ in range(count):
            index, pos = read_varint(data, pos)
            path.append(zigzag(index))
    desc = pool.FindMessageTypeByName(
        (file_proto.package + "." if file_proto.package else "") + file_proto.message_type[path[0]].name)
    for index in path[1:]:
        desc = desc.nested_types[index]
    message = message_factory.MessageFactory(pool).GetPrototype(desc)()
    message.ParseFromString(data[pos:])
    return schema_id, desc.full_name, json_format.MessageToDict(message, preserving_proto_field_name=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--registry", required=True)
    p.add_argument("--key-format", choices=["protobuf", "string"], default="string")
    args = p.parse_args()

    with tempfile.TemporaryDirectory() as workdir:
        schemas = Schemas(args.registry, workdir)

        def record(msg):
            schema_id, name, value = decode(msg.value(), schemas)
            key = msg.key()
            if args.key_format == "protobuf":
                _, _, key_value = decode(key, schemas)
                key = key_value["sys_id"]
            else:
                key = key.decode()
            return {"key": key, "schema_id": schema_id, "message": name, "value": value}

        return print_topic(args.bootstrap, args.topic, "protobuf-reader", record)


if __name__ == "__main__":
    sys.exit(main())
