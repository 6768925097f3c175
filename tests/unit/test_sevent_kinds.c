/* The scenario event kinds, written once (GS_SEVENT_KINDS in sim/scenario.h): the enum, the
 * action names spec.events accepts (sim/scenario/events.c), gs_sevent_kind_name and the "no
 * action" message all follow the one list. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "sim/scenario.h"

static const struct {
    enum gs_sevent_kind kind;
    const char *action;
} kinds[] = {
    {GS_SEV_CORDON, "cordon"},
    {GS_SEV_UNCORDON, "uncordon"},
    {GS_SEV_DRAIN, "drain"},
    {GS_SEV_DELETE_NODE, "deleteNode"},
    {GS_SEV_ADD_NODES, "addNodes"},
    {GS_SEV_LABEL, "label"},
    {GS_SEV_DELETE_POD, "deletePod"},
    {GS_SEV_KERNEL_PATCH, "kernelPatch"},
    {GS_SEV_XID, "xid"},
    {GS_SEV_DEVICE_PLUGIN_RESTART, "devicePluginRestart"},
    {GS_SEV_PRECOMPILED_IMAGE_PUBLISHED, "precompiledImagePublished"},
    {GS_SEV_DRIVER_UPGRADE, "driverUpgrade"},
    {GS_SEV_SCALE, "scale"},
    {GS_SEV_SCHEDULER_RESTART, "schedulerRestart"},
};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

#define SCENARIO                                                                                     \
    "apiVersion: gpusim/v1alpha1\n"                                                                  \
    "kind: Scenario\n"                                                                               \
    "metadata: {name: t}\n"                                                                          \
    "spec:\n"                                                                                        \
    "  cluster:\n"                                                                                   \
    "    nodePools:\n"                                                                               \
    "    - {name: cpu, count: 1, capacity: {cpu: \"16\", memory: 64Gi}}\n"                          \
    "  events:\n"

static int load_events(const char *events, struct gs_error *err)
{
    char text[1024];
    snprintf(text, sizeof text, "%s%s", SCENARIO, events);
    struct gs_scenario sc;
    memset(err, 0, sizeof *err);
    int rc = gs_scenario_load_string("t.yaml", text, &sc, err);
    gs_scenario_free(&sc);
    return rc;
}

Test(sevent_kinds, enum_and_names_follow_the_list)
{
    cr_assert(eq(int, GS_SEV_NKINDS, NKINDS));
    for (int i = 0; i < NKINDS; i++) {
        cr_expect(eq(int, (int)kinds[i].kind, i));
        cr_expect(eq(str, (char *)gs_sevent_kind_name(kinds[i].kind), (char *)kinds[i].action));
    }
    cr_expect(eq(ptr, (void *)gs_sevent_kind_name((enum gs_sevent_kind)GS_SEV_NKINDS), NULL));
    cr_expect(eq(ptr, (void *)gs_sevent_kind_name((enum gs_sevent_kind)-1), NULL));
}

Test(sevent_kinds, no_action_lists_every_action_in_order)
{
    struct gs_error err;
    cr_assert(eq(int, load_events("  - {at: 1h}\n", &err), GS_EINVAL));
    cr_expect(eq(str, err.msg,
                 "spec.events[0] has no action: give one of cordon, uncordon, drain, deleteNode, addNodes, label, "
                 "deletePod, kernelPatch, xid, devicePluginRestart, precompiledImagePublished, driverUpgrade, "
                 "scale or schedulerRestart"));
    cr_expect(eq(int, err.line, 9));
}

/* Every name is a key spec.events[] accepts: a misspelt one gets it as the suggestion, and the
 * name itself is decoded (its own checks then speak: here every one lacks its fields or is
 * refused for this cluster, so the message names the action's path). */
Test(sevent_kinds, every_action_is_an_accepted_key)
{
    for (int i = 0; i < NKINDS; i++) {
        struct gs_error err;
        char events[256], want[160];
        snprintf(events, sizeof events, "  - {at: 1h, %sx: {}}\n", kinds[i].action);
        cr_assert(eq(int, load_events(events, &err), GS_EINVAL));
        snprintf(want, sizeof want, "(did you mean '%s'?)", kinds[i].action);
        cr_expect(ne(ptr, strstr(err.msg, want), NULL), "%sx: %s", kinds[i].action, err.msg);

        snprintf(events, sizeof events, "  - {at: 1h, %s: []}\n", kinds[i].action);
        int rc = load_events(events, &err);
        cr_expect(ne(int, rc, 0), "%s: []", kinds[i].action);
        snprintf(want, sizeof want, "spec.events[0].%s", kinds[i].action);
        cr_expect(ne(ptr, strstr(err.msg, want), NULL), "%s: %s", kinds[i].action, err.msg);
        cr_expect(eq(ptr, strstr(err.msg, "unknown key"), NULL), "%s: %s", kinds[i].action, err.msg);
    }
}
