/* NodeAffinity filter and PreFilter: kubernetes pkg/scheduler/framework/plugins/nodeaffinity/
 * node_affinity.go, with the matching of k8s.io/component-helpers/scheduling/corev1/
 * nodeaffinity (RequiredNodeAffinity, LazyErrorNodeSelector, PreferredSchedulingTerms) and
 * k8s.io/apimachinery/pkg/labels (Requirement.Matches, NewRequirement).
 *
 * - spec.nodeSelector: every key must be a node label with exactly that value;
 * - required terms are ORed, a term's matchExpressions and matchFields are ANDed;
 * - an empty term, or a term with a requirement that does not parse (In/NotIn without values,
 *   Exists/DoesNotExist with values, Gt/Lt without exactly one integer value, matchFields other
 *   than In/NotIn with exactly one value), selects no node;
 * - Gt/Lt parse the node's label value as a base-10 int64 and fail on a parse error;
 * - matchFields only knows metadata.name (the node's name).
 * Failure: "node(s) didn't match Pod's node affinity/selector", UnschedulableAndUnresolvable.
 */
#include <string.h>

#include "models/sched/sched_internal.h"

/* strconv.ParseInt(s, 10, 64): optional sign, at least one digit, nothing else, in range. */
static bool parse_int64(const char *s, int64_t *out)
{
    if (!s)
        return false;
    const char *p = s;
    bool neg = false;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p++;
    }
    if (!*p)
        return false;
    uint64_t v = 0;
    const uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        uint64_t d = (uint64_t)(*p - '0');
        if (v > (lim - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static bool has_value(const struct gs_requirement *r, const char *v)
{
    for (int i = 0; i < r->nvalues; i++)
        if (strcmp(r->values[i], v) == 0)
            return true;
    return false;
}

/* labels.NewRequirement's validation of the operator/values combination. */
static bool expr_valid(const struct gs_requirement *r)
{
    int64_t dummy;
    switch (r->op) {
    case GS_OP_IN:
    case GS_OP_NOT_IN:
        return r->nvalues >= 1;
    case GS_OP_EXISTS:
    case GS_OP_DOES_NOT_EXIST:
        return r->nvalues == 0;
    case GS_OP_GT:
    case GS_OP_LT:
        return r->nvalues == 1 && parse_int64(r->values[0], &dummy);
    }
    return false;
}

/* Requirement.Matches over the node's labels (the requirement is valid). */
static bool expr_matches(const struct gs_requirement *r, const struct gs_labels *labels)
{
    const char *v = gs_labels_get(labels, r->key);
    switch (r->op) {
    case GS_OP_IN:
        return v && has_value(r, v);
    case GS_OP_NOT_IN:
        return !v || !has_value(r, v);
    case GS_OP_EXISTS:
        return v != NULL;
    case GS_OP_DOES_NOT_EXIST:
        return v == NULL;
    case GS_OP_GT:
    case GS_OP_LT: {
        int64_t lv, rv;
        if (!v || !parse_int64(v, &lv) || !parse_int64(r->values[0], &rv))
            return false;
        return r->op == GS_OP_GT ? lv > rv : lv < rv;
    }
    }
    return false;
}

/* nodeSelectorRequirementsAsFieldSelector: In/NotIn with exactly one value. */
static bool field_valid(const struct gs_requirement *r)
{
    return (r->op == GS_OP_IN || r->op == GS_OP_NOT_IN) && r->nvalues == 1;
}

static bool field_matches(const struct gs_requirement *r, const struct gs_node *n)
{
    /* extractNodeFields: only metadata.name; any other field reads as "". */
    const char *have = strcmp(r->key, "metadata.name") == 0 ? n->name : "";
    bool eq = strcmp(have, r->values[0]) == 0;
    return r->op == GS_OP_IN ? eq : !eq;
}

bool gs_term_matches(const struct gs_term *term, const struct gs_node *n)
{
    if (term->nexprs == 0 && term->nfields == 0)
        return false; /* nil or empty term selects no objects */
    for (int i = 0; i < term->nexprs; i++)
        if (!expr_valid(&term->exprs[i]))
            return false;
    for (int i = 0; i < term->nfields; i++)
        if (!field_valid(&term->fields[i]))
            return false;
    for (int i = 0; i < term->nexprs; i++)
        if (!expr_matches(&term->exprs[i], &n->labels))
            return false;
    for (int i = 0; i < term->nfields; i++)
        if (!field_matches(&term->fields[i], n))
            return false;
    return true;
}

static bool is_name_in(const struct gs_requirement *r)
{
    return r->op == GS_OP_IN && strcmp(r->key, "metadata.name") == 0;
}

/* Does the intersection of the value sets of the term's metadata.name In fields have a member?
 * *has_fields is set when the term has at least one such field. */
static bool term_names_nonempty(const struct gs_term *term, bool *has_fields)
{
    const struct gs_requirement *first = NULL;
    *has_fields = false;
    for (int i = 0; i < term->nfields; i++)
        if (is_name_in(&term->fields[i])) {
            first = &term->fields[i];
            break;
        }
    if (!first)
        return false;
    *has_fields = true;
    for (int v = 0; v < first->nvalues; v++) {
        bool in_all = true;
        for (int i = 0; i < term->nfields && in_all; i++)
            if (is_name_in(&term->fields[i]))
                in_all = has_value(&term->fields[i], first->values[v]);
        if (in_all)
            return true;
    }
    return false;
}

int gs_affinity_prefilter(const struct gs_pod_template *t)
{
    const struct gs_node_affinity *a = &t->affinity;
    if (!a->has_required || a->nrequired == 0)
        return 0;
    bool any = false;
    for (int i = 0; i < a->nrequired; i++) {
        bool has_fields;
        if (term_names_nonempty(&a->required[i], &has_fields))
            any = true;
        if (!has_fields)
            return 0; /* a term without node-name affinity: every node is eligible */
    }
    return any ? 1 : -1;
}

bool gs_affinity_name_allowed(const struct gs_pod_template *t, const char *node_name)
{
    const struct gs_node_affinity *a = &t->affinity;
    for (int i = 0; i < a->nrequired; i++) {
        const struct gs_term *term = &a->required[i];
        bool all = true;
        for (int f = 0; f < term->nfields && all; f++)
            if (is_name_in(&term->fields[f]))
                all = has_value(&term->fields[f], node_name);
        if (all)
            return true;
    }
    return false;
}

void gs_filter_node_affinity(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                             const struct gs_adj *adj, struct gs_fstat *st)
{
    (void)s;
    (void)adj;
    if (!pc->affinity_filter)
        return; /* PreFilter returned Skip */
    const struct gs_pod_template *t = pc->t;
    bool match = true;
    for (int i = 0; i < t->node_selector.n && match; i++) {
        const char *v = gs_labels_get(&n->labels, t->node_selector.kv[i].key);
        match = v && strcmp(v, t->node_selector.kv[i].value) == 0;
    }
    if (match && t->affinity.has_required) {
        match = false;
        for (int i = 0; i < t->affinity.nrequired && !match; i++)
            match = gs_term_matches(&t->affinity.required[i], n);
    }
    if (match)
        return;
    st->code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE;
    st->plugin = GS_PL_NODE_AFFINITY;
    st->kind = GS_R_AFFINITY;
}
