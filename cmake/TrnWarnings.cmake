# Warning and sanitizer flags shared by every target of the project.
add_library(trn_build_flags INTERFACE)
target_compile_options(trn_build_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
if(TRN_WARNINGS_AS_ERRORS)
  target_compile_options(trn_build_flags INTERFACE -Werror)
endif()
if(TRN_SANITIZE)
  target_compile_options(trn_build_flags INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(trn_build_flags INTERFACE -fsanitize=address,undefined)
endif()
if(TRN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "trn-slurm: TRN_FUZZ needs clang (libFuzzer): apt-get install clang libclang-rt-14-dev, and use the fuzz preset")
  endif()
  # Coverage feedback for libFuzzer in every object; the harnesses link libFuzzer's main
  # (tests/fuzz). Undefined behaviour aborts, so that the fuzzer keeps it as a crash.
  target_compile_options(trn_build_flags INTERFACE -fsanitize=fuzzer-no-link,address,undefined
                         -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(trn_build_flags INTERFACE -fsanitize=address,undefined)
endif()
