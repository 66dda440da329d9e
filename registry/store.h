/*
 * store: the PostgreSQL connection and every SQL statement the registry runs.
 * Parameters always; never SQL built from request data.
 */
#ifndef REGISTRY_STORE_H
#define REGISTRY_STORE_H

typedef struct store store_t;

/* Blocking connect (libpq conninfo string or postgresql:// URL). NULL + *error on failure. */
store_t *store_open(const char *conninfo, char **error);
void store_close(store_t *db);

#endif
