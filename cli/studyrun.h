/* gpusim command line: what `compare` and `plan` share: running gpusim itself as a child
 * process (`gpusim sweep`, which runs the simulations in parallel), listing the traces it
 * wrote, and formatting metric values. */
#ifndef GPUSIM_CLI_STUDYRUN_H
#define GPUSIM_CLI_STUDYRUN_H

#include <stddef.h>

#include <jansson.h>

/* Runs this gpusim binary with `args` (NULL-terminated, without argv[0]) in a child process,
 * its stdout and stderr appended to `log` (NULL: inherited), and waits for it. SIGINT, SIGTERM
 * and SIGHUP received meanwhile are passed on to the child (and the child gets SIGTERM should
 * this process die: Linux PR_SET_PDEATHSIG); gs_cli_signal then says which came, and the
 * caller cleans up and exits with 128 + it. Returns the child's exit status (0..255), 128+signal
 * when it was killed, or -1 when it could not be started (errno set). */
int gs_cli_run_self(const char **args, const char *log);

/* The signal the last gs_cli_run_self passed on to its child, or 0. */
int gs_cli_signal(void);

/* Copies the file `log` to stderr, each line indented by two spaces (nothing when unreadable). */
void gs_cli_print_log(const char *log);

/* The traces of `dir`: every regular `*.db` file (not `*.db.partial`), in the run order of the
 * sweep when the directory holds its manifest (sweep.json or sweep-K-of-N.json; files it does not
 * name last), else sorted by name, as
 * gs_strdup'd paths `dir/name` in a gs_malloc'd array the caller frees with
 * gs_cli_free_paths. Returns the count, or -1 when the directory cannot be read (errno set). */
int gs_cli_list_traces(const char *dir, char ***paths);
void gs_cli_free_paths(char **paths, int n);

/* True when `path` is an SQLite database (its first 16 bytes say so); a scenario otherwise. */
int gs_cli_is_sqlite(const char *path);

/* True when `path` is a database `gpusim merge` wrote (application_id "GPSM"), not a trace. */
int gs_cli_is_merged(const char *path);

/* A temporary directory `$TMPDIR/gpusim-WHAT-XXXXXX` (created, gs_strdup'd; NULL on error,
 * errno set), and its removal with the files in it (one level, as a sweep leaves them). */
char *gs_cli_tempdir(const char *what);
void gs_cli_rmtree(const char *dir);

/* A metric expression names a time (timeToSchedule or timeToRunning, in seconds) or a plain
 * number; time values are shown as durations. */
int gs_cli_metric_is_time(const char *expr);

/* Writes `v` as a text cell: a time metric as a Go-style duration rounded to 0.1 s (`4m2.5s`),
 * a count as an integer, others with 4 significant digits; NaN as `-`. */
void gs_cli_format_metric(const char *expr, double v, char *buf, size_t n);

#endif
