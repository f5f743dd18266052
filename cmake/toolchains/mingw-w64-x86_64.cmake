# Cross build for 64-bit Windows with MinGW-w64 (Debian: g++-mingw-w64-x86-64), as
# scripts/windows.sh uses it:
#   cmake -S . -B build-mingw -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-w64-x86_64.cmake
#         -DVATKIT_RUNTIME_ONLY=ON
# The posix thread model (x86_64-w64-mingw32-g++-posix): std::thread and std::mutex, which the
# win32 model of GCC 12 lacks. Executables are linked statically: they need no MinGW DLL, so Wine
# (or Windows) runs them as they are.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")

# Libraries and headers of the target only; programs of the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Tests (add_test) run under Wine. Debian's wine64 package installs the loader here, without a
# `wine` command on the PATH.
find_program(VATKIT_WINE NAMES wine64 wine PATHS /usr/lib/wine NO_CMAKE_FIND_ROOT_PATH)
if(VATKIT_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${VATKIT_WINE})
endif()

# glm, nlohmann-json and xxHash are header-only and platform-independent, so Debian's copies serve
# the cross build too; but they live in /usr/include beside glibc's headers, which must never be
# on a MinGW include path. A prefix of links to just them, in the build directory: glm's and
# nlohmann-json's CMake package files (linked as well) compute their include directory from where
# they are found, so glm::glm (a public dependency of the runtime) brings this prefix's include/,
# and xxhash.h with it. Done once per build directory (not in try_compile's scratch projects).
get_property(_vatkit_in_try_compile GLOBAL PROPERTY IN_TRY_COMPILE)
if(NOT _vatkit_in_try_compile)
  set(_vatkit_deps ${CMAKE_BINARY_DIR}/mingw-deps)
  file(MAKE_DIRECTORY ${_vatkit_deps}/include ${_vatkit_deps}/share/cmake)
  foreach(_link include/glm include/nlohmann include/xxhash.h share/cmake/glm share/cmake/nlohmann_json)
    if(NOT EXISTS /usr/${_link})
      message(FATAL_ERROR "/usr/${_link} is missing: run scripts/setup.sh (glm, nlohmann-json, xxHash)")
    endif()
    if(NOT EXISTS ${_vatkit_deps}/${_link})
      file(CREATE_LINK /usr/${_link} ${_vatkit_deps}/${_link} SYMBOLIC)
    endif()
  endforeach()
  set(glm_DIR ${_vatkit_deps}/share/cmake/glm CACHE PATH "glm's package files (the MinGW prefix of links)")
  set(nlohmann_json_DIR ${_vatkit_deps}/share/cmake/nlohmann_json CACHE PATH
      "nlohmann-json's package files (the MinGW prefix of links)")
endif()
