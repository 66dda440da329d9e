/*
 * migrations: the SQL files of migrations/, compiled into the binary by
 * store/embed_migrations.cmake so a deployed binary needs no source tree.
 */
#ifndef STORE_MIGRATIONS_H
#define STORE_MIGRATIONS_H

#include <stddef.h>

typedef struct store_migration {
    const char *name; /* file name, e.g. "0001_initial.sql"; applied in this order */
    const char *sql;
} store_migration_t;

extern const store_migration_t store_migrations[];
extern const size_t store_migration_count;

#endif
