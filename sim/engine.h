/* gpusim: the discrete-event engine. It knows nothing of Kubernetes.
 *
 * Time is int64 microseconds (gs_time). Pending events are ordered by (time, priority,
 * sequence number): lower time first, then lower priority value, then the order in which
 * they were scheduled, so equal-time events run in a fixed, reproducible order.
 *
 * Events are small records {time, prio, seq, kind, a, b} kept in one array heap; scheduling
 * an event allocates nothing of its own (the heap grows by doubling, amortised). Every
 * scheduled event gets a handle that can cancel it in O(log n) while it is pending.
 * Handles are never reused within one engine (64-bit), so a stale handle is harmless.
 */
#ifndef GPUSIM_ENGINE_H
#define GPUSIM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/time.h"


/* Handle of a scheduled event; 0 is never a valid handle. */
typedef uint64_t gs_event_handle;

/* A pending event as handed to its handler. `a` and `b` are the model's subject/object
 * (e.g. a pod index and an attempt number); the engine never interprets them. */
struct gs_event {
    gs_time time;
    int32_t prio;
    uint32_t kind;
    uint64_t seq;
    int64_t a;
    int64_t b;
};

struct gs_engine;

/* Handler for one event kind. `ctx` is the pointer given to gs_engine_on. */
typedef void (*gs_event_fn)(struct gs_engine *eng, const struct gs_event *ev, void *ctx);

#define GS_ENGINE_MAX_KINDS 256

/* Create an engine with room for `capacity_hint` pending events (it grows as needed).
 * Returns NULL when out of memory. Caller owns the engine; free with gs_engine_free. */
struct gs_engine *gs_engine_new(size_t capacity_hint);
/* Free the engine and its pending events (their handlers are not called). NULL is a no-op. */
void gs_engine_free(struct gs_engine *eng);

/* Register the handler of event kind `kind` (< GS_ENGINE_MAX_KINDS, else GS_ASSERT). `ctx` is
 * borrowed. Dispatching an event whose kind has no handler is a programming error (GS_ASSERT). */
void gs_engine_on(struct gs_engine *eng, uint32_t kind, gs_event_fn fn, void *ctx);

/* Schedule an event at absolute time `t` in microseconds (>= gs_engine_now; earlier times and
 * kind >= GS_ENGINE_MAX_KINDS are programming errors: GS_ASSERT). Returns its handle, or 0
 * when out of memory. O(log n); allocates only when the pending set outgrows its capacity. */
gs_event_handle gs_engine_schedule(struct gs_engine *eng, gs_time t, int32_t prio, uint32_t kind,
                                   int64_t a, int64_t b);

/* Cancel a pending event in O(log n). Returns true if it was pending and is now removed,
 * false if it already ran (or is the event being dispatched), was already cancelled, or the
 * handle is unknown (0, stale or made up: all harmless). */
bool gs_engine_cancel(struct gs_engine *eng, gs_event_handle h);

/* True while the event behind `h` is still pending. */
bool gs_engine_pending(const struct gs_engine *eng, gs_event_handle h);

/* Current simulated time: the time of the event being (or last) dispatched; 0 before the run. */
gs_time gs_engine_now(const struct gs_engine *eng);

/* Number of pending events. */
size_t gs_engine_size(const struct gs_engine *eng);

/* Number of events dispatched so far. */
uint64_t gs_engine_dispatched(const struct gs_engine *eng);

/* Why gs_engine_run returned. */
enum gs_run_end { GS_END_EMPTY, GS_END_HORIZON, GS_END_STOPPED };

/* Dispatch events in order until none is left (the clock stays at the last event), the next
 * event is later than `horizon` (the clock is then advanced to the horizon, never backwards),
 * or *stop becomes nonzero (checked before each event, hence after each event: the event that
 * sets it is the last to run, and a set flag returns at once; `stop` may be NULL). Events at
 * exactly `horizon` run. Handlers may schedule and cancel events. Keeps gs_assert_clock_us
 * current. */
enum gs_run_end gs_engine_run(struct gs_engine *eng, gs_time horizon, volatile const int *stop);

/* Pop and dispatch exactly one event if its time is <= horizon. Returns true if one ran.
 * Unlike gs_engine_run it never moves the clock to the horizon. */
bool gs_engine_step(struct gs_engine *eng, gs_time horizon);

/* Time of the next pending event, or GS_TIME_MAX when none. */
gs_time gs_engine_peek_time(const struct gs_engine *eng);

#endif
