/* gpusim command line: an output file (report --html, compare --html, export) written whole or
 * not at all, and never over something the user did not ask to replace (cli/outfile.c).
 *
 * The file is written to a temporary file beside the target (".<name>.XXXXXX" in the same
 * directory, so the rename stays on one file system) and renamed onto the target only when
 * everything was written: a failure (a bad trace, a full disk, the file size limit) leaves the
 * target as it was and removes only the temporary file. Refused before anything is written:
 * a target that is one of the command's inputs (the same file by device and inode, so through a
 * symbolic or hard link too), a target that exists and is not a regular file (a device, a FIFO,
 * a directory), and a target that is a gpusim trace (PRAGMA application_id: replacing a trace
 * with a report would lose a run; sim/trace.h gs_trace_file_kind). "-" is standard output.
 * While such a file is open, SIGXFSZ is ignored: past the file size limit a write fails with
 * EFBIG, reported as an error, instead of the signal killing the process mid-file.
 */
#ifndef GPUSIM_CLI_OUTFILE_H
#define GPUSIM_CLI_OUTFILE_H

#include <stdio.h>

struct gs_outfile {
    FILE *f;          /* where to write (stdout for "-") */
    const char *path; /* the target as given, borrowed */
    char target[4096]; /* where the rename goes: path, or what a symbolic link at path points to */
    char tmp[4096];   /* the temporary file ("" for stdout) */
};

/* Check `path` against the rules above, with `inputs` (ninputs paths, borrowed: the files the
 * command reads) and open its temporary file. `cmd` names the command in messages ("report").
 * Returns 0, or -1 after printing why on stderr (`gpusim: <cmd>: ...`); nothing is created then. */
int gs_outfile_open(struct gs_outfile *o, const char *path, const char *const *inputs, int ninputs, const char *cmd);

/* Finish: flush, close and rename the temporary file onto the target. Returns 0, or -1 after
 * printing why (with errno's text: "No space left on device", "File too large") and removing
 * the temporary file; the target is then as it was. */
int gs_outfile_commit(struct gs_outfile *o, const char *cmd);

/* Give up: close and remove the temporary file; the target is untouched. */
void gs_outfile_abort(struct gs_outfile *o);

#endif
