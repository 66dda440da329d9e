/*
 * http_abuse: per-connection budgets (http_abuse.h).
 *
 * Contents
 *   1. The ledger
 *   2. Verdicts
 */
#include "server/http_abuse.h"

#include <string.h>

/* ---- 1. The ledger ------------------------------------------------------------ */

void http_abuse_conn_init(http_abuse_conn_t *c, const http_abuse_limits_t *lim)
{
    memset(c, 0, sizeof *c);
    c->reset_budget = lim->max_resets;
}

/* ---- 2. Verdicts ----------------------------------------------------------------- */

http_abuse_verdict_t http_abuse_on_request(http_abuse_conn_t *c, const http_abuse_limits_t *lim,
                                           size_t nheaders, size_t header_bytes)
{
    c->requests++;
    /* Once sent away for abuse, whatever h2o still hands over is refused the same way:
     * streams the client opened before the GOAWAY reached it. */
    if (c->sent_away != 0)
        return (http_abuse_verdict_t)c->sent_away;
    if ((lim->max_headers > 0 && nheaders > lim->max_headers) ||
        (lim->max_header_bytes > 0 && header_bytes > lim->max_header_bytes))
        return (http_abuse_verdict_t)(c->sent_away = HTTP_ABUSE_HEADERS);
    if (lim->max_resets > 0 && c->reset_budget <= 0)
        return (http_abuse_verdict_t)(c->sent_away = HTTP_ABUSE_RESETS);
    return HTTP_ABUSE_SERVE;
}

/*
 * A delivered reply refills the budget up to its size, as newer h2o does
 * (lib/http2/connection.c, dos_mitigation.reset_budget): a client that
 * cancels now and then never runs out, one that cancels more than it reads
 * runs out after max_resets.
 */
void http_abuse_on_end(http_abuse_conn_t *c, const http_abuse_limits_t *lim, int delivered)
{
    if (lim->max_resets <= 0)
        return;
    if (!delivered) {
        c->resets++;
        if (c->reset_budget > 0)
            c->reset_budget--;
    } else if (c->reset_budget < lim->max_resets) {
        c->reset_budget++;
    }
}
