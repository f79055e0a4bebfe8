// SPDX-License-Identifier: Apache-2.0
// Extra per-value checks referenced by entries of the option table (OptionSpec::check).
// Each returns "" when the value is fine, otherwise what is wrong.
#pragma once

#include <string>
#include <string_view>

namespace snowcar::config {

// `host:port` with a non-empty host (a name, IPv4, or [IPv6]) and a port 0..65535.
std::string CheckHostPort(std::string_view value);

// Refuses any value: the sink subscribes to a fixed topic list, never to a pattern.
std::string RefuseTopicsRegex(std::string_view value);

// A ServiceNow table name: lower-case letters, digits and '_', at most 80 characters. Empty is
// fine (unset); whether the key is needed is decided across keys.
std::string CheckTableName(std::string_view value);

// A comma-separated list of table names, each as CheckTableName.
std::string CheckTableNameList(std::string_view value);

// A column name used inside an encoded query: the same shape as a table name, so it can never
// carry query syntax ('^', '=', ...). Empty is fine.
std::string CheckColumnName(std::string_view value);

// `from:to` pairs separated by commas: both names non-empty, each source renamed once and each
// target produced once.
std::string CheckFieldRenames(std::string_view value);

// A Kafka topic name (letters, digits, '.', '_', '-'; at most 249 characters). Empty is fine.
std::string CheckTopicName(std::string_view value);

// kafka.group.instance.id: a Kafka group instance id (the characters and length of a topic
// name), or `off`. Empty is fine (derived or off).
std::string CheckGroupInstanceId(std::string_view value);

// Refuses an empty value for keys whose default must not be blanked out.
std::string CheckNotBlank(std::string_view value);

// A Unix socket path: not empty, and short enough for sockaddr_un (107 bytes on Linux).
std::string CheckSocketPath(std::string_view value);

// snow.tables: every alias matches ^[a-z0-9_]+$ and appears once.
std::string CheckTableAliasList(std::string_view value);

// A UTC date-time written `YYYY-MM-DD HH:MM:SS` (snow.table.<alias>.start.timestamp).
std::string CheckSnowDateTime(std::string_view value);

// A field of the table itself: letters, digits and '_' only, so no dot-walking and nothing
// that could change the meaning of the encoded query it is put into.
std::string CheckPlainFieldName(std::string_view value);

// A list of such field names (snow.table.<alias>.fields).
std::string CheckFieldList(std::string_view value);

// A base encoded query: no ORDERBY (the source orders rows itself) and no line breaks.
std::string CheckBaseQuery(std::string_view value);

// For a Kafka client property that names a file librdkafka opens when it creates a client
// (ssl.ca.location, ssl.certificate.location, ssl.key.location, ssl.keystore.location,
// ssl.crl.location, sasl.kerberos.keytab; `property` without the `kafka.` prefix): "" when the
// file (for ssl.ca.location also a directory, or `probe`) can be read, otherwise the reason,
// e.g. "No such file or directory". Any other property: "".
std::string CheckKafkaFileProperty(std::string_view property, std::string_view path);

// True for the properties CheckKafkaFileProperty opens (`property` without the prefix).
bool IsKafkaFileProperty(std::string_view property);

}  // namespace snowcar::config
