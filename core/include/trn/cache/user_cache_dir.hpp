#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

// The per-user node-local compile cache, <local_cache>/<user>, made by root for the job's user.
// The walk from "/" opens every component with O_NOFOLLOW | O_DIRECTORY and works on the open
// descriptors (mkdirat, fchown, fchmod), so a symlink or directory a user planted anywhere on
// the way is refused, never followed, and nothing is ever chown'ed by path.
namespace trn::cache {

// What the walk accepts, i.e. the layout this code creates:
//   every directory above <local_cache>: owned by root; writable by others only if sticky;
//   <local_cache>: owned by root, not writable by group or others (created 0755);
//   <local_cache>/<user>: owned by the user (created 0700, then fchown'ed; a root-owned one
//     is ours, left half-made by an interrupted run, and is finished).
// Anything else throws trn::Error naming the path, what is wrong and what to do.
// Returns the user's directory; `created` says whether this call made it.
std::filesystem::path ensure_user_cache_dir(const std::filesystem::path& local_cache,
                                            const std::string& user, uid_t uid, gid_t gid,
                                            bool* created = nullptr);

// The user's login name, or the numeric uid when the name service has none.
std::string user_name(uid_t uid);

}  // namespace trn::cache
