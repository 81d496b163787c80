#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace trn::run {

// A Neuron runtime hardware status in a rank's output (nrt_status.h, docs/health.md#runtime):
// NRT_EXEC_HW_ERR_HBM_UE 1201, NRT_EXEC_HW_ERR_NC_UE 1202, NRT_EXEC_HW_ERR_DMA_ABORT 1203,
// NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE 1205, by name or as "status=<code>" (any case, "status" then
// spaces, '=' or ':'), and the driver's NEURON_HW_ERR= lines. 1204 is NRT_EXEC_SW_NQ_OVERFLOW, a
// software status, and 1200 (NRT_EXEC_HW_ERR_COLLECTIVES) is usually another worker's fault:
// neither names this node. Returns e.g. "NRT_EXEC_HW_ERR_NC_UE (1202)".
std::optional<std::string> find_neuron_hardware_status(std::string_view text);

}  // namespace trn::run
