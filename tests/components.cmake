# The install components, proved from outside: vatkit is installed into scratch prefixes (one per
# component set), and each example in examples/ is configured, built and run against them in an
# environment where only its component's dependencies can be found (the C interface's example,
# examples/play_c, with none: a C compiler and the c component alone).
#
# How the other dependencies are made unfindable: every consumer configures with CMake's system
# and environment search paths, package registries and <Pkg>_ROOT variables switched off
# (CMAKE_FIND_USE_*=OFF), so find_package and find_library see nothing of /usr; each allowed
# dependency is then handed over explicitly (<Pkg>_DIR for config packages, the FindOpenGL/FindPNG
# cache variables, pkg-config pointed at the system's .pc files only for the gl environment and at
# an empty directory otherwise). Negative controls check that the hiding works: the bake and gl
# examples must FAIL to configure in the runtime environment (naming a dependency they lack), and
# each in the other's. Finally the runtime's installed headers may include only the standard
# library, glm and the runtime's own headers (the compiler finds /usr/include by itself, so this
# is checked by reading them).
#
# Variables (from tests/CMakeLists.txt): VATKIT_BINARY_DIR, VATKIT_SOURCE_DIR, WORK_DIR, CXX, GENERATOR,
# MAKE_PROGRAM,
# SANITIZE, LIBCXX, GLM_DIR, TINYGLTF_DIR, MESHOPT_DIR, OPENEXR_DIR and IMATH_DIR (when the bake
# library uses OpenEXR), GLFW_DIR, PKG_CONFIG, GL_CACHE (a ;-list of -D
# arguments for FindOpenGL, FindPNG and FindZLIB); the environment variables VATKIT_CC (the C compiler)
# and VATKIT_C_LINK_FLAGS (what a C program linking the sanitized library adds).
string(REPLACE "|" ";" GL_CACHE "${GL_CACHE}")
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/no-pkgconfig)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
  message(STATUS "${out}")
endfunction()

# Prefixes: each component set installed on its own, and everything.
function(install_components prefix)
  foreach(component ${ARGN})
    run(${CMAKE_COMMAND} --install ${VATKIT_BINARY_DIR} --prefix ${prefix} --component ${component})
  endforeach()
endfunction()
install_components(${WORK_DIR}/runtime-only runtime)
install_components(${WORK_DIR}/bake-only runtime bake)
install_components(${WORK_DIR}/gl-only runtime gl)
install_components(${WORK_DIR}/c-only c)
run(${CMAKE_COMMAND} --install ${VATKIT_BINARY_DIR} --prefix ${WORK_DIR}/all)

set(hide
  -DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF -DCMAKE_FIND_USE_SYSTEM_ENVIRONMENT_PATH=OFF
  -DCMAKE_FIND_USE_CMAKE_ENVIRONMENT_PATH=OFF -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_PACKAGE_ROOT_PATH=OFF
  -G ${GENERATOR} -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release)
# The examples are built as the library was: with the sanitizers, against libc++.
set(flags "")
if(SANITIZE)
  string(APPEND flags " -fsanitize=address,undefined")
endif()
set(c_flags "${flags}")  # the C example: the sanitizers, no C++ standard library
if(LIBCXX)
  string(APPEND flags " -stdlib=libc++")
endif()
if(flags)
  list(APPEND hide "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
endif()
set(env_runtime -Dglm_DIR=${GLM_DIR})
# bake: its config packages, libpng (GL_CACHE's FindPNG and FindZLIB entries) and, where the
# build has it, OpenEXR with Imath.
set(png_cache ${GL_CACHE})
list(FILTER png_cache INCLUDE REGEX "PNG|ZLIB")
set(env_bake ${env_runtime} -DTinyGLTF_DIR=${TINYGLTF_DIR} -Dmeshoptimizer_DIR=${MESHOPT_DIR} ${png_cache})
if(OPENEXR_DIR)
  list(APPEND env_bake -DOpenEXR_DIR=${OPENEXR_DIR} -DImath_DIR=${IMATH_DIR})
endif()
set(env_gl ${env_runtime} -DPKG_CONFIG_EXECUTABLE=${PKG_CONFIG} ${GL_CACHE})
if(GLFW_DIR)
  list(APPEND env_gl -Dglfw3_DIR=${GLFW_DIR})
endif()
# The C example: a C compiler (the build's, from tests/CMakeLists.txt) and no package at all.
if(NOT DEFINED ENV{VATKIT_CC})
  message(FATAL_ERROR "VATKIT_CC (the C compiler for examples/play_c) is not set: tests/CMakeLists.txt sets it")
endif()
set(env_c -DCMAKE_C_COMPILER=$ENV{VATKIT_CC})
if(c_flags)
  list(APPEND env_c "-DCMAKE_C_FLAGS=${c_flags}" "-DCMAKE_EXE_LINKER_FLAGS=${c_flags} $ENV{VATKIT_C_LINK_FLAGS}")
endif()
set(pkgconfig_c ${WORK_DIR}/no-pkgconfig)
set(pkgconfig_runtime ${WORK_DIR}/no-pkgconfig)
set(pkgconfig_bake ${WORK_DIR}/no-pkgconfig)
execute_process(COMMAND ${PKG_CONFIG} --variable pc_path pkg-config OUTPUT_VARIABLE pkgconfig_gl
                OUTPUT_STRIP_TRAILING_WHITESPACE)

# configure(example env prefix expect): configures examples/<example> for environment `env`
# against `prefix`; expect PASS (then builds it) or FAIL (then the output must name `reason`).
function(configure example env prefix expect reason)
  set(build ${WORK_DIR}/build-${example}-${env}-${expect})
  set(command ${CMAKE_COMMAND} -E env PKG_CONFIG_LIBDIR=${pkgconfig_${env}} --unset=PKG_CONFIG_PATH
              ${CMAKE_COMMAND} -S ${VATKIT_SOURCE_DIR}/examples/${example} -B ${build}
              -DCMAKE_PREFIX_PATH=${prefix} ${hide} ${env_${env}})
  execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(expect STREQUAL "PASS")
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "examples/${example} did not configure in the ${env} environment:\n${out}")
    endif()
    run(${CMAKE_COMMAND} --build ${build})
  else()
    if(rc EQUAL 0)
      message(FATAL_ERROR "negative control: examples/${example} configured in the ${env} environment, "
                          "so that environment does not hide what it should")
    endif()
    if(NOT out MATCHES "${reason}")
      message(FATAL_ERROR "negative control: examples/${example} failed in the ${env} environment, "
                          "but not for want of ${reason}:\n${out}")
    endif()
    message(STATUS "as expected, examples/${example} cannot configure in the ${env} environment (${reason})")
  endif()
endfunction()

# Positive: each example with only its own component installed, and with everything installed.
configure(play runtime ${WORK_DIR}/runtime-only PASS "")
configure(play runtime ${WORK_DIR}/all PASS "")
configure(bake bake ${WORK_DIR}/bake-only PASS "")
configure(render gl ${WORK_DIR}/gl-only PASS "")
configure(play_c c ${WORK_DIR}/c-only PASS "")
# Negative controls.
configure(bake runtime ${WORK_DIR}/all FAIL "TinyGLTF")
configure(render runtime ${WORK_DIR}/all FAIL "OpenGL|EGL|PkgConfig|PNG")
configure(render bake ${WORK_DIR}/all FAIL "OpenGL|EGL|PkgConfig|PNG")
configure(bake gl ${WORK_DIR}/all FAIL "TinyGLTF")
configure(bake bake ${WORK_DIR}/runtime-only FAIL "component bake is not installed")
configure(play_c c ${WORK_DIR}/runtime-only FAIL "component c is not installed")
configure(play c ${WORK_DIR}/all FAIL "glm")

# Run them: bake the sample with the bake example, play it with the runtime example, render it.
run(${WORK_DIR}/build-bake-bake-PASS/vatkit_bake_file ${WORK_DIR}/sample.vat.glb)
run(${WORK_DIR}/build-play-runtime-PASS/vatkit_play ${WORK_DIR}/sample.vat.glb)
run(${WORK_DIR}/build-play_c-c-PASS/vatkit_play_c ${WORK_DIR}/sample.vat.glb walk)
# Under the sanitizers the render example runs without the leak check: eglTerminate makes Mesa
# unload its driver, which leaves two 56-byte blocks that LeakSanitizer can only attribute to the
# unloaded module (with dlclose made a no-op the report goes away). vatkit's own GL code is
# leak-checked by the GL tests of vatkit_tests. llvmpipe's LLVM also frees with free() what it
# allocated with new (see tests/CMakeLists.txt).
run(${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0:alloc_dealloc_mismatch=0
    ${WORK_DIR}/build-render-gl-PASS/vatkit_render_crowd ${WORK_DIR}/sample.vat.glb ${WORK_DIR}/crowd.png 16)
if(NOT EXISTS ${WORK_DIR}/crowd.png)
  message(FATAL_ERROR "the render example wrote no picture")
endif()

# The runtime's installed headers include nothing but the standard library, glm and each other.
file(GLOB runtime_headers ${WORK_DIR}/runtime-only/include/vatkit/*.h)
foreach(header ${runtime_headers})
  file(STRINGS ${header} includes REGEX "^[ \t]*#[ \t]*include")
  foreach(line ${includes})
    if(line MATCHES "[<\"]vatkit/([a-z_]+\\.h)[>\"]")
      if(NOT EXISTS ${WORK_DIR}/runtime-only/include/vatkit/${CMAKE_MATCH_1})
        message(FATAL_ERROR "${header} includes vatkit/${CMAKE_MATCH_1}, which is not a runtime header")
      endif()
    elseif(NOT line MATCHES "<(glm/[a-z_/0-9]+\\.hpp|[a-z_]+)>")
      message(FATAL_ERROR "${header}: \"${line}\" is neither the standard library, glm nor the runtime")
    endif()
  endforeach()
endforeach()
