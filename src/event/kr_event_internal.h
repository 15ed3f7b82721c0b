/* kr_event_internal.h - event-module internals shared with its tests (not public API).
 * SPDX-License-Identifier: MIT                                                       */
#ifndef KR_EVENT_INTERNAL_H
#define KR_EVENT_INTERNAL_H
#include "kr_event.h"

/* Observations so far that came out with t_us before the horizon reported before them
 * (then moved up to it). Always 0 unless a bound of kr_event_horizon() is wrong. */
unsigned kr_event_late_count(const kr_event_t *ev);

#endif /* KR_EVENT_INTERNAL_H */
