/* gpusim internal: a JSON document (jansson) as the same node tree the YAML loader makes
 * (sim/scenario/yaml.h), so the scenario decoders and their checked accessors read imported
 * API objects (kubectl get -o json) too. Not a public header.
 *
 * Every node keeps the 1-based line and byte column of its first character in the file.
 * Strings become quoted (non-plain) scalars, numbers, true, false and null plain ones, so
 * gs_y_kstr takes a JSON string and refuses a JSON number, gs_y_int takes a JSON integer and
 * refuses a string, and gs_y_is_null is true for null. Everything lives in the arena.
 */
#ifndef GPUSIM_SCENARIO_JSON_H
#define GPUSIM_SCENARIO_JSON_H

#include "base/error.h"
#include "models/world.h"
#include "sim/scenario/yaml.h"

/* Parse `path` (or `text`, named `name` in messages) into *root, in time linear in the size of
 * the text. The file is `what` ("a kubectl node list") and must be smaller than `limit` bytes
 * (base/readfile.h). Duplicate keys in an object are an error. Returns 0; GS_EIO when the file
 * cannot be read or is too large (err says why, line 0: "file too large: ..." names the file,
 * the limit and its size or what was read); GS_EINVAL for malformed JSON, with jansson's line
 * and column in err ("invalid JSON: <what jansson says>"); GS_ENOMEM (also when jansson runs
 * out of memory). `err->file` is `path` (or `name`). */
int gs_json_load_file(const char *path, const char *what, size_t limit, struct gs_arena *a, struct gs_ynode **root,
                      struct gs_error *err);
int gs_json_load_string(const char *name, const char *text, struct gs_arena *a, struct gs_ynode **root,
                        struct gs_error *err);

#endif
