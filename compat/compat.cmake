# compat: the schema engines and the one compatibility-level algorithm.
#
#   compat_avro        compat/avro/        (compat/avro/avro.cmake)
#   compat_protobuf    compat/protobuf/    (compat/protobuf/protobuf.cmake)
#   compat_jsonschema  compat/jsonschema/  (compat/jsonschema/jsonschema.cmake)
#   compat_change      change.c (the change model; the engines link it)
#   compat             schema.c (the engine table), level.c, and logical/ (compatibilityPolicy
#                      LOGICAL, compat/logical/logical.cmake), linking all three
#
# Other layers link `compat` and include compat/schema.h and compat/level.h;
# only schema.c includes the engines' headers.
# compat_change: the change model every engine maps its differences onto.
add_library(compat_change STATIC ${CMAKE_SOURCE_DIR}/compat/change.c)
target_include_directories(compat_change PUBLIC ${CMAKE_SOURCE_DIR})
target_link_libraries(compat_change PUBLIC base)

include(${CMAKE_SOURCE_DIR}/compat/avro/avro.cmake)
include(${CMAKE_SOURCE_DIR}/compat/protobuf/protobuf.cmake)
include(${CMAKE_SOURCE_DIR}/compat/jsonschema/jsonschema.cmake)
include(${CMAKE_SOURCE_DIR}/compat/logical/logical.cmake)

add_library(compat STATIC
  ${CMAKE_SOURCE_DIR}/compat/level.c
  ${CMAKE_SOURCE_DIR}/compat/schema.c
  ${COMPAT_LOGICAL_SOURCES})
target_include_directories(compat PUBLIC ${CMAKE_SOURCE_DIR})
target_link_libraries(compat PUBLIC compat_avro compat_protobuf compat_jsonschema base
                      PkgConfig::JANSSON m)
