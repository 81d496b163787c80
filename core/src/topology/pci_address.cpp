#include "trn/topology/pci_address.hpp"

#include <charconv>
#include <cstdio>

#include "trn/common/error.hpp"

namespace trn::topology {
namespace {

unsigned hex_field(std::string_view field, std::size_t digits, unsigned max, bool& ok) {
  unsigned value = 0;
  const auto* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, value, 16);
  if (field.size() != digits || ec != std::errc() || ptr != end || value > max) ok = false;
  return value;
}

}  // namespace

PciAddress PciAddress::parse(std::string_view text, std::string_view what) {
  std::string_view rest = text;
  bool ok = true;
  PciAddress out;
  // Without a domain the text is "bb:ss.f" (7 characters).
  if (rest.size() == 12) {
    out.domain = static_cast<std::uint16_t>(hex_field(rest.substr(0, 4), 4, 0xffff, ok));
    ok = ok && rest[4] == ':';
    rest.remove_prefix(5);
  }
  if (rest.size() != 7 || rest[2] != ':' || rest[5] != '.') ok = false;
  if (ok) {
    out.bus = static_cast<std::uint8_t>(hex_field(rest.substr(0, 2), 2, 0xff, ok));
    out.slot = static_cast<std::uint8_t>(hex_field(rest.substr(3, 2), 2, 0x1f, ok));
    out.function = static_cast<std::uint8_t>(hex_field(rest.substr(6, 1), 1, 7, ok));
  }
  if (!ok) {
    throw Error(std::string(what) + ": '" + std::string(text) +
                "' is not a PCI address: expected domain:bus:slot.function such as "
                "0000:10:1c.0");
  }
  return out;
}

std::string PciAddress::to_string() const {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%04x:%02x:%02x.%x", domain, bus, slot, function);
  return buffer;
}

}  // namespace trn::topology
