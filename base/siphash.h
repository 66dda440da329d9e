/*
 * siphash: SipHash (Aumasson and Bernstein), the keyed hash behind base/hmap.
 *
 * Contents
 *   1. SipHash-c-d under a given key (SipHash-1-3 and the reference 2-4)
 *   2. The process key: one random key per process, for hash tables
 *
 * Keys an attacker chooses in bulk (field names of an untrusted schema)
 * cannot be made to collide without the key, so a table of 100,000 of them
 * costs 100,000 probes, not 10^10. Input is read as little-endian words on
 * every host, so a key gives the same hashes everywhere.
 */
#ifndef BASE_SIPHASH_H
#define BASE_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

/* ---- 1. SipHash-c-d ------------------------------------------------------ */

/* SipHash-1-3: one compression and three finalization rounds (what hash
 * tables use: Rust's HashMap, CPython's str hash). */
uint64_t siphash13(const uint64_t key[2], const void *data, size_t len);
/* SipHash-2-4: the paper's default, with published test vectors. */
uint64_t siphash24(const uint64_t key[2], const void *data, size_t len);

/* ---- 2. The process key -------------------------------------------------- */

/* SipHash-1-3 of data under the process key. The key is drawn once, on first
 * use (pthread_once, so any thread may call this), from getrandom(2); when no
 * entropy is available yet (early boot) it falls back to time and addresses,
 * still different per process. Hashes therefore differ between processes:
 * nothing may depend on them beyond one process's tables. */
uint64_t siphash_process(const void *data, size_t len);

#endif
