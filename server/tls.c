/*
 * tls: TLS contexts and client-certificate principals (tls.h).
 *
 * Contents
 *   1. Contexts: protocols, ciphers, the certificate
 *   2. Client certificates: verification set-up, the principal
 */
#include "server/tls.h"

#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

/*
 * TLS 1.2 suites: forward secrecy (ECDHE) and AEAD only, the order of
 * Mozilla's "intermediate" profile. No CBC, SHA-1 MAC, RSA key exchange,
 * RC4 or 3DES; none is on HTTP/2's blocklist (RFC 7540 appendix A).
 * TLS 1.3 keeps OpenSSL's suites, which are all AEAD.
 */
#define TLS_CIPHERS_12                                                                                       \
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"               \
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
/* Verification gives up on longer chains than this. */
#define TLS_VERIFY_DEPTH    8
#define TLS_SESSION_CONTEXT "schema-registry"

/* ---- 1. Contexts ------------------------------------------------------------ */

static char *tls_error_new(const char *what, const char *path)
{
    char buf[256] = "unknown error";
    unsigned long e = ERR_get_error();
    if (e != 0)
        ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    return xasprintf("TLS: cannot load %s %s: %s", what, path, buf);
}

static int tls_client_setup(SSL_CTX *ctx, const server_config_t *cfg, char **error);

SSL_CTX *tls_ctx_new(const server_config_t *cfg, char **error)
{
    *error = NULL;
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (ctx == NULL) {
        *error = xstrdup("TLS: cannot create a context");
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx,
                        SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    if (SSL_CTX_set_cipher_list(ctx, TLS_CIPHERS_12) != 1)
        *error = tls_error_new("the cipher list", TLS_CIPHERS_12);
    else if (SSL_CTX_use_certificate_chain_file(ctx, cfg->tls_cert) != 1)
        *error = tls_error_new("certificate", cfg->tls_cert);
    else if (SSL_CTX_use_PrivateKey_file(ctx, cfg->tls_key, SSL_FILETYPE_PEM) != 1)
        *error = tls_error_new("private key", cfg->tls_key);
    else if (SSL_CTX_check_private_key(ctx) != 1)
        *error = tls_error_new("private key (it does not match the certificate)", cfg->tls_key);
    else if (cfg->tls_client_auth != CONFIG_CLIENT_AUTH_NONE)
        tls_client_setup(ctx, cfg, error);
    if (*error != NULL) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* ---- 2. Client certificates ----------------------------------------------------- */

/*
 * The CA bundle verifies, and names the acceptable issuers in the
 * CertificateRequest. A CRL file is checked for the client's own certificate
 * (X509_V_FLAG_CRL_CHECK): it must hold the CRL of the CA that issued it,
 * else every handshake with a certificate fails ("unable to get certificate
 * CRL"). A resumed session keeps its verified certificate; the session id
 * context lets OpenSSL resume sessions at all once it verifies peers.
 */
static int tls_client_setup(SSL_CTX *ctx, const server_config_t *cfg, char **error)
{
    if (SSL_CTX_load_verify_locations(ctx, cfg->tls_client_ca, NULL) != 1) {
        *error = tls_error_new("client CA file", cfg->tls_client_ca);
        return -1;
    }
    STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(cfg->tls_client_ca);
    if (names == NULL) {
        *error = tls_error_new("client CA file (no certificate in it)", cfg->tls_client_ca);
        return -1;
    }
    SSL_CTX_set_client_CA_list(ctx, names);
    if (cfg->tls_client_crl != NULL) {
        X509_STORE *store = SSL_CTX_get_cert_store(ctx);
        X509_LOOKUP *lookup = X509_STORE_add_lookup(store, X509_LOOKUP_file());
        if (lookup == NULL || X509_load_crl_file(lookup, cfg->tls_client_crl, X509_FILETYPE_PEM) <= 0) {
            *error = tls_error_new("client CRL file", cfg->tls_client_crl);
            return -1;
        }
        X509_STORE_set_flags(store, X509_V_FLAG_CRL_CHECK);
    }
    int mode = SSL_VERIFY_PEER | SSL_VERIFY_CLIENT_ONCE;
    if (cfg->tls_client_auth == CONFIG_CLIENT_AUTH_REQUIRED)
        mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    SSL_CTX_set_verify(ctx, mode, NULL);
    SSL_CTX_set_verify_depth(ctx, TLS_VERIFY_DEPTH);
    SSL_CTX_set_session_id_context(ctx, (const unsigned char *)TLS_SESSION_CONTEXT,
                                   sizeof TLS_SESSION_CONTEXT - 1);
    return 0;
}

/* Per-connection memo of the principal: "" marks a certificate without a usable name. */
static int tls_principal_index = -1;
static pthread_once_t tls_principal_once = PTHREAD_ONCE_INIT;

static void tls_principal_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
    free(ptr);
}

static void tls_principal_index_new(void)
{
    tls_principal_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, tls_principal_free);
}

/* A malloc'd copy of s when it is a usable principal: non-empty, no control bytes. */
static char *tls_name_copy(const unsigned char *s, int len)
{
    if (s == NULL || len <= 0)
        return NULL;
    for (int i = 0; i < len; i++)
        if (s[i] < 0x20 || s[i] == 0x7f)
            return NULL;
    char *out = xmalloc((size_t)len + 1);
    memcpy(out, s, (size_t)len);
    out[len] = '\0';
    return out;
}

static char *tls_name_of(X509 *cert, config_principal_t which)
{
    if (which == CONFIG_PRINCIPAL_CN) {
        X509_NAME *subject = X509_get_subject_name(cert);
        int at = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
        if (at < 0)
            return NULL;
        unsigned char *utf8 = NULL;
        int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, at)));
        char *out = tls_name_copy(utf8, len);
        OPENSSL_free(utf8);
        return out;
    }
    int type = which == CONFIG_PRINCIPAL_SAN_DNS     ? GEN_DNS
               : which == CONFIG_PRINCIPAL_SAN_EMAIL ? GEN_EMAIL
                                                     : GEN_URI;
    GENERAL_NAMES *names = X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
    char *out = NULL;
    for (int i = 0; out == NULL && i < sk_GENERAL_NAME_num(names); i++) {
        const GENERAL_NAME *name = sk_GENERAL_NAME_value(names, i);
        if (name->type == type)
            out = tls_name_copy(ASN1_STRING_get0_data(name->d.ia5), ASN1_STRING_length(name->d.ia5));
    }
    GENERAL_NAMES_free(names);
    return out;
}

int tls_peer_principal(SSL *ssl, config_principal_t which, const char **name)
{
    *name = NULL;
    pthread_once(&tls_principal_once, tls_principal_index_new);
    if (ssl == NULL || tls_principal_index < 0)
        return 0;
    char *memo = SSL_get_ex_data(ssl, tls_principal_index);
    if (memo == NULL) {
        X509 *cert = SSL_get0_peer_certificate(ssl);
        if (cert == NULL)
            return 0;
        /* A certificate that failed verification ends the handshake; this is a second line. */
        memo = SSL_get_verify_result(ssl) == X509_V_OK ? tls_name_of(cert, which) : NULL;
        if (memo == NULL)
            memo = xstrdup("");
        SSL_set_ex_data(ssl, tls_principal_index, memo);
    }
    if (memo[0] == '\0')
        return -1;
    *name = memo;
    return 1;
}
