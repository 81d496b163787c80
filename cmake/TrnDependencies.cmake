# Finds every third-party dependency; a missing one stops configure and names the Debian
# package that provides it (scripts/bootstrap installs them all).
find_package(PkgConfig QUIET)

function(trn_require found what debian_package)
  if(NOT ${found})
    message(FATAL_ERROR "trn-slurm: ${what} not found. Install it with: apt-get install ${debian_package} (or run scripts/bootstrap)")
  endif()
endfunction()

trn_require(PKG_CONFIG_FOUND "pkg-config" "pkg-config")

pkg_check_modules(HWLOC IMPORTED_TARGET hwloc>=2.0)
trn_require(HWLOC_FOUND "hwloc (>= 2.0)" "libhwloc-dev")

pkg_check_modules(LIBFABRIC IMPORTED_TARGET libfabric)
trn_require(LIBFABRIC_FOUND "libfabric" "libfabric-dev")

find_package(yaml-cpp QUIET)
trn_require(yaml-cpp_FOUND "yaml-cpp" "libyaml-cpp-dev")

find_package(Boost 1.74 QUIET COMPONENTS program_options)
trn_require(Boost_FOUND "Boost.Program_options" "libboost-program-options-dev")

find_package(nlohmann_json 3.10 QUIET)
trn_require(nlohmann_json_FOUND "nlohmann-json" "nlohmann-json3-dev")

if(TRN_BUILD_TESTS)
  find_package(GTest QUIET)
  trn_require(GTest_FOUND "GoogleTest" "libgtest-dev libgmock-dev")
  include(GoogleTest)
endif()
if(TRN_BUILD_BENCH)
  find_package(benchmark QUIET)
  trn_require(benchmark_FOUND "Google Benchmark" "libbenchmark-dev")
endif()

# The SPANK header: the plugin must be compiled against the spank.h of the Slurm that loads it.
if(SLURM_ROOT)
  find_path(SLURM_INCLUDE_DIR slurm/spank.h PATHS "${SLURM_ROOT}/include" NO_DEFAULT_PATH)
  set(slurm_hint "a Slurm installation under SLURM_ROOT=${SLURM_ROOT} (expected ${SLURM_ROOT}/include/slurm/spank.h)")
else()
  find_path(SLURM_INCLUDE_DIR slurm/spank.h)
  set(slurm_hint "the Slurm SPANK header slurm/spank.h")
endif()
if(NOT SLURM_INCLUDE_DIR)
  message(FATAL_ERROR "trn-slurm: ${slurm_hint} not found. Install it with: apt-get install libslurm-dev, or pass -DSLURM_ROOT=<slurm prefix> (e.g. /opt/slurm)")
endif()
file(STRINGS "${SLURM_INCLUDE_DIR}/slurm/slurm_version.h" slurm_version_line REGEX "^#define SLURM_VERSION_NUMBER")
string(REGEX MATCH "0x([0-9a-fA-F][0-9a-fA-F]?)([0-9a-fA-F][0-9a-fA-F])[0-9a-fA-F][0-9a-fA-F]" _ "${slurm_version_line}")
math(EXPR slurm_major "0x${CMAKE_MATCH_1}")
math(EXPR slurm_minor "0x${CMAKE_MATCH_2}")
if(slurm_minor LESS 10)
  set(slurm_minor "0${slurm_minor}")
endif()
set(TRN_SLURM_MAJOR_MINOR "${slurm_major}.${slurm_minor}" CACHE INTERNAL "Slurm major.minor the plugin is built for")
message(STATUS "trn-slurm: building the SPANK plugin for Slurm ${TRN_SLURM_MAJOR_MINOR} (${SLURM_INCLUDE_DIR})")
