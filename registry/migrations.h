/*
 * migrations: the SQL files of migrations/, compiled into the binary by
 * registry/embed_migrations.cmake so a deployed binary needs no source tree.
 */
#ifndef REGISTRY_MIGRATIONS_H
#define REGISTRY_MIGRATIONS_H

#include <stddef.h>

typedef struct registry_migration {
    const char *name;   /* file name, e.g. "0001_initial.sql"; applied in this order */
    const char *sql;
} registry_migration_t;

extern const registry_migration_t registry_migrations[];
extern const size_t registry_migration_count;

#endif
