#include "trn/common/error.hpp"

namespace trn {

Error::Error(const std::string& message) : std::runtime_error(message) {}

}  // namespace trn
