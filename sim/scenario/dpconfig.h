/* gpusim internal: decoding the NVIDIA device plugin's config file (version v1) from the
 * scenario's YAML tree into struct gs_dp_config (gpusim/dpconfig.h). Not a public header.
 *
 * Parsed as the plugin parses it (sigs.k8s.io/yaml into encoding/json, api/config/v1): an
 * unknown key is not an error but a warning naming file:line:column ("ignored by the device
 * plugin"); keys of the levels encoding/json decodes into structs (top level, flags,
 * flags.plugin, flags.gfd, sharing, imex) match case-insensitively as in Go (a warning says
 * which key was read), those decoded by the plugin's own UnmarshalJSON (timeSlicing, mps and
 * their resources) exactly. Booleans take YAML 1.1 spellings (yes/no/on/off) as go-yaml v2 does.
 * Values the plugin refuses are errors with the plugin's message, e.g.
 *   invalid device-plugin config at <path>.replicas: number of replicas must be >= 2
 * (api/config/v1/replicas.go; also "no resources specified", "no resource name specified",
 * "no replicas specified", "devices set as 'x' but the only valid string input is 'all'",
 * "devices set as '0' but a count of devices must be > 0", "unknown version: v2",
 * "unknown MIG strategy: x" (cmd/nvidia-device-plugin validateFlags), "invalid --device-id-strategy
 * option: x", "fully-qualified resource name must be 63 characters or less: ...", "incorrect
 * format for resource name '...': [...]", and Go's "json: cannot unmarshal string into Go value of
 * type int" for a quoted number).
 */
#ifndef GPUSIM_SCENARIO_DPCONFIG_H
#define GPUSIM_SCENARIO_DPCONFIG_H

#include "models/dpconfig.h"
#include "sim/scenario/yaml.h"

/* One config document at `path` named `name` ("" for a single config) into *out. `mig_override`
 * is the MIG strategy the deployment passes in the environment (the operator's mig.strategy as
 * MIG_STRATEGY), which wins over flags.migStrategy in the file (api/config/v1 NewConfig: command
 * line, then environment, then file; a warning says so when they differ), or -1 for none (then
 * the file's value, default none). Warnings are appended to `warn` (its warnings/nwarnings grow
 * in d->arena). Returns 0, GS_EINVAL or GS_ENOMEM. */
int gs_scn_dpconfig(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *name, int mig_override,
                    struct gs_dp_config *out, struct gs_dp_configs *warn);

/* operator.devicePlugin.config at `path`: either one config document (a mapping with version,
 * flags or sharing), or the chart's named form {name?, create?, default?, data: {<name>: doc}}
 * where each doc is a mapping or a string holding YAML (as in the ConfigMap; positions in a string
 * are reported from the string's first line). A `default` that is not in data is an error.
 * Fills *out (arena). */
int gs_scn_dpconfigs(struct gs_ydec *d, const struct gs_ynode *n, const char *path, int mig_override,
                     struct gs_dp_configs *out);

#endif
