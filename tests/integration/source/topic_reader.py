# SPDX-License-Identifier: Apache-2.0
"""What the independent readers of this directory share: consume a whole topic with
python3-confluent-kafka, by assignment from offset 0 of every partition (no group join, so no
rebalance to wait for) until each partition's end, and print one JSON line per record.
"""

import json
import sys

from confluent_kafka import Consumer, KafkaError, TopicPartition


def print_topic(bootstrap, topic, group, record):
    """Prints record(msg) as a JSON line for every record of `topic`. Returns the exit status:
    0, 2 when a record could not be decoded (record raised; named on stderr, the rest still
    read), 3 when the topic could not be read to its end."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                         "enable.auto.commit": False, "enable.partition.eof": True})
    meta = consumer.list_topics(topic, timeout=30)
    partitions = sorted(meta.topics[topic].partitions)
    consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
    at_end = set()
    status = 0
    while len(at_end) < len(partitions):
        msg = consumer.poll(30)
        if msg is None:
            print("no message within 30 s", file=sys.stderr)
            return 3
        if msg.error():
            if msg.error().code() == KafkaError._PARTITION_EOF:
                at_end.add(msg.partition())
                continue
            print(f"consumer error: {msg.error()}", file=sys.stderr)
            return 3
        try:
            out = record(msg)
        except Exception as e:  # a record no reader can decode is the finding
            print(f"record {msg.partition()}/{msg.offset()} undecodable: {e!r}", file=sys.stderr)
            status = 2
            continue
        print(json.dumps(out, sort_keys=True))
    consumer.close()
    return status
