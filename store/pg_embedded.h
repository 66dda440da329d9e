/*
 * pg_embedded: a private PostgreSQL cluster for when no database URL is
 * configured. Knows processes and files, not SQL.
 *
 * Layout under the cluster's home (normally data_dir itself):
 *   pgdata/           the cluster (initdb on first start; fsync on)
 *   run/              the unix socket; TCP is off (listen_addresses = '')
 *   log/postgresql.log, log/initdb.log (only after a failed initdb)
 * and in data_dir: lock (held while serving), cluster (see below).
 *
 * The server binaries come from `pg_config --bindir`, else the newest
 * /usr/lib/postgresql/N/bin. PostgreSQL refuses to run as root, so as root
 * every PostgreSQL process runs as the user "postgres" (or "nobody" when
 * that does not exist), which then owns pgdata/, run/ and log/. When that
 * user cannot enter data_dir (a parent of mode 700: /root, a home made by
 * adduser, mktemp -d), the home is /var/lib/schema-registry/clusters/KEY,
 * KEY derived from data_dir's path, and data_dir/cluster names it.
 *
 * A postmaster left behind by a server that crashed is stopped before the
 * new one starts; a stale postmaster.pid is removed.
 */
#ifndef STORE_PG_EMBEDDED_H
#define STORE_PG_EMBEDDED_H

typedef struct pgembed pgembed_t;

/* Told what a slow or surprising step is doing (initdb, a cluster elsewhere). */
typedef void (*pgembed_notice_fn)(const char *message);

/*
 * Creates data_dir if needed, initializes the cluster on first use, starts
 * it and waits until it accepts connections. NULL + malloc'd *error on
 * failure: one line naming the cause (a tool's whole output goes to a file
 * under log/, which the line names); nothing is left running then.
 */
pgembed_t *pgembed_start(const char *data_dir, pgembed_notice_fn notice, char **error);

/* libpq conninfo for the running cluster (borrowed, valid until pgembed_stop). */
const char *pgembed_conninfo(const pgembed_t *pg);

/* Fast shutdown (pg_ctl -m fast), waits for it, frees pg. NULL is ignored. */
void pgembed_stop(pgembed_t *pg);

#endif
