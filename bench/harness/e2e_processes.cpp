// SPDX-License-Identifier: Apache-2.0
#include "e2e_processes.h"

#include <curl/curl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "snowcar/api/client.h"
#include "support/metrics_text.h"

namespace snowcar::bench {

Started StartSnowcar(const std::vector<std::string>& args) {
  testsupport::ChildOptions options;
  options.args = args;
  auto child = testsupport::ChildProcess::Spawn(SNOWCAR_BINARY, options);
  if (!child.ok()) {
    std::fprintf(stderr, "cannot start snowcar %s: %s\n", args.front().c_str(),
                 child.status().message().c_str());
    std::exit(1);
  }
  auto line = (*child)->ReadLine(std::chrono::seconds(120));
  if (!line.ok()) {
    std::fprintf(stderr, "snowcar %s printed no first line: %s\n", args.front().c_str(),
                 line.status().message().c_str());
    std::exit(1);
  }
  return Started{std::move(child).value(), *line};
}

void Stop(Started& started) {
  if (started.process == nullptr) return;
  (void)started.process->Signal(SIGTERM);
  (void)started.process->Wait(std::chrono::seconds(30));
}

double ProcessCpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  unsigned long long utime = 0;
  unsigned long long stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double PeakRssMiB(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

double SelfCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::string SocketGet(const std::string& socket, const std::string& target) {
  api::Client client;
  auto result = client.Get(socket, target);
  if (!result.ok() || result->status != 200) return "{}";
  return result->body;
}

double MetricSum(const std::string& socket, const std::string& name) {
  return testsupport::MetricSum(SocketGet(socket, "/metrics"), name);
}

namespace {
size_t AppendBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}
}  // namespace

std::string EmulatorHttp(const std::string& method, const std::string& url,
                         const std::string& body) {
  CURL* curl = curl_easy_init();
  std::string out;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_USERNAME, "admin");
  curl_easy_setopt(curl, CURLOPT_PASSWORD, "admin-emulator");
  if (!body.empty()) curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &out);
  const CURLcode rc = curl_easy_perform(curl);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) {
    std::fprintf(stderr, "%s %s: %s\n", method.c_str(), url.c_str(), curl_easy_strerror(rc));
    std::exit(1);
  }
  return out;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string SourceSidecarProperties(const std::string& emulator_base, const std::string& bootstrap,
                                    const std::string& topic, const std::string& dir) {
  return "snow.url=" + emulator_base +
         "\nsnow.auth.username=admin\nsnow.auth.password=admin-emulator\n"
         "source.enabled=true\nsink.enabled=false\n"
         "snow.tables=incident\nsnow.table.incident.name=incident\n"
         "snow.table.incident.topic=" +
         topic + "\nsnow.source.startup.probe=false\nstate.dir=" + dir +
         "/state\nsocket.path=" + dir +
         "/snowcar.sock\nlog.level=warn\n"
         "kafka.bootstrap.servers=" +
         bootstrap + "\n";
}

std::string SinkSidecarProperties(const std::string& emulator_base, const std::string& bootstrap,
                                  const std::string& topic, const std::string& group,
                                  const std::string& dir) {
  return "snow.url=" + emulator_base +
         "\nsnow.auth.username=admin\nsnow.auth.password=admin-emulator\n"
         "source.enabled=false\nsink.enabled=true\nthreads=2\n"
         "snow.sink.topics=" +
         topic +
         "\nsnow.sink.table=incident\nsnow.sink.unknown.field.behavior=passthrough\n"
         "state.dir=" +
         dir + "/state\nsocket.path=" + dir + "/snowcar.sock\nlog.level=warn\n" +
         "kafka.bootstrap.servers=" + bootstrap + "\nkafka.group.id=" + group + "\n";
}

std::unique_ptr<testsupport::ChildProcess> StartSidecar(const std::string& config_path) {
  testsupport::ChildOptions options;
  options.args = {"run", "--config", config_path};
  auto child = testsupport::ChildProcess::Spawn(SNOWCAR_BINARY, options);
  if (!child.ok()) {
    std::fprintf(stderr, "snowcar run: %s\n", child.status().message().c_str());
    return nullptr;
  }
  return std::move(child).value();
}

}  // namespace snowcar::bench
