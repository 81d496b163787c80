#include "job_prolog.hpp"

#include "log.hpp"
#include "spank_host.hpp"
#include "trn/common/error.hpp"
#include "user_cache_dir.hpp"

namespace trn::spank::prolog {

void job_prolog(spank_t handle, const PluginConfig& config) {
  if (!config.local_cache) return;
  const Host host(handle);
  const uid_t uid = host.uid();
  const gid_t gid = host.gid();
  const std::uint32_t job = host.u32(S_JOB_ID, "S_JOB_ID");
  try {
    bool created = false;
    const auto dir = ensure_user_cache_dir(*config.local_cache, user_name(uid), uid, gid, &created);
    if (created) log_verbose("job " + std::to_string(job) + ": created " + dir.string());
  } catch (const Error& e) {
    log_error("job " + std::to_string(job) + ": " + e.what());
  }
}

}  // namespace trn::spank::prolog
