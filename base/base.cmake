# base: the ground floor. Containers, buffers, arenas, allocation, the clock and logging
# that every layer builds on; it knows no schema, SQL or HTTP, and links
# nothing but libc and threads. arena and hmap_put_try report out-of-memory
# (compat propagates it); alloc.h and hmap_put abort. hmap is the one hash
# map of the tree, keyed by siphash's per-process random key.
add_library(base STATIC
  ${CMAKE_SOURCE_DIR}/base/alloc.c
  ${CMAKE_SOURCE_DIR}/base/arena.c
  ${CMAKE_SOURCE_DIR}/base/clock.c
  ${CMAKE_SOURCE_DIR}/base/hmap.c
  ${CMAKE_SOURCE_DIR}/base/log.c
  ${CMAKE_SOURCE_DIR}/base/siphash.c
  ${CMAKE_SOURCE_DIR}/base/strbuf.c
  ${CMAKE_SOURCE_DIR}/base/strlist.c
  ${CMAKE_SOURCE_DIR}/base/utf8.c)
target_include_directories(base PUBLIC ${CMAKE_SOURCE_DIR})
target_link_libraries(base PUBLIC Threads::Threads)
