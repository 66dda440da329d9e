/*
 * pg_embedded: a private PostgreSQL cluster for when no database URL is
 * configured. Knows processes and files, not SQL.
 *
 * Layout under data_dir:
 *   pgdata/           the cluster (initdb on first start; fsync on)
 *   run/              the unix socket; TCP is off (listen_addresses = '')
 *   log/postgresql.log
 *
 * The server binaries come from `pg_config --bindir`, else the newest
 * /usr/lib/postgresql/N/bin. PostgreSQL refuses to run as root, so as root
 * every PostgreSQL process runs as the user "postgres" (or "nobody" when
 * that does not exist), which then owns pgdata/, run/ and log/.
 *
 * A postmaster left behind by a server that crashed is stopped before the
 * new one starts; a stale postmaster.pid is removed.
 */
#ifndef REGISTRY_PG_EMBEDDED_H
#define REGISTRY_PG_EMBEDDED_H

typedef struct pgembed pgembed_t;

/*
 * Creates data_dir if needed, initializes the cluster on first use, starts
 * it and waits until it accepts connections. NULL + malloc'd *error on
 * failure (with the tail of PostgreSQL's own output); nothing is left
 * running then.
 */
pgembed_t *pgembed_start(const char *data_dir, char **error);

/* libpq conninfo for the running cluster (borrowed, valid until pgembed_stop). */
const char *pgembed_conninfo(const pgembed_t *pg);

/* Fast shutdown (pg_ctl -m fast), waits for it, frees pg. NULL is ignored. */
void pgembed_stop(pgembed_t *pg);

#endif
