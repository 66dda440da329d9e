# compat_jsonschema: the JSON Schema engine (included by compat/compat.cmake).
add_library(compat_jsonschema STATIC
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_change.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_changes.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_diff.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_diff_array.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_diff_combined.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_diff_ctx.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_diff_object.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_diff_scalar.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_engine.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_json.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_load.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_load_modern.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_node.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_order.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_parse.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_ref.c
  ${CMAKE_CURRENT_LIST_DIR}/jsonschema_tags.c)
target_include_directories(compat_jsonschema PUBLIC ${CMAKE_SOURCE_DIR})
target_link_libraries(compat_jsonschema PUBLIC compat_change base m)
