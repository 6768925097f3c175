/* gpusim internal: decoding MIG data from a YAML tree, shared by the MIG catalog file
 * (sim/mig_catalog.c) and a scenario's operator.migManager.configFile. Not a public header.
 * Errors go to d->err with file:line:column; everything lives in d->arena. */
#ifndef GPUSIM_SIM_MIG_YAML_H
#define GPUSIM_SIM_MIG_YAML_H

#include "models/mig.h"
#include "sim/scenario/yaml.h"

/* A mig-parted config file (NVIDIA/mig-parted api/spec/v1/spec.go) at `path` into *out:
 * `version: v1` and `mig-configs: {name: [entry, ...]}`, each entry {device-filter?, devices,
 * mig-enabled, mig-devices?}. Parsed as mig-parted parses it: an unknown key is an error
 * ("unexpected field: x"), as are a missing version ("unable to parse with missing 'version'
 * field"), another version ("unknown version: v2"), an empty mig-configs or config ("at least one
 * entry in 'x' is required"), a missing devices or mig-enabled ("missing required field: devices"),
 * devices other than all or a list of integers ("invalid string input for 'devices': some"),
 * mig-enabled true without mig-devices ("missing required field 'mig-devices' when 'mig-enabled' is
 * true") and mig-devices with mig-enabled false ("MIG devices included when 'mig-enabled' is
 * false"). Every message is prefixed with the path of the offending node. gpusim also refuses a
 * device-filter that is not a PCI device ID ("0x20B010DE"; mig-parted would silently match no
 * GPU), a negative count and a profile name that is not of the form [Nc.]Ng.Mgb[+me|+me.all|-me|+gfx].
 * Returns 0, GS_EINVAL or GS_ENOMEM. */
int gs_migparted_decode(struct gs_ydec *d, const struct gs_ynode *n, const char *path,
                        struct gs_migparted_config *out);

#endif
