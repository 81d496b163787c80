#pragma once

#include <filesystem>

#include "trn/cache/transfer.hpp"

// Copying TorchNeuron's NEFF cache (trn/cache/neff_layout.hpp) between the tiers, as pull and
// push copy the neuronx-cc layout: what trn-run's tiers do for the native path.
namespace trn::cache {

// Copies the NEFFs of `shared_neff_root` that `local_root` lacks, or holds with another size.
// Each file is copied into a staging folder beside its destination and renamed into place
// (TorchNeuron reads a .neff that exists as whole); the next transfer removes a killed copy's
// staging folder. The counts are TransferReport's, one entry per NEFF (none is ever
// not_complete or busy: a NEFF is whole or absent). A missing source is reported
// (source_exists = false); a NEFF that cannot be copied is listed in `bad`.
TransferReport pull_neffs(const std::filesystem::path& shared_neff_root,
                          const std::filesystem::path& local_root,
                          const TransferOptions& options = {});

// The same towards the shared tier, never replacing a NEFF that is there.
TransferReport push_neffs(const std::filesystem::path& local_root,
                          const std::filesystem::path& shared_neff_root,
                          const TransferOptions& options = {});

}  // namespace trn::cache
