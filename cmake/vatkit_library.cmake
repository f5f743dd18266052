# vatkit_library(<name> COMPONENT <component> SOURCES <files...> HEADERS <files...>
#                HEADER_DESTINATION <dir under include/> [PUBLIC <deps...>] [PRIVATE <deps...>]
#                [PRECOMPILE <headers...>] [FUZZ_TWIN])
# One of vatkit's libraries: the static library vatkit_<name> (alias vatkit::<name>), its public
# headers (include/ beside the calling CMakeLists.txt) and private sources (src/), its install
# rules and export set (vatkit<Component>Targets, component <component>). With FUZZ_TWIN and
# VATKIT_BUILD_FUZZ, also vatkit_<name>_fuzz: the same library compiled with libFuzzer's coverage
# instrumentation (fuzz/CMakeLists.txt says why), linking the twins of the vatkit libraries it
# depends on. PRIVATE dependencies are build-only unless they are link dependencies; wrap
# header-only ones in $<BUILD_INTERFACE:...> as usual.
function(vatkit_library name)
  cmake_parse_arguments(arg "FUZZ_TWIN" "COMPONENT;HEADER_DESTINATION" "SOURCES;HEADERS;PUBLIC;PRIVATE;PRECOMPILE" ${ARGN})
  set(dir ${CMAKE_CURRENT_SOURCE_DIR})
  set(variants vatkit_${name})
  if(arg_FUZZ_TWIN AND VATKIT_BUILD_FUZZ)
    list(APPEND variants vatkit_${name}_fuzz)
  endif()
  foreach(target ${variants})
    set(public ${arg_PUBLIC})
    if(target MATCHES "_fuzz$")
      list(TRANSFORM public REPLACE "^(vatkit_[a-z]+)$" "\\1_fuzz")
    endif()
    add_library(${target} STATIC ${arg_SOURCES})
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${dir}/include>
                               $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_include_directories(${target} PRIVATE ${dir}/src)
    target_compile_features(${target} PUBLIC cxx_std_20)
    target_link_libraries(${target} PUBLIC ${public} PRIVATE ${arg_PRIVATE} $<BUILD_INTERFACE:vatkit_warnings>)
    if(arg_PRECOMPILE)
      vatkit_precompile(${target} ${arg_PRECOMPILE})
    endif()
    if(target MATCHES "_fuzz$")
      target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
    endif()
  endforeach()
  add_library(vatkit::${name} ALIAS vatkit_${name})
  vatkit_install(vatkit_${name} EXPORT_NAME ${name} COMPONENT ${arg_COMPONENT} HEADERS ${arg_HEADERS}
                 HEADER_DESTINATION ${arg_HEADER_DESTINATION})
endfunction()

# vatkit_install(<target> EXPORT_NAME <name> COMPONENT <component> HEADERS <files...>
#                HEADER_DESTINATION <dir under include/>)
# The install rules of one of vatkit's libraries (static or shared): the library, its public
# headers and its export set vatkit<Component>Targets (target vatkit::<name>), all in install
# component <component>.
function(vatkit_install target)
  cmake_parse_arguments(arg "" "EXPORT_NAME;COMPONENT;HEADER_DESTINATION" "HEADERS" ${ARGN})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${arg_EXPORT_NAME})
  string(SUBSTRING ${arg_COMPONENT} 0 1 first)
  string(TOUPPER ${first} first)
  string(SUBSTRING ${arg_COMPONENT} 1 -1 rest)
  set(export vatkit${first}${rest}Targets)
  install(TARGETS ${target} EXPORT ${export} COMPONENT ${arg_COMPONENT}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})  # a DLL
  install(FILES ${arg_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${arg_HEADER_DESTINATION}
          COMPONENT ${arg_COMPONENT})
  install(EXPORT ${export} NAMESPACE vatkit:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vatkit
          COMPONENT ${arg_COMPONENT})
endfunction()
