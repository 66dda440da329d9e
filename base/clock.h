/*
 * clock: the monotonic clock in milliseconds, for deadlines, retries and
 * back-off: it never jumps with the wall clock (NTP, an operator's date).
 */
#ifndef BASE_CLOCK_H
#define BASE_CLOCK_H

#include <stdint.h>

/* Milliseconds of CLOCK_MONOTONIC: only differences mean anything. */
uint64_t clock_now_ms(void);

#endif
