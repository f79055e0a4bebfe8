// Stub until the source direction lands.
#include "snowcar/source/source.h"

namespace snowcar::source {

Result<std::unique_ptr<runtime::Direction>> MakeSource(const runtime::DirectionContext& /*context*/,
                                                       SourceSeams /*seams*/) {
  return Status::FailedPrecondition(
      "source.enabled=true, but this build of snowcar has no source yet; set "
      "source.enabled=false and sink.enabled=false to run the state store and socket alone");
}

}  // namespace snowcar::source
