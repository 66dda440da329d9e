# client: the consumer's library (client/client.h): the registry over HTTP
# (libcurl), the wire format, the Avro decoder and encoder. Links compat and
# base only: a consumer needs no database and no server.
pkg_check_modules(LIBCURL REQUIRED IMPORTED_TARGET libcurl)
add_library(client STATIC
  ${CMAKE_CURRENT_LIST_DIR}/avro_decode.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_encode.c
  ${CMAKE_CURRENT_LIST_DIR}/avro_json.c
  ${CMAKE_CURRENT_LIST_DIR}/decoder.c
  ${CMAKE_CURRENT_LIST_DIR}/json_validate.c
  ${CMAKE_CURRENT_LIST_DIR}/proto_decode.c
  ${CMAKE_CURRENT_LIST_DIR}/proto_encode.c
  ${CMAKE_CURRENT_LIST_DIR}/srclient.c
  ${CMAKE_CURRENT_LIST_DIR}/wire.c)
target_include_directories(client PUBLIC ${CMAKE_SOURCE_DIR})
target_link_libraries(client PUBLIC compat_avro compat_protobuf base PkgConfig::LIBCURL PkgConfig::JANSSON Threads::Threads)
