# GoogleTest for the test binaries: the installed one (Debian's libgtest-dev) where it fits the
# build; otherwise built from Debian's sources (package googletest) as part of this build. It does
# not fit a cross build (the installed library is for the host) or a libc++ build (the installed
# library is built against libstdc++, whose std:: types the tests would pass it).
set(VATKIT_GOOGLETEST_SOURCE_DIR /usr/src/googletest CACHE PATH
    "GoogleTest's sources, built with the project where the installed GoogleTest does not fit")
if(NOT TARGET GTest::gtest_main)
  if(NOT CMAKE_CROSSCOMPILING AND NOT VATKIT_LIBCXX)
    find_package(GTest QUIET)
  endif()
  if(NOT TARGET GTest::gtest_main)
    if(NOT EXISTS ${VATKIT_GOOGLETEST_SOURCE_DIR}/CMakeLists.txt)
      message(FATAL_ERROR "GoogleTest: no usable installed library and no sources at ${VATKIT_GOOGLETEST_SOURCE_DIR} "
                          "(Debian: apt install googletest)")
    endif()
    set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    add_subdirectory(${VATKIT_GOOGLETEST_SOURCE_DIR} ${PROJECT_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
  endif()
endif()
