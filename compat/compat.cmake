# The compat library: every compat/*.c, plus code generated from descriptor.proto
# (see compat/protobuf.cmake when present).
file(GLOB COMPAT_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/compat/*.c)
add_library(compat STATIC ${COMPAT_SOURCES})
target_include_directories(compat PUBLIC ${CMAKE_SOURCE_DIR})
target_link_libraries(compat PUBLIC base PkgConfig::JANSSON OpenSSL::Crypto m)
if(EXISTS ${CMAKE_SOURCE_DIR}/compat/protobuf.cmake)
  include(${CMAKE_SOURCE_DIR}/compat/protobuf.cmake)
endif()
