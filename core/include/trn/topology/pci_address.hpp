#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace trn::topology {

// A PCI function address, "0000:10:1c.0" (domain:bus:slot.function).
struct PciAddress {
  std::uint16_t domain = 0;
  std::uint8_t bus = 0;
  std::uint8_t slot = 0;
  std::uint8_t function = 0;

  // Accepts "0000:10:1c.0" and, as neuron-ls prints it, "10:1c.0" (domain 0).
  static PciAddress parse(std::string_view text, std::string_view what);
  std::string to_string() const;  // always with the domain

  friend auto operator<=>(const PciAddress&, const PciAddress&) = default;
};

}  // namespace trn::topology
