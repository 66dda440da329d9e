/*
 * pg_embedded: initdb + pg_ctl under the data directory (pg_embedded.h).
 *
 * Contents
 *   1. State and small helpers
 *   2. Running a PostgreSQL tool (as the unprivileged user when root)
 *   3. Finding the binaries and the user
 *   4. Directories
 *   5. Leftovers of a crash
 *   6. Start and stop
 */
#include "store/pg_embedded.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"

#define PGEMBED_PORT         "5432" /* only names the socket file; TCP stays off */
#define PGEMBED_OUTPUT_MAX   8192   /* tail of a tool's output kept for error messages */
#define PGEMBED_WAIT_SECONDS "60"
/* Clusters of data directories that the PostgreSQL user cannot reach (root only). */
#define PGEMBED_ROOT_HOMES "/var/lib/schema-registry/clusters"

/* ---- 1. State and small helpers -------------------------------------------- */

struct pgembed {
    char *data_dir; /* absolute */
    char *home;     /* holds pgdata/, run/, log/: data_dir, or elsewhere for root (section 4) */
    char *pgdata;
    char *sockdir;
    char *logdir;
    char *logfile;
    char *bindir;
    char *conninfo;
    int lock_fd; /* flock'd <data_dir>/lock: one server per data directory */
    int drop;    /* run tools as uid/gid below (we are root) */
    uid_t uid;
    gid_t gid;
    char user[64];
    pgembed_notice_fn notice; /* may be NULL */
};

static void pgembed_notice(const pgembed_t *pg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pgembed_notice(const pgembed_t *pg, const char *fmt, ...)
{
    if (pg->notice == NULL)
        return;
    char msg[PATH_MAX * 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pg->notice(msg);
}

static int pgembed_is_executable(const char *dir, const char *name)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    return n > 0 && (size_t)n < sizeof path && access(path, X_OK) == 0; /* a cut path names another file */
}

static void pgembed_free(pgembed_t *pg)
{
    if (pg == NULL)
        return;
    free(pg->data_dir);
    free(pg->home);
    free(pg->pgdata);
    free(pg->sockdir);
    free(pg->logdir);
    free(pg->logfile);
    free(pg->bindir);
    free(pg->conninfo);
    if (pg->lock_fd >= 0)
        close(pg->lock_fd);
    free(pg);
}

/* ---- 2. Running a tool --------------------------------------------------------- */

/* In the child, before exec: a clean process that PostgreSQL will accept. */
static void pgembed_child_setup(const pgembed_t *pg, int out_fd)
{
    sigset_t none;
    sigemptyset(&none);
    /* The server blocks SIGINT/SIGTERM for sigwait(); a postmaster must not inherit that. */
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    /* Out of the terminal's process group: Ctrl-C reaches the server, which then stops us. */
    setsid();
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0)
        dup2(devnull, STDIN_FILENO);
    dup2(out_fd, STDOUT_FILENO);
    dup2(out_fd, STDERR_FILENO);
    close_range(3, ~0U, 0);
    if (pg->drop) {
        if (setgroups(0, NULL) != 0 || setgid(pg->gid) != 0 || setuid(pg->uid) != 0) {
            dprintf(STDERR_FILENO, "cannot switch to user %s: %s\n", pg->user, strerror(errno));
            _exit(126);
        }
    }
    if (chdir("/") != 0)
        _exit(126);
}

/* Appends to a bounded buffer, keeping the tail (the errors come last). */
static void pgembed_keep_tail(char *buf, size_t *len, const char *data, size_t n)
{
    const size_t cap = PGEMBED_OUTPUT_MAX - 1;
    if (n > cap) {
        data += n - cap;
        n = cap;
    }
    if (*len + n > cap) {
        size_t drop = *len + n - cap;
        memmove(buf, buf + drop, *len - drop);
        *len -= drop;
    }
    memcpy(buf + *len, data, n);
    *len += n;
    buf[*len] = '\0';
}

/*
 * Runs argv (argv[0] an absolute path) and waits for it. Its stdout and
 * stderr land in *output (malloc'd tail, may be NULL). Returns the exit
 * status, or -1 when it could not run or died of a signal.
 */
static int pgembed_run(const pgembed_t *pg, char *const argv[], char **output)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        pgembed_child_setup(pg, fds[1]);
        execv(argv[0], argv);
        dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    char *buf = xcalloc(1, PGEMBED_OUTPUT_MAX);
    size_t len = 0;
    char chunk[4096];
    ssize_t n;
    while ((n = read(fds[0], chunk, sizeof chunk)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        pgembed_keep_tail(buf, &len, chunk, (size_t)n);
    }
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (output)
        *output = buf;
    else
        free(buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- 3. Binaries and user ---------------------------------------------------------- */

static int pgembed_has_tools(const char *dir)
{
    return pgembed_is_executable(dir, "initdb") && pgembed_is_executable(dir, "pg_ctl") &&
           pgembed_is_executable(dir, "postgres");
}

/* `pg_config --bindir`, read without a shell. */
static char *pgembed_bindir_from_pg_config(void)
{
    static const char *const dirs[] = {"/usr/bin", "/usr/local/bin", "/usr/lib/postgresql/bin"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/pg_config", dirs[i]);
        if (access(path, X_OK) != 0)
            continue;
        char *const argv[] = {path, "--bindir", NULL};
        char *out = NULL;
        pgembed_t plain = {0};
        if (pgembed_run(&plain, argv, &out) == 0 && out) {
            out[strcspn(out, "\r\n")] = '\0';
            if (pgembed_has_tools(out))
                return out;
        }
        free(out);
    }
    return NULL;
}

/* The highest N with /usr/lib/postgresql/N/bin holding the tools. */
static char *pgembed_bindir_newest(void)
{
    DIR *d = opendir("/usr/lib/postgresql");
    if (d == NULL)
        return NULL;
    long best = -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long v = strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end != '\0' || v <= best)
            continue;
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "/usr/lib/postgresql/%s/bin", e->d_name);
        if (pgembed_has_tools(dir))
            best = v;
    }
    closedir(d);
    return best < 0 ? NULL : xasprintf("/usr/lib/postgresql/%ld/bin", best);
}

static int pgembed_pick_user(pgembed_t *pg, char **error)
{
    if (geteuid() != 0)
        return 0;
    static const char *const names[] = {"postgres", "nobody"};
    for (size_t i = 0; i < 2; i++) {
        struct passwd *pw = getpwnam(names[i]);
        if (pw == NULL)
            continue;
        pg->drop = 1;
        pg->uid = pw->pw_uid;
        pg->gid = pw->pw_gid;
        snprintf(pg->user, sizeof pg->user, "%s", names[i]);
        return 0;
    }
    *error = xasprintf("running as root, but neither user 'postgres' nor 'nobody' exists "
                       "to run PostgreSQL as");
    return -1;
}

/* ---- 4. Directories ------------------------------------------------------------------- */

static int pgembed_mkdir_p(const char *path, mode_t mode)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return -1;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, mode) != 0 && errno != EEXIST ? -1 : 0;
}

/* A directory the PostgreSQL user owns and nobody else can enter. */
static int pgembed_private_dir(const pgembed_t *pg, const char *path, char **error)
{
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        *error = xasprintf("cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    if (pg->drop && chown(path, pg->uid, pg->gid) != 0) {
        *error = xasprintf("cannot give %s to user %s: %s", path, pg->user, strerror(errno));
        return -1;
    }
    if (chmod(path, 0700) != 0) {
        *error = xasprintf("cannot restrict %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* 'value' quoted for a libpq conninfo string. */
static char *pgembed_conninfo_quote(const char *value)
{
    size_t n = strlen(value);
    char *out = xmalloc(2 * n + 3);
    size_t o = 0;
    out[o++] = '\'';
    for (size_t i = 0; i < n; i++) {
        if (value[i] == '\'' || value[i] == '\\')
            out[o++] = '\\';
        out[o++] = value[i];
    }
    out[o++] = '\'';
    out[o] = '\0';
    return out;
}

/*
 * Without it a second server on the same directory would take the first
 * one's postmaster for a crash leftover and stop it. The kernel drops the
 * lock when the process dies, so a crash never leaves the directory locked.
 */
static int pgembed_lock(pgembed_t *pg, const char *dir, char **error)
{
    char path[PATH_MAX + 8];
    snprintf(path, sizeof path, "%s/lock", dir);
    pg->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (pg->lock_fd < 0) {
        *error = xasprintf("cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    if (flock(pg->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        *error = errno == EWOULDBLOCK
                     ? xasprintf("data directory %s is in use by another schema-registry process", dir)
                     : xasprintf("cannot lock %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/*
 * 1 when the PostgreSQL user can reach (search) dir. Asked of the kernel in a
 * child that has become that user, so ACLs, mounts and group bits all count.
 */
static int pgembed_user_can_reach(const pgembed_t *pg, const char *dir)
{
    pid_t pid = fork();
    if (pid < 0)
        return 0;
    if (pid == 0) {
        if (setgroups(0, NULL) != 0 || setgid(pg->gid) != 0 || setuid(pg->uid) != 0)
            _exit(2);
        _exit(access(dir, X_OK) == 0 ? 0 : 1);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* FNV-1a 64: names a data directory's cluster under PGEMBED_ROOT_HOMES. */
static unsigned long long pgembed_path_key(const char *path)
{
    unsigned long long h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

/* The first line of a small file, malloc'd; NULL when absent or empty. */
static char *pgembed_read_line(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    char buf[PATH_MAX];
    char *line = fgets(buf, sizeof buf, f) ? buf : NULL;
    fclose(f);
    if (line == NULL)
        return NULL;
    line[strcspn(line, "\r\n")] = '\0';
    return line[0] == '/' ? xstrdup(line) : NULL;
}

static int pgembed_write_line(const char *path, const char *line, char **error)
{
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL || fprintf(f, "%s\n", line) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        *error = xasprintf("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/*
 * Where pgdata/, run/ and log/ go. Normally inside the data directory. As
 * root, PostgreSQL runs as another user who cannot enter a data directory
 * under a mode-700 parent (/root, a home made by adduser, mktemp -d); then
 * the cluster lives under PGEMBED_ROOT_HOMES, keyed by the data directory,
 * and DATA_DIR/cluster records where, so a moved data directory still finds
 * its cluster. An existing DATA_DIR/pgdata is always kept where it is.
 */
static int pgembed_pick_home(pgembed_t *pg, char **error)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/cluster", pg->data_dir);
    pg->home = pgembed_read_line(path);
    if (pg->home != NULL)
        return 0;
    char version[PATH_MAX + 32];
    snprintf(version, sizeof version, "%s/pgdata/PG_VERSION", pg->data_dir);
    if (!pg->drop || access(version, F_OK) == 0 || pgembed_user_can_reach(pg, pg->data_dir)) {
        pg->home = xstrdup(pg->data_dir);
        return 0;
    }
    pg->home = xasprintf(PGEMBED_ROOT_HOMES "/%016llx", pgembed_path_key(pg->data_dir));
    if (pgembed_mkdir_p(pg->home, 0755) != 0) {
        *error = xasprintf("user %s cannot enter %s (a parent directory is private) and %s cannot be "
                           "created: %s; use a --data-dir that %s can reach, or run as an ordinary user",
                           pg->user, pg->data_dir, pg->home, strerror(errno), pg->user);
        return -1;
    }
    if (!pgembed_user_can_reach(pg, PGEMBED_ROOT_HOMES) && chmod(PGEMBED_ROOT_HOMES, 0755) != 0) {
        *error = xasprintf("user %s cannot enter %s", pg->user, PGEMBED_ROOT_HOMES);
        return -1;
    }
    pgembed_notice(pg,
                   "user %s cannot enter %s (a parent directory is private); the cluster lives in %s, "
                   "recorded in %s",
                   pg->user, pg->data_dir, pg->home, path);
    return pgembed_write_line(path, pg->home, error);
}

static int pgembed_layout(pgembed_t *pg, const char *data_dir, char **error)
{
    if (pgembed_mkdir_p(data_dir, 0755) != 0) {
        *error = xasprintf("cannot create data directory %s: %s", data_dir, strerror(errno));
        return -1;
    }
    char abs[PATH_MAX];
    if (realpath(data_dir, abs) == NULL) {
        *error = xasprintf("cannot resolve data directory %s: %s", data_dir, strerror(errno));
        return -1;
    }
    if (access(abs, W_OK | X_OK) != 0) {
        *error = xasprintf("data directory %s is not writable by this user: %s", abs, strerror(errno));
        return -1;
    }
    if (pgembed_lock(pg, abs, error) != 0)
        return -1;
    pg->data_dir = xstrdup(abs);
    if (pgembed_pick_home(pg, error) != 0)
        return -1;
    if (pg->drop && !pgembed_user_can_reach(pg, pg->home)) {
        *error = xasprintf("user %s cannot enter %s (a parent directory is private): give the parents "
                           "o+x, or move the data directory",
                           pg->user, pg->home);
        return -1;
    }
    /* pg_ctl hands -o to a shell; a quote in a path would break out of it. */
    if (strchr(pg->home, '\'') != NULL) {
        *error = xasprintf("data directory path must not contain a single quote: %s", pg->home);
        return -1;
    }
    pg->pgdata = xasprintf("%s/pgdata", pg->home);
    pg->sockdir = xasprintf("%s/run", pg->home);
    pg->logdir = xasprintf("%s/log", pg->home);
    pg->logfile = xasprintf("%s/log/postgresql.log", pg->home);
    char *host = pgembed_conninfo_quote(pg->sockdir);
    pg->conninfo = xasprintf("host=%s port=" PGEMBED_PORT " user=postgres dbname=postgres", host);
    free(host);
    return pgembed_private_dir(pg, pg->pgdata, error) || pgembed_private_dir(pg, pg->sockdir, error) ||
                   pgembed_private_dir(pg, pg->logdir, error)
               ? -1
               : 0;
}

/* ---- 5. Leftovers of a crash ---------------------------------------------------------- */

static pid_t pgembed_pidfile_pid(const pgembed_t *pg)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/postmaster.pid", pg->pgdata);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    long pid = 0;
    if (fscanf(f, "%ld", &pid) != 1)
        pid = 0;
    fclose(f);
    return pid > 0 ? (pid_t)pid : 0;
}

/* 1 when pid is a live postmaster of this very cluster (its cwd is pgdata). */
static int pgembed_pid_is_ours(const pgembed_t *pg, pid_t pid)
{
    char link[64], cwd[PATH_MAX];
    snprintf(link, sizeof link, "/proc/%ld/cwd", (long)pid);
    ssize_t n = readlink(link, cwd, sizeof cwd - 1);
    if (n < 0) {
        if (errno == ENOENT)
            return 0;                               /* no such process */
        return kill(pid, 0) == 0 || errno == EPERM; /* cannot look closer: trust the pid file */
    }
    cwd[n] = '\0';
    return strcmp(cwd, pg->pgdata) == 0;
}

static void pgembed_remove_stale(const pgembed_t *pg)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/postmaster.pid", pg->pgdata);
    unlink(path);
    snprintf(path, sizeof path, "%s/.s.PGSQL." PGEMBED_PORT ".lock", pg->sockdir);
    unlink(path);
    snprintf(path, sizeof path, "%s/.s.PGSQL." PGEMBED_PORT, pg->sockdir);
    unlink(path);
}

static int pgembed_ctl_stop(const pgembed_t *pg, char **output)
{
    char ctl[PATH_MAX];
    snprintf(ctl, sizeof ctl, "%s/pg_ctl", pg->bindir);
    char *const argv[] = {ctl,  "-D", pg->pgdata,           "-m",   "fast",
                          "-w", "-t", PGEMBED_WAIT_SECONDS, "stop", NULL};
    return pgembed_run(pg, argv, output);
}

/*
 * A postmaster of ours still running (the last server was killed) is
 * stopped; a pid file naming anything else is stale. PostgreSQL checks the
 * pid itself, but a container restart often hands the old pid to another
 * process, and then it refuses to start.
 */
static void pgembed_clear_leftovers(const pgembed_t *pg)
{
    pid_t pid = pgembed_pidfile_pid(pg);
    if (pid == 0)
        return;
    if (pgembed_pid_is_ours(pg, pid) && pgembed_ctl_stop(pg, NULL) == 0)
        return;
    if (pgembed_pid_is_ours(pg, pid))
        return; /* still alive: let pg_ctl start report it */
    pgembed_remove_stale(pg);
}

/* ---- 6. Start and stop ------------------------------------------------------------------- */

/*
 * One line for a tool that failed: its last line that reads like an error,
 * and where its whole output went (DATA_DIR/log/TOOL.log). A transcript of
 * initdb on the terminal hides the cause; the file keeps it for whoever asks.
 */
static char *pgembed_tool_error(const pgembed_t *pg, const char *what, const char *output)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.log", pg->logdir, what);
    for (char *p = strrchr(path, '/') + 1; *p; p++)
        if (*p == ' ')
            *p = '-';
    int kept = 0;
    if (output && *output) {
        FILE *f = fopen(path, "w");
        kept = f && fputs(output, f) >= 0;
        if (f)
            fclose(f);
    }
    const char *best = NULL, *last = NULL;
    size_t best_len = 0, last_len = 0;
    for (const char *line = output; line && *line;) {
        size_t len = strcspn(line, "\n");
        char copy[512];
        snprintf(copy, sizeof copy, "%.*s", (int)len, line);
        if (len > 0) {
            last = line, last_len = len;
            if (strstr(copy, "error") || strstr(copy, "FATAL") || strstr(copy, "could not") ||
                strstr(copy, "cannot"))
                best = line, best_len = len;
        }
        line += len + (line[len] == '\n');
    }
    if (best == NULL)
        best = last, best_len = last_len;
    if (best == NULL)
        return xasprintf("%s failed with no output", what);
    return xasprintf("%s failed: %.*s%s%s%s", what, (int)best_len, best, kept ? " (full output in " : "",
                     kept ? path : "", kept ? ")" : "");
}

static int pgembed_initdb(const pgembed_t *pg, char **error)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/PG_VERSION", pg->pgdata);
    if (access(path, F_OK) == 0)
        return 0;
    char initdb[PATH_MAX];
    snprintf(initdb, sizeof initdb, "%s/initdb", pg->bindir);
    /* C.UTF-8 is not everywhere; C with UTF8 encoding is. */
    static const char *const locales[] = {"--locale=C.UTF-8", "--locale=C"};
    pgembed_notice(pg, "first start: creating the PostgreSQL cluster in %s (initdb, a few seconds)",
                   pg->pgdata);
    char *output = NULL;
    for (size_t i = 0; i < 2; i++) {
        free(output);
        output = NULL;
        char *const argv[] = {initdb, "-D",   pg->pgdata,         "-A", "trust", "-U", "postgres",
                              "-E",   "UTF8", (char *)locales[i], NULL};
        if (pgembed_run(pg, argv, &output) == 0) {
            free(output);
            return 0;
        }
    }
    *error = pgembed_tool_error(pg, "initdb", output);
    free(output);
    return -1;
}

static int pgembed_ctl_start(const pgembed_t *pg, char **error)
{
    char ctl[PATH_MAX];
    snprintf(ctl, sizeof ctl, "%s/pg_ctl", pg->bindir);
    char *opts = xasprintf(
        "-k '%s' -p " PGEMBED_PORT " -c listen_addresses='' -c unix_socket_permissions=0700", pg->sockdir);
    char *const argv[] = {ctl,  "-D", pg->pgdata, "-l", pg->logfile, "-w", "-t", PGEMBED_WAIT_SECONDS,
                          "-o", opts, "start",    NULL};
    char *output = NULL;
    int rc = pgembed_run(pg, argv, &output);
    free(opts);
    if (rc != 0) {
        *error = pgembed_tool_error(pg, "pg_ctl start", output);
        free(output);
        pgembed_ctl_stop(pg, NULL); /* in case it came up after the wait gave up */
        return -1;
    }
    free(output);
    return 0;
}

pgembed_t *pgembed_start(const char *data_dir, pgembed_notice_fn notice, char **error)
{
    *error = NULL;
    pgembed_t *pg = xcalloc(1, sizeof *pg);
    if (pg == NULL)
        return NULL;
    pg->lock_fd = -1;
    pg->notice = notice;
    if (pgembed_pick_user(pg, error) != 0 || pgembed_layout(pg, data_dir, error) != 0)
        goto fail;
    pg->bindir = pgembed_bindir_from_pg_config();
    if (pg->bindir == NULL)
        pg->bindir = pgembed_bindir_newest();
    if (pg->bindir == NULL) {
        *error = xasprintf("PostgreSQL server binaries not found (pg_config --bindir, "
                           "/usr/lib/postgresql/*/bin); install postgresql or set database.url");
        goto fail;
    }
    if (pgembed_initdb(pg, error) != 0)
        goto fail;
    pgembed_clear_leftovers(pg);
    if (pgembed_ctl_start(pg, error) != 0)
        goto fail;
    return pg;
fail:
    pgembed_free(pg);
    return NULL;
}

const char *pgembed_conninfo(const pgembed_t *pg)
{
    return pg->conninfo;
}

/* Last resort when pg_ctl cannot stop it: an immediate shutdown, waited for. */
static void pgembed_kill(const pgembed_t *pg)
{
    pid_t pid = pgembed_pidfile_pid(pg);
    if (pid == 0 || !pgembed_pid_is_ours(pg, pid))
        return;
    kill(pid, SIGQUIT);
    for (int i = 0; i < 100 && kill(pid, 0) == 0; i++) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

void pgembed_stop(pgembed_t *pg)
{
    if (pg == NULL)
        return;
    if (pgembed_ctl_stop(pg, NULL) != 0)
        pgembed_kill(pg);
    pgembed_free(pg);
}
