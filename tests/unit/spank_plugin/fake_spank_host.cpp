#include "fake_spank_host.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace fake_spank {
namespace {

HostState g_state;
int g_handle_storage;

bool item_allowed(spank_item_t item) {
  switch (g_state.context) {
    case S_CTX_REMOTE:
      return true;
    case S_CTX_JOB_SCRIPT:
      return item == S_JOB_UID || item == S_JOB_GID || item == S_JOB_ID;
    case S_CTX_LOCAL:
      return item == S_JOB_UID || item == S_JOB_GID || item == S_JOB_ID || item == S_JOB_STEPID ||
             item == S_JOB_NNODES || item == S_JOB_TOTAL_TASK_COUNT;
    case S_CTX_ALLOCATOR:
      return item == S_JOB_UID || item == S_JOB_GID;
    default:
      return false;
  }
}

void add_log(const char* level, const char* format, va_list args) {
  char buffer[8192];
  std::vsnprintf(buffer, sizeof buffer, format, args);
  g_state.log.push_back({level, buffer});
}

}  // namespace

HostState& state() { return g_state; }
void reset() { g_state = HostState(); }
spank_t handle() { return reinterpret_cast<spank_t>(&g_handle_storage); }

std::vector<std::string> log_lines(const std::string& level, const std::string& part) {
  std::vector<std::string> out;
  for (const auto& line : g_state.log) {
    if ((level.empty() || line.level == level) && line.text.find(part) != std::string::npos) {
      out.push_back(line.text);
    }
  }
  return out;
}

}  // namespace fake_spank

using fake_spank::g_state;  // NOLINT: the C functions below are the host

namespace {
constexpr spank_err_t kOk = static_cast<spank_err_t>(ESPANK_SUCCESS);
bool valid(spank_t sp) { return sp == fake_spank::handle(); }
}  // namespace

extern "C" {

const char* spank_strerror(spank_err_t err) {
  if (int(err) == ESPANK_SUCCESS) return "Success";
  switch (err) {
    case ESPANK_BAD_ARG:
      return "Bad argument";
    case ESPANK_NOT_TASK:
      return "Not in task context";
    case ESPANK_ENV_EXISTS:
      return "Environment variable exists";
    case ESPANK_ENV_NOEXIST:
      return "No such environment variable";
    case ESPANK_NOSPACE:
      return "Buffer too small";
    case ESPANK_NOT_REMOTE:
      return "Valid only in remote context";
    case ESPANK_NOT_AVAIL:
      return "Item not available from this callback";
    default:
      return "Generic error";
  }
}

int spank_symbol_supported(const char*) { return 1; }

int spank_remote(spank_t sp) { return valid(sp) && g_state.context == S_CTX_REMOTE ? 1 : 0; }

spank_context_t spank_context(void) { return g_state.context; }

spank_err_t spank_option_register(spank_t sp, struct spank_option* opt) {
  if (!valid(sp) || g_state.phase != fake_spank::Phase::kInit) return ESPANK_BAD_ARG;
  if (opt == nullptr || opt->name == nullptr || opt->usage == nullptr) return ESPANK_BAD_ARG;
  if (g_state.refuse_option_register) return ESPANK_ERROR;
  if (std::strlen(opt->name) > SPANK_OPTION_MAXLEN) return ESPANK_NOSPACE;
  g_state.options.push_back(
      {opt->name, opt->arginfo ? opt->arginfo : "", opt->usage, opt->has_arg, opt->val, opt->cb});
  return kOk;
}

spank_err_t spank_option_getopt(spank_t sp, struct spank_option*, char**) {
  if (!valid(sp)) return ESPANK_BAD_ARG;
  return ESPANK_NOT_AVAIL;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...) {
  if (!valid(sp)) return ESPANK_BAD_ARG;
  if (!fake_spank::item_allowed(item)) {
    return g_state.context == S_CTX_JOB_SCRIPT ? ESPANK_NOT_AVAIL : ESPANK_NOT_REMOTE;
  }
  va_list args;
  // Slurm's signature puts an enum before the "...": clang warns that it is promoted (-Wvarargs);
  // every compiler passes it as an int, as Slurm's own spank_get_item does.
#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wvarargs"
#endif
  va_start(args, item);
#ifdef __clang__
#pragma clang diagnostic pop
#endif
  spank_err_t rc = kOk;
  switch (item) {
    case S_JOB_UID:
      *va_arg(args, uid_t*) = g_state.uid;
      break;
    case S_JOB_GID:
      *va_arg(args, gid_t*) = g_state.gid;
      break;
    case S_JOB_ID:
      *va_arg(args, std::uint32_t*) = g_state.job_id;
      break;
    case S_JOB_STEPID:
      *va_arg(args, std::uint32_t*) = g_state.step_id;
      break;
    case S_JOB_NNODES:
      *va_arg(args, std::uint32_t*) = g_state.nnodes;
      break;
    case S_JOB_NODEID:
      *va_arg(args, std::uint32_t*) = g_state.node_id;
      break;
    case S_JOB_LOCAL_TASK_COUNT:
      *va_arg(args, std::uint32_t*) = g_state.local_tasks;
      break;
    case S_JOB_TOTAL_TASK_COUNT:
      *va_arg(args, std::uint32_t*) = g_state.total_tasks;
      break;
    case S_TASK_ID:
      if (g_state.task_id < 0) {
        rc = ESPANK_NOT_TASK;
      } else {
        *va_arg(args, int*) = g_state.task_id;
      }
      break;
    case S_TASK_GLOBAL_ID:
      if (g_state.task_id < 0) {
        rc = ESPANK_NOT_TASK;
      } else {
        *va_arg(args, std::uint32_t*) = g_state.task_global_id;
      }
      break;
    case S_JOB_ARGV: {
      static std::vector<char*> pointers;
      pointers.clear();
      for (auto& word : g_state.argv) pointers.push_back(word.data());
      pointers.push_back(nullptr);
      *va_arg(args, int*) = int(g_state.argv.size());
      *va_arg(args, char***) = pointers.data();
      break;
    }
    case S_STEP_ALLOC_CORES: {
      static std::string cores;
      cores = g_state.step_alloc_cores.value_or("");
      *va_arg(args, char**) = g_state.step_alloc_cores ? cores.data() : nullptr;
      break;
    }
    default:
      rc = ESPANK_BAD_ARG;
  }
  va_end(args);
  return rc;
}

spank_err_t spank_getenv(spank_t sp, const char* var, char* buf, int len) {
  if (!valid(sp) || var == nullptr || buf == nullptr || len <= 0) return ESPANK_BAD_ARG;
  if (g_state.context != S_CTX_REMOTE) return ESPANK_NOT_REMOTE;
  const auto it = g_state.env.find(var);
  if (it == g_state.env.end()) return ESPANK_ENV_NOEXIST;
  if (it->second.size() + 1 > static_cast<std::size_t>(len)) return ESPANK_NOSPACE;
  std::memcpy(buf, it->second.c_str(), it->second.size() + 1);
  return kOk;
}

spank_err_t spank_setenv(spank_t sp, const char* var, const char* val, int overwrite) {
  if (!valid(sp) || var == nullptr || val == nullptr) return ESPANK_BAD_ARG;
  if (g_state.context != S_CTX_REMOTE) return ESPANK_NOT_REMOTE;
  ++g_state.setenv_calls;
  if (!overwrite && g_state.env.count(var) != 0) return ESPANK_ENV_EXISTS;
  g_state.env[var] = val;
  return kOk;
}

spank_err_t spank_unsetenv(spank_t sp, const char* var) {
  if (!valid(sp) || var == nullptr) return ESPANK_BAD_ARG;
  if (g_state.context != S_CTX_REMOTE) return ESPANK_NOT_REMOTE;
  g_state.env.erase(var);
  return kOk;
}

spank_err_t spank_job_control_setenv(spank_t, const char*, const char*, int) {
  return ESPANK_NOT_LOCAL;
}
spank_err_t spank_job_control_getenv(spank_t, const char*, char*, int) { return ESPANK_NOT_LOCAL; }
spank_err_t spank_job_control_unsetenv(spank_t, const char*) { return ESPANK_NOT_LOCAL; }

#define FAKE_LOG(function, level)             \
  void function(const char* format, ...) {    \
    va_list args;                             \
    va_start(args, format);                   \
    fake_spank::add_log(level, format, args); \
    va_end(args);                             \
  }

}  // extern "C"

extern "C" {
FAKE_LOG(slurm_info, "info")
FAKE_LOG(slurm_error, "error")
FAKE_LOG(slurm_verbose, "verbose")
FAKE_LOG(slurm_debug, "debug")
FAKE_LOG(slurm_debug2, "debug2")
FAKE_LOG(slurm_debug3, "debug3")
FAKE_LOG(slurm_spank_log, "spank_log")
}
