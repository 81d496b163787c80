#pragma once

// spank.h declares the slurm_spank_* callbacks outside its own extern "C" block, which in C++
// would give them C++ linkage and mangled names the loader cannot find. Every file includes
// the header through this one.
extern "C" {
#include <slurm/spank.h>
}
