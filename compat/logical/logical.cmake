# compat/logical: compatibilityPolicy LOGICAL over the engines' models (included by compat/compat.cmake).
# Part of the `compat` library itself, not a library of its own: it reads schema_t (schema.c) and
# level.c calls it, and a static library on each side of that would be a link cycle.
set(COMPAT_LOGICAL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/logical_avro.c
  ${CMAKE_CURRENT_LIST_DIR}/logical_compare.c
  ${CMAKE_CURRENT_LIST_DIR}/logical_from_json.c
  ${CMAKE_CURRENT_LIST_DIR}/logical_model.c
  ${CMAKE_CURRENT_LIST_DIR}/logical_policy.c
  ${CMAKE_CURRENT_LIST_DIR}/logical_proto.c
  ${CMAKE_CURRENT_LIST_DIR}/logical_validity.c)
