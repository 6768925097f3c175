/* gpusim: the scenario's expect: checks, evaluated during a run (sim/check.c). */
#ifndef GPUSIM_SIM_CHECK_H
#define GPUSIM_SIM_CHECK_H

#include "sim/cluster.h"

/* Evaluate c->sc->expects[i] against the cluster now: sets its pass, detail (what was seen) and
 * checked fields (strings in the world's arena). */
void gs_check_eval(struct gs_cluster *c, int i);

/* Judge one whole-cluster sample (time s->t) against every metric check with a window that
 * holds it, remembering in the check the first sample that broke its bounds. Called once per
 * sample time, in time order (sim/metrics.c), so windows need no stored samples. */
void gs_check_sample(struct gs_cluster *c, const struct gs_metrics *s);

#endif
