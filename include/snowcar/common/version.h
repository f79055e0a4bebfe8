// SPDX-License-Identifier: Apache-2.0
// The release this binary is: what `snowcar --version`, snowcar_build_info and the HTTP
// clients' User-Agent say.
#pragma once

#include <string>
#include <string_view>

namespace snowcar {

// "0.1.0": the project version CMake was configured with.
std::string_view SnowcarVersion();

// "snowcar/0.1.0": the User-Agent of the ServiceNow client (unless snow.http.user.agent says
// otherwise) and of the Schema Registry client.
std::string DefaultUserAgent();

}  // namespace snowcar
