/* gpusim internal: helpers shared by models/bringup*.c. Not a public header. */
#ifndef GPUSIM_BRINGUP_INTERNAL_H
#define GPUSIM_BRINGUP_INTERNAL_H

#include "models/bringup.h"

/* Append an action of `kind` (zeroed otherwise); NULL and out->overflow set when full. */
struct gs_bringup_action *gs_bu_push(struct gs_bringup_actions *out, enum gs_bringup_action_kind kind);
void gs_bu_label_set(struct gs_bringup_actions *out, const char *key, const char *value);
void gs_bu_label_del(struct gs_bringup_actions *out, const char *key);
/* Set the advertised nvidia.com/gpu allocatable / capacity; an action only when it changes. */
void gs_bu_set_allocatable(struct gs_node_bringup *b, struct gs_bringup_actions *out, int64_t v);
void gs_bu_set_capacity(struct gs_node_bringup *b, struct gs_bringup_actions *out, int64_t v);
/* Start timer `t` after `delay` µs: bumps its token (an older one becomes stale) and marks it
 * pending. `ctx` may be NULL. */
void gs_bu_start_timer(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b, struct gs_bringup_actions *out,
                       enum gs_bringup_timer t, gs_time delay, bool background);
/* True while timer `t` is in flight. */
bool gs_bu_pending(const struct gs_node_bringup *b, enum gs_bringup_timer t);
/* A draw of step `s` from the configured timing profile (0 without one). */
gs_time gs_bu_step(const struct gs_bringup_ctx *ctx, enum gs_step s);
/* Set operand o's status and readiness; an OPERAND action when what kubectl shows changed. */
void gs_bu_set_status(struct gs_node_bringup *b, struct gs_bringup_actions *out, enum gs_operand o,
                      enum gs_opd_status st, bool ready);
/* The level-triggered pass of the chain (bringup_chain.c). */
void gs_bu_advance(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b, struct gs_bringup_actions *out);
/* A precompiled image exists for `kernel` (at t=0 or published since). */
bool gs_bu_has_image(const struct gs_bringup_ctx *ctx, const char *kernel);

#endif
