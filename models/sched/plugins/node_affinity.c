/* NodeAffinity: kubernetes pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go
 * (PreFilter, Filter, PreScore, Score, NormalizeScore), with the matching of
 * k8s.io/component-helpers/scheduling/corev1/nodeaffinity (RequiredNodeAffinity,
 * LazyErrorNodeSelector, PreferredSchedulingTerms) and k8s.io/apimachinery/pkg/labels
 * (Requirement.Matches, NewRequirement).
 *
 * Filter:
 * - spec.nodeSelector: every key must be a node label with exactly that value;
 * - required terms are ORed, a term's matchExpressions and matchFields are ANDed;
 * - an empty term, or a term with a requirement that does not parse (In/NotIn without values,
 *   Exists/DoesNotExist with values, Gt/Lt without exactly one integer value, matchFields other
 *   than In/NotIn with exactly one value), selects no node;
 * - Gt/Lt parse the node's label value as a base-10 int64 and fail on a parse error;
 * - matchFields only knows metadata.name (the node's name).
 * Failure: "node(s) didn't match Pod's node affinity/selector", UnschedulableAndUnresolvable.
 * PreFilter: Skip when there is neither a nodeSelector nor required node affinity (gpusim has no
 * profile addedAffinity); the required terms' matchFields metadata.name In [...] restrict the
 * nodes (a PreFilterResult), or conflict ("pod affinity terms conflict",
 * UnschedulableAndUnresolvable) when no name is left.
 * Score: the sum of the weights of the preferred terms that match the node (terms with weight 0,
 * empty terms and terms that fail to parse never count); PreScore returns Skip when the pod has
 * no preferred terms; NormalizeScore is DefaultNormalizeScore(100, reverse=false).
 * Filter and Score read only the template and the node's name and labels: static (cache.c).
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

/* The required terms' matchFields metadata.name In [...]: 0 for "all nodes", 1 when the nodes
 * are restricted (then name_allowed decides per node), -1 for "pod affinity terms conflict". */
static int name_prefilter(const struct gs_pod_template *t)
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

static bool name_allowed(const struct gs_pod_template *t, const char *node_name)
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

static void pre_filter(struct gs_sched *s, struct gs_podctx *pc, struct gs_prefilter_status *st)
{
    (void)s;
    if (!pc->affinity_filter) {
        st->code = GS_ST_SKIP;
        return;
    }
    int pre = name_prefilter(pc->t);
    if (pre < 0) {
        st->code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE;
        st->kind = GS_R_AFFINITY;
        st->msg = GS_MSG_AFFINITY_CONFLICT;
    } else if (pre > 0) {
        st->restricts = true;
    }
}

static bool pre_filter_allows(const struct gs_sched *s, const struct gs_podctx *pc, int node)
{
    return name_allowed(pc->t, s->w->nodes[node].name);
}

static void filter(struct gs_sched *s, const struct gs_podctx *pc, int node, const struct gs_adj *adj,
                   struct gs_fstat *st)
{
    (void)adj;
    if (!pc->affinity_filter)
        return; /* PreFilter returned Skip */
    const struct gs_node *n = &s->w->nodes[node];
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

static int pre_score(struct gs_sched *s, struct gs_podctx *pc, const int *nodes, int n)
{
    (void)s;
    (void)nodes;
    (void)n;
    return pc->t->affinity.npreferred == 0 ? 1 : 0;
}

static void score(struct gs_sched *s, const struct gs_podctx *pc, const int *nodes, int n, int64_t *out)
{
    const struct gs_node_affinity *a = &pc->t->affinity;
    for (int k = 0; k < n; k++) {
        const struct gs_node *nd = &s->w->nodes[nodes[k]];
        int64_t sum = 0;
        for (int i = 0; i < a->npreferred; i++)
            if (a->preferred[i].weight != 0 && gs_term_matches(&a->preferred[i].term, nd))
                sum += a->preferred[i].weight;
        out[k] = sum;
    }
}

static void normalize(struct gs_sched *s, int64_t *scores, int n)
{
    (void)s;
    gs_score_normalize(scores, n, false);
}

const struct gs_sched_plugin gs_plugin_node_affinity = {
    .name = "NodeAffinity",
    .id = GS_PL_NODE_AFFINITY,
    .points = GS_EP_BIT(GS_EP_PRE_FILTER) | GS_EP_BIT(GS_EP_FILTER) | GS_EP_BIT(GS_EP_PRE_SCORE) |
              GS_EP_BIT(GS_EP_SCORE),
    .flags = GS_PLF_STATIC_FILTER | GS_PLF_STATIC_SCORE,
    .pre_filter = pre_filter,
    .pre_filter_allows = pre_filter_allows,
    .filter = filter,
    .pre_score = pre_score,
    .score = score,
    .normalize = normalize,
};
