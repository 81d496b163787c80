// The byte stream a cache spread receives from its parent node (trn-cache spread): whatever
// arrives, the reader writes nothing outside its inbox and never crashes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "temp_dir.hpp"
#include "trn/cache/cache_stream.hpp"

namespace {

// Hands the input out in pieces of varying size, as a socket does.
class InputSource : public trn::cache::ByteSource {
 public:
  InputSource(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::size_t read_some(char* out, std::size_t want) override {
    const std::size_t piece = at_ < size_ ? 1 + data_[at_] % 64 : 0;
    const std::size_t n = std::min({want, piece, size_ - at_});
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<char>(data_[at_ + i]);
    at_ += n;
    return n;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const trn::test::TempDir tree;
  const auto inbox = tree.path() / "inbox";
  std::filesystem::remove_all(inbox);
  std::filesystem::create_directories(inbox);
  InputSource source(data, size);
  trn::cache::read_cache_stream(source, inbox);
  // Nothing beside the inbox, and nothing in it but the layout's folders.
  for (const auto& item : std::filesystem::directory_iterator(tree.path())) {
    if (item.path() != inbox) std::abort();
  }
  for (const auto& item : std::filesystem::recursive_directory_iterator(inbox)) {
    const auto inside = std::filesystem::relative(item.path(), inbox);
    const auto depth = std::distance(inside.begin(), inside.end());
    if (depth > 3 || (depth == 3 && !item.is_regular_file())) std::abort();
  }
  return 0;
}
