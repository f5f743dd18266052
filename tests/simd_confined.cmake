# The SIMD layer's boundary (runtime/src/simd/simd.h): no source of the libraries, the tool or the
# renderer outside a `simd/` folder uses intrinsics, their headers or their vector types, so the
# control code reads as plain C++ and every kernel sits beside its scalar twin.
#   cmake -DVATKIT_SOURCE_DIR=... -P simd_confined.cmake
file(GLOB_RECURSE sources ${VATKIT_SOURCE_DIR}/runtime/*.h ${VATKIT_SOURCE_DIR}/runtime/*.cpp ${VATKIT_SOURCE_DIR}/runtime/*.inl
     ${VATKIT_SOURCE_DIR}/bake/*.h ${VATKIT_SOURCE_DIR}/bake/*.cpp ${VATKIT_SOURCE_DIR}/bake/*.inl
     ${VATKIT_SOURCE_DIR}/gl/*.h ${VATKIT_SOURCE_DIR}/gl/*.cpp ${VATKIT_SOURCE_DIR}/tools/*.h ${VATKIT_SOURCE_DIR}/tools/*.cpp)
set(pattern "_mm(256|512)?_[a-z]|__m(128|256|512)|[a-z]*intrin\\.h")
set(outside "")
set(inside 0)
foreach(source ${sources})
  file(STRINGS ${source} hits REGEX "${pattern}")
  if(source MATCHES "/src/simd/")
    if(hits)
      math(EXPR inside "${inside} + 1")
    endif()
  elseif(hits)
    list(GET hits 0 first)
    string(STRIP "${first}" first)
    list(APPEND outside "${source}: ${first}")
  endif()
endforeach()
if(outside)
  list(JOIN outside "\n  " lines)
  message(FATAL_ERROR "intrinsics outside a simd/ folder:\n  ${lines}")
endif()
# The pattern must still find the kernels themselves, or it finds nothing anywhere.
if(inside LESS 5)
  message(FATAL_ERROR "the intrinsics pattern matched only ${inside} files in the simd/ folders: it is broken")
endif()
message(STATUS "intrinsics in ${inside} files, all in simd/ folders")
