/*
 * Unit tests of base/: the keyed hash (siphash) and the one hash map (hmap)
 * with its three kinds of key (byte strings, NUL-terminated strings, pointer
 * pairs), growth, tombstones, arena maps and the out-of-memory path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/arena.h"
#include "base/hmap.h"
#include "base/siphash.h"
#include "base/utf8.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* ---- siphash ----------------------------------------------------------------- */

/* The paper's key 00 01 .. 0f and messages 00 01 .. (len - 1); expected
 * values from the reference implementation's vectors.h. */
static void test_siphash24_reference_vectors(void **state)
{
    uint64_t key[2] = {0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
    unsigned char msg[64];
    for (int i = 0; i < 64; i++)
        msg[i] = (unsigned char)i;
    assert_true(siphash24(key, msg, 0) == 0x726fdb47dd0e0e31ull);
    assert_true(siphash24(key, msg, 15) == 0xa129ca6149be45e5ull);
}

static void test_siphash_depends_on_key_and_every_byte(void **state)
{
    uint64_t k1[2] = {1, 2}, k2[2] = {1, 3};
    const char *s = "com.example.Field";
    assert_true(siphash13(k1, s, strlen(s)) != siphash13(k2, s, strlen(s)));
    assert_true(siphash13(k1, s, strlen(s)) == siphash13(k1, s, strlen(s)));
    /* Length is part of the hash: a trailing NUL is not the same key. */
    assert_true(siphash13(k1, s, strlen(s)) != siphash13(k1, s, strlen(s) + 1));
    char t[32];
    strcpy(t, s);
    t[9] ^= 1;
    assert_true(siphash13(k1, s, strlen(s)) != siphash13(k1, t, strlen(t)));
    /* The process key is one key: stable within the process. */
    assert_true(siphash_process(s, strlen(s)) == siphash_process(s, strlen(s)));
    assert_true(hmap_hash(s, strlen(s)) == siphash_process(s, strlen(s)));
}

/* ---- hmap: byte and string keys ------------------------------------------------- */

static void test_hmap_byte_keys(void **state)
{
    hmap_t m = {0};
    assert_null(hmap_get(&m, "x", 1));
    assert_false(hmap_contains(&m, "x", 1));
    assert_null(hmap_del(&m, "x", 1));
    /* Keys may hold NUL bytes; the empty key is a key. */
    assert_int_equal(hmap_put_try(&m, "a\0b", 3, "one", NULL), 0);
    assert_int_equal(hmap_put_try(&m, "a\0c", 3, "two", NULL), 0);
    assert_int_equal(hmap_put_try(&m, "a", 1, "three", NULL), 0);
    assert_int_equal(hmap_put_try(&m, "", 0, "empty", NULL), 0);
    assert_string_equal(hmap_get(&m, "a\0b", 3), "one");
    assert_string_equal(hmap_get(&m, "a\0c", 3), "two");
    assert_string_equal(hmap_get(&m, "a", 1), "three");
    assert_string_equal(hmap_get(&m, "", 0), "empty");
    assert_null(hmap_get(&m, "a\0", 2));
    /* A NULL value is present all the same. */
    void *old = (void *)1;
    assert_int_equal(hmap_put_try(&m, "n", 1, NULL, &old), 0);
    assert_null(old);
    assert_true(hmap_contains(&m, "n", 1));
    assert_null(hmap_get(&m, "n", 1));
    assert_int_equal(hmap_put_try(&m, "a", 1, "four", &old), 0);
    assert_string_equal(old, "three");
    assert_int_equal(m.used, 5);
    /* Integer keys as their bytes. */
    int id = 42;
    assert_null(hmap_put(&m, &id, sizeof id, "a"));
    assert_string_equal(hmap_put(&m, &id, sizeof id, "b"), "a");
    assert_string_equal(hmap_get(&m, &id, sizeof id), "b");
    assert_string_equal(hmap_del(&m, &id, sizeof id), "b");
    assert_false(hmap_contains(&m, &id, sizeof id));
    hmap_clear(&m);
    assert_int_equal(m.used, 0);
    assert_null(hmap_get(&m, "a", 1));
}

static void test_hmap_string_keys_grow_and_delete(void **state)
{
    enum { N = 100000 };
    hmap_t m = {0};
    char key[32];
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "subject-%d", i);
        assert_null(hmap_puts(&m, key, (void *)(intptr_t)(i + 1)));
    }
    assert_int_equal(m.used, N);
    for (int i = 0; i < N; i += 2) {
        snprintf(key, sizeof key, "subject-%d", i);
        assert_int_equal((intptr_t)hmap_dels(&m, key), i + 1);
    }
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "subject-%d", i);
        void *v = hmap_gets(&m, key);
        if (i % 2)
            assert_int_equal((intptr_t)v, i + 1);
        else
            assert_null(v);
        assert_int_equal(hmap_contains(&m, key, strlen(key)), i % 2);
    }
    assert_int_equal(m.used, N / 2);
    /* Deleted keys come back. */
    assert_int_equal(hmap_puts_try(&m, "subject-0", "again", NULL), 0);
    assert_string_equal(hmap_gets(&m, "subject-0"), "again");
    hmap_clear(&m);
    assert_null(hmap_gets(&m, "subject-1"));
}

/* hmap_bytes: the slots and the live keys' copies (klen + 1 each), counted
 * as keys come and go, so the index's memory gauge needs no walk. */
static size_t hmap_bytes_by_walk(const hmap_t *m)
{
    size_t bytes = m->cap * sizeof(hmap_entry_t);
    for (size_t i = 0; i < m->cap; i++)
        if (hmap_live(m, i))
            bytes += m->slots[i].klen + 1;
    return bytes;
}

static void test_hmap_bytes(void **state)
{
    hmap_t m = {0};
    assert_int_equal(hmap_bytes(&m), 0);
    char key[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(key, sizeof key, "k%d", i);
        hmap_puts(&m, key, "v");
        hmap_puts(&m, key, "replaced"); /* a replaced value keeps its one key */
    }
    assert_int_equal(hmap_bytes(&m), hmap_bytes_by_walk(&m));
    assert_int_equal(m.key_bytes, 10 * 3 + 90 * 4 + 900 * 5);
    for (int i = 0; i < 1000; i += 3) {
        snprintf(key, sizeof key, "k%d", i);
        hmap_dels(&m, key);
        hmap_dels(&m, key); /* gone already: nothing more to take off */
    }
    assert_int_equal(hmap_bytes(&m), hmap_bytes_by_walk(&m));
    for (int i = 0; i < 5000; i++) { /* churn: rehashes that drop the tombstones */
        snprintf(key, sizeof key, "t%d", i);
        hmap_puts(&m, key, "t");
        hmap_dels(&m, key);
    }
    assert_int_equal(hmap_bytes(&m), hmap_bytes_by_walk(&m));
    hmap_clear(&m);
    assert_int_equal(hmap_bytes(&m), 0);
}

/* Put-then-delete churn leaves tombstones; rehashing drops them, so the
 * table stays small and probes end. */
static void test_hmap_tombstones_are_reclaimed(void **state)
{
    hmap_t m = {0};
    char key[32];
    assert_null(hmap_puts(&m, "resident", "r"));
    for (int i = 0; i < 200000; i++) {
        snprintf(key, sizeof key, "k%d", i);
        assert_null(hmap_puts(&m, key, "v"));
        assert_string_equal(hmap_dels(&m, key), "v");
    }
    assert_int_equal(m.used, 1);
    assert_true(m.cap <= 64);
    assert_true(m.filled < m.cap);
    assert_string_equal(hmap_gets(&m, "resident"), "r");
    assert_null(hmap_gets(&m, "k5"));
    hmap_clear(&m);
}

/* hmap_grown_copy and hmap_adopt (registry/index.c grows its maps so): the
 * copy leaves the map as it was, readable, until the swap; the swap keeps
 * every live entry, drops the tombstones (their key copies freed: ASan) and
 * leaves room for what was asked; a map with room gets no copy. */
static void test_hmap_grown_copy_then_adopt(void **state)
{
    enum { N = 3000, ROOM = 64 };
    hmap_t m = {0}, grown;
    char key[32];
    int copies = 0;
    /* No room asked of an empty map: a first table all the same (it has no slot). */
    assert_int_equal(hmap_grown_copy(&m, 0, &grown), 0);
    assert_int_equal(grown.cap, 16);
    hmap_adopt(&m, &grown);
    assert_int_equal(hmap_grown_copy(&m, 0, &grown), 0);
    assert_null(grown.slots); /* it has room for none more */
    for (int i = 0; i < N; i++) {
        size_t cap = m.cap, filled = m.filled;
        assert_int_equal(hmap_grown_copy(&m, ROOM, &grown), 0);
        assert_int_equal(m.cap, cap); /* untouched by the copy */
        assert_int_equal(m.filled, filled);
        if (grown.slots) {
            copies++;
            assert_true(grown.cap >= cap);
            assert_true(grown.used + ROOM <= grown.cap / 4 * 3);
            if (i > 0) { /* what readers look up still answers, in the old table */
                snprintf(key, sizeof key, "k%d", i - 1);
                assert_non_null(hmap_gets(&m, key));
            }
        }
        hmap_adopt(&m, &grown);
        assert_null(grown.slots);
        assert_true(m.filled + ROOM <= m.cap / 4 * 3); /* room: the next puts do not rehash */
        snprintf(key, sizeof key, "k%d", i);
        assert_null(hmap_puts(&m, key, (void *)(intptr_t)(i + 1)));
        if (i % 3 == 0) /* tombstones, which a copy leaves behind */
            assert_int_equal((intptr_t)hmap_dels(&m, key), i + 1);
    }
    assert_true(copies >= 6 && copies < N / ROOM); /* grown now and then, not each time */
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "k%d", i);
        if (i % 3 == 0)
            assert_null(hmap_gets(&m, key));
        else
            assert_int_equal((intptr_t)hmap_gets(&m, key), i + 1);
    }
    hmap_clear(&m);
}

/* ---- hmap: pointer-pair keys ------------------------------------------------------- */

static void test_hmap_pair_keys(void **state)
{
    static int nodes[1000];
    hmap_t m = {0};
    for (int i = 0; i < 1000; i++)
        for (int j = 0; j < 20; j++)
            assert_int_equal(hmap_put_pair_try(&m, &nodes[i], &nodes[(i + j) % 1000], &nodes[j]), 0);
    assert_int_equal(m.used, 20000);
    assert_ptr_equal(hmap_get_pair(&m, &nodes[5], &nodes[7]), &nodes[2]);
    /* Order matters: (a, b) is not (b, a). */
    assert_null(hmap_get_pair(&m, &nodes[7], &nodes[5]));
    /* Either pointer may be NULL. */
    assert_null(hmap_get_pair(&m, &nodes[5], NULL));
    assert_int_equal(hmap_put_pair_try(&m, &nodes[5], NULL, &nodes[9]), 0);
    assert_int_equal(hmap_put_pair_try(&m, NULL, &nodes[5], &nodes[8]), 0);
    assert_int_equal(hmap_put_pair_try(&m, NULL, NULL, &nodes[7]), 0);
    assert_ptr_equal(hmap_get_pair(&m, &nodes[5], NULL), &nodes[9]);
    assert_ptr_equal(hmap_get_pair(&m, NULL, &nodes[5]), &nodes[8]);
    assert_ptr_equal(hmap_get_pair(&m, NULL, NULL), &nodes[7]);
    assert_ptr_equal(hmap_del_pair(&m, &nodes[5], &nodes[7]), &nodes[2]);
    assert_null(hmap_get_pair(&m, &nodes[5], &nodes[7]));
    assert_int_equal(m.used, 20002);
    hmap_clear(&m);
}

/* ---- hmap: answers do not depend on history ----------------------------------------- */

/* Two maps holding the same keys, built in different orders (one with
 * deletions and re-insertions on the way), answer every question alike. */
static void test_hmap_insertion_order_does_not_matter(void **state)
{
    enum { N = 20000 };
    hmap_t a = {0}, b = {0};
    char key[32];
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "name.%d", i);
        hmap_puts(&a, key, (void *)(intptr_t)(i + 1));
    }
    for (int i = N - 1; i >= 0; i--) {
        snprintf(key, sizeof key, "name.%d", (i * 7919) % N); /* a permutation: 7919 is prime */
        hmap_puts(&b, key, (void *)(intptr_t)(-1));
        if (i % 3 == 0)
            hmap_dels(&b, key);
    }
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "name.%d", i);
        hmap_puts(&b, key, (void *)(intptr_t)(i + 1));
    }
    assert_int_equal(a.used, b.used);
    for (int i = 0; i < 2 * N; i++) {
        snprintf(key, sizeof key, "name.%d", i);
        assert_ptr_equal(hmap_gets(&a, key), hmap_gets(&b, key));
        assert_int_equal(hmap_contains(&a, key, strlen(key)), hmap_contains(&b, key, strlen(key)));
    }
    /* The same set of live values by walking, whatever the slot order. */
    long sum_a = 0, sum_b = 0;
    for (size_t i = 0; i < a.cap; i++)
        if (hmap_live(&a, i))
            sum_a += (intptr_t)a.slots[i].value;
    for (size_t i = 0; i < b.cap; i++)
        if (hmap_live(&b, i))
            sum_b += (intptr_t)b.slots[i].value;
    assert_int_equal(sum_a, (long)N * (N + 1) / 2);
    assert_int_equal(sum_a, sum_b);
    hmap_clear(&a);
    hmap_clear(&b);
}

/* ---- hmap: memory ---------------------------------------------------------------------- */

static void test_hmap_in_an_arena(void **state)
{
    arena_t *arena = arena_new();
    assert_non_null(arena);
    hmap_t m;
    hmap_init_arena(&m, arena);
    assert_int_equal(hmap_reserve_try(&m, 5000), 0);
    size_t cap = m.cap;
    char key[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "field%d", i);
        assert_int_equal(hmap_puts_try(&m, key, (void *)(intptr_t)(i + 1), NULL), 0);
    }
    assert_int_equal(m.cap, cap); /* reserved: no growth */
    for (int i = 0; i < 50000; i++) {
        snprintf(key, sizeof key, "more%d", i);
        assert_int_equal(hmap_puts_try(&m, key, (void *)(intptr_t)i, NULL), 0);
    }
    assert_int_equal((intptr_t)hmap_gets(&m, "field4999"), 5000);
    assert_int_equal((intptr_t)hmap_gets(&m, "more49999"), 49999);
    hmap_clear(&m); /* forgets; the arena keeps the memory */
    assert_ptr_equal(m.arena, arena);
    assert_null(hmap_gets(&m, "field1"));
    arena_free(arena); /* everything goes with the arena (ASan checks for leaks) */
}

static void test_hmap_reserve_refuses_impossible_sizes(void **state)
{
    hmap_t m = {0};
    hmap_puts(&m, "kept", "k");
    size_t cap = m.cap;
    assert_int_equal(hmap_reserve_try(&m, SIZE_MAX / 2), -1);
    assert_int_equal(m.cap, cap);
    assert_string_equal(hmap_gets(&m, "kept"), "k");
    hmap_clear(&m);
}

/* hmap_put_try when malloc fails: -1, and the map holds what it held. The
 * failure is real: a child process caps its address space just above what
 * it uses and fills a map until an allocation is refused. (AddressSanitizer
 * reserves terabytes of shadow memory, so there the test does nothing.) */
static void test_hmap_put_try_out_of_memory(void **state)
{
#ifdef UNDER_ASAN
    skip();
#else
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        hmap_t m = {0};
        char key[32];
        int i;
        for (i = 0; i < 1000; i++) {
            snprintf(key, sizeof key, "before-%d", i);
            if (hmap_puts_try(&m, key, (void *)(intptr_t)(i + 1), NULL) != 0)
                _exit(3);
        }
        FILE *f = fopen("/proc/self/statm", "r");
        unsigned long pages = 0;
        if (!f || fscanf(f, "%lu", &pages) != 1)
            _exit(4);
        fclose(f);
        rlim_t limit = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (1u << 20);
        struct rlimit rl = {limit, limit};
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(5);
        for (;; i++) {
            if (i > 50 * 1000 * 1000)
                _exit(6); /* never refused */
            snprintf(key, sizeof key, "before-%d", i);
            size_t used = m.used;
            if (hmap_puts_try(&m, key, (void *)(intptr_t)(i + 1), NULL) == 0)
                continue;
            if (m.used != used || hmap_gets(&m, key) || hmap_contains(&m, key, strlen(key)))
                _exit(7);
            for (int j = 0; j < i; j++) {
                snprintf(key, sizeof key, "before-%d", j);
                if ((intptr_t)hmap_gets(&m, key) != j + 1)
                    _exit(8);
            }
            _exit(0);
        }
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
#endif
}

/* ---- utf8 ----------------------------------------------------------------- */

static void test_utf8_java_order(void **state)
{
    (void)state;
    assert_true(utf8_java_cmp("a", "b") < 0);
    assert_true(utf8_java_cmp("ab", "a") > 0);
    assert_int_equal(utf8_java_cmp("same", "same"), 0);
    /* U+1F600 is D83D DE00 in UTF-16: before U+E000 for Java, after it for strcmp. */
    assert_true(utf8_java_cmp("\xF0\x9F\x98\x80", "\xEE\x80\x80") < 0);
    assert_true(strcmp("\xF0\x9F\x98\x80", "\xEE\x80\x80") > 0);
    /* Two supplementary characters with one high surrogate: the low ones decide. */
    assert_true(utf8_java_cmp("\xF0\x9F\x98\x80", "\xF0\x9F\x98\x81") < 0);
    /* Lengths, not NUL bytes, end the text. */
    assert_true(utf8_java_cmpn("a\0b", 3, "a\0c", 3) < 0);
    assert_true(utf8_java_cmpn("a\0", 2, "a", 1) > 0);
}

/* Known answers from jshell: Integer.toUnsignedString("...".hashCode()). */
static void test_utf8_java_hash(void **state)
{
    (void)state;
    assert_int_equal(utf8_java_hashn("", 0), 0);
    assert_int_equal(utf8_java_hashn("hello", 5), 99162322u);
    assert_int_equal(utf8_java_hashn("Order.name", 10), 2704435531u);
    assert_int_equal(utf8_java_hashn("\xC3\xA9", 2), 233u);             /* U+00E9: one unit */
    assert_int_equal(utf8_java_hashn("\xF0\x9F\x98\x80", 4), 1772899u); /* U+1F600: D83D DE00 */
}

static void test_utf8_decode_stays_in_bounds(void **state)
{
    (void)state;
    const char text[] = "\xC3\xA9\xE2\x82"; /* e-acute, then a truncated euro sign */
    const char *p = text, *end = text + sizeof text - 1;
    assert_int_equal(utf8_decode(&p, end), 0xE9);
    utf8_decode(&p, end);
    assert_ptr_equal(p, end);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_siphash24_reference_vectors),
        cmocka_unit_test(test_siphash_depends_on_key_and_every_byte),
        cmocka_unit_test(test_hmap_byte_keys),
        cmocka_unit_test(test_hmap_string_keys_grow_and_delete),
        cmocka_unit_test(test_hmap_tombstones_are_reclaimed),
        cmocka_unit_test(test_hmap_grown_copy_then_adopt),
        cmocka_unit_test(test_hmap_bytes),
        cmocka_unit_test(test_hmap_pair_keys),
        cmocka_unit_test(test_hmap_insertion_order_does_not_matter),
        cmocka_unit_test(test_hmap_in_an_arena),
        cmocka_unit_test(test_hmap_reserve_refuses_impossible_sizes),
        cmocka_unit_test(test_hmap_put_try_out_of_memory),
        cmocka_unit_test(test_utf8_java_order),
        cmocka_unit_test(test_utf8_java_hash),
        cmocka_unit_test(test_utf8_decode_stays_in_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
