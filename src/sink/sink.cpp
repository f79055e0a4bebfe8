// Stub until the sink direction lands.
#include "snowcar/sink/sink.h"

namespace snowcar::sink {

Result<std::unique_ptr<runtime::Direction>> MakeSink(const runtime::DirectionContext& /*context*/,
                                                     SinkSeams /*seams*/) {
  return Status::FailedPrecondition(
      "sink.enabled=true, but this build of snowcar has no sink yet; set source.enabled=false "
      "and sink.enabled=false to run the state store and socket alone");
}

}  // namespace snowcar::sink
