# compat_avro: the Avro engine (included by compat/compat.cmake).
add_library(compat_avro STATIC
  ${CMAKE_CURRENT_LIST_DIR}/avro_access.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_changes.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_check.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_default.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_engine.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_equal.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_fingerprint.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_hash.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_json.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_logical.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_model.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_names.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_node.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_normalize.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_number.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_parse.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_tags.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_text.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_unicode.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_write.c)
target_include_directories(compat_avro PUBLIC ${CMAKE_SOURCE_DIR})
# pthread_once guards the fingerprint table and the hash seed.
target_link_libraries(compat_avro PUBLIC compat_change base PkgConfig::JANSSON Threads::Threads m)
