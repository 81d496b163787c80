#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace trn {

// A sorted set of small non-negative ids: CPU numbers, core indices, Neuron device indices.
// Text form is the kernel's list format ("0-31,64-95"), also used by Slurm for
// S_STEP_ALLOC_CORES and SLURM_STEP_GPUS.
class IdList {
 public:
  // Ids above this are refused when parsing: garbage such as "0-4294967295" must not allocate.
  static constexpr unsigned kMaxId = 65535;

  IdList() = default;
  explicit IdList(std::vector<unsigned> ids);

  // Parses "0-3,8,10-11" (surrounding whitespace ignored, empty text = empty list).
  // `what` names the input in the error, e.g. "<root>/sys/bus/pci/devices/X/local_cpulist".
  static IdList parse(std::string_view text, std::string_view what);
  static IdList range(unsigned first, unsigned count);

  std::string to_string() const;  // compact list form; "" when empty

  const std::vector<unsigned>& ids() const { return ids_; }
  bool empty() const { return ids_.empty(); }
  std::size_t size() const { return ids_.size(); }
  bool contains(unsigned id) const;
  bool contains_all(const IdList& other) const;
  bool intersects(const IdList& other) const;
  IdList intersection(const IdList& other) const;
  IdList united(const IdList& other) const;

  friend bool operator==(const IdList&, const IdList&) = default;

 private:
  std::vector<unsigned> ids_;  // sorted, unique
};

}  // namespace trn
