// SPDX-License-Identifier: Apache-2.0
#include "demo/config.h"

#include <fstream>
#include <sstream>

namespace snowcar::demo {

std::string SidecarProperties(const SidecarSetup& s) {
  std::ostringstream out;
  out << "# Written by `snowcar demo`: both directions against the demo's emulator and broker.\n"
      << "# The credentials are the emulator's documented test defaults.\n"
      << "snow.url=" << s.snow_url << "\n"
      << "snow.auth.username=admin\n"
      << "snow.auth.password=admin-emulator\n\n"
      << "kafka.bootstrap.servers=" << s.bootstrap << "\n"
      << "kafka.group.id=snowcar-demo\n"
      // The embedded broker needs seconds for a group join; a short session keeps the
      // restart's rejoin short (docs/embedded-broker.md).
      << "kafka.session.timeout.ms=6000\n\n"
      << "source.enabled=true\n"
      << "snow.tables=";
  for (size_t i = 0; i < s.tables.size(); ++i) out << (i ? "," : "") << s.tables[i];
  out << "\n";
  for (const auto& t : s.tables) {
    out << "snow.table." << t << ".name=" << t << "\n"
        << "snow.table." << t << ".topic=" << SourceTopic(t) << "\n";
  }
  out << "snow.source.poll.interval.ms=1000\n\n"
      << "sink.enabled=true\n"
      << "snow.sink.topics=" << kCommandTopic << "\n"
      << "snow.sink.table=" << kCommandTable << "\n"
      << "snow.sink.unknown.field.behavior=passthrough\n"
      << "snow.sink.create.ambiguous.behavior=correlation_lookup\n"
      << "snow.sink.correlation.field=" << kCorrelationField << "\n"
      << "errors.deadletterqueue.topic.name=" << kDeadLetterTopic << "\n\n"
      << "state.dir=" << s.state_dir << "\n"
      << "socket.path=" << s.socket_path << "\n"
      << "threads=2\n"
      << "log.format=text\n";
  return out.str();
}

Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.flush();
  if (!out) return Status::PermissionDenied("cannot write " + path);
  return Status::Ok();
}

}  // namespace snowcar::demo
