-- gpusim: handy views over a trace database (schema: sim/trace.h).
--
-- Load them into a trace, then query:
--     sqlite3 trace.db < reports/views.sql
--     sqlite3 -header -column trace.db 'SELECT * FROM pending_pods LIMIT 20'
-- This adds the views to the trace file itself (they take no space; loading twice is
-- harmless). To leave the trace untouched, copy it first, or use them for one session only:
--     sqlite3 -cmd "$(sed 's/CREATE VIEW IF NOT EXISTS/CREATE TEMP VIEW IF NOT EXISTS/' reports/views.sql)" trace.db
--
-- Times in the trace are simulated microseconds (t_us); the views add seconds (_s) beside them.
--
--   pending_pods         pods still Pending at the end, oldest first, with their last message
--   pod_wait             every pod that was scheduled: how long it waited, and where it went
--   gpu_allocation       whole-cluster GPU capacity and allocation over time
--   pool_gpu_allocation  the same per node pool
--   scheduling_failures  distinct FailedScheduling messages: how many pods, how many times
--   failed_checks        the expect: checks that failed

CREATE VIEW IF NOT EXISTS pending_pods AS
SELECT p.name,
       p.workload,
       p.pod_group,
       p.priority,
       p.gpu,
       p.created_us,
       round(((SELECT CAST(value AS INTEGER) FROM run WHERE key = 'end_us') - p.created_us) / 1e6, 3)
           AS waiting_s,
       coalesce(nullif(p.message, ''),
                (SELECT e.message FROM pod_event e
                 WHERE e.pod_id = p.id AND e.reason = 'FailedScheduling'
                 ORDER BY e.rowid DESC LIMIT 1)) AS message
FROM pod p
WHERE p.phase = 'Pending'
ORDER BY p.created_us, p.id;

CREATE VIEW IF NOT EXISTS pod_wait AS
SELECT p.name,
       p.workload,
       p.pod_group,
       p.priority,
       p.gpu,
       p.created_us,
       p.scheduled_us,
       round((p.scheduled_us - p.created_us) / 1e6, 3) AS wait_s,
       round((p.started_us - p.created_us) / 1e6, 3) AS to_start_s,
       n.name AS node,
       n.pool,
       p.phase
FROM pod p
LEFT JOIN node n ON n.id = p.node_id
WHERE p.scheduled_us IS NOT NULL
ORDER BY p.id;

CREATE VIEW IF NOT EXISTS gpu_allocation AS
SELECT t_us,
       round(t_us / 1e6, 3) AS t_s,
       nodes_ready,
       gpus_capacity,
       gpus_allocatable,
       gpus_allocated,
       CASE WHEN gpus_allocatable > 0
            THEN round(100.0 * gpus_allocated / gpus_allocatable, 1) END AS allocated_pct,
       frag_gpus,
       pods_pending,
       pods_running
FROM sample
WHERE pool = ''
ORDER BY t_us;

CREATE VIEW IF NOT EXISTS pool_gpu_allocation AS
SELECT pool,
       t_us,
       round(t_us / 1e6, 3) AS t_s,
       nodes_ready,
       gpus_capacity,
       gpus_allocatable,
       gpus_allocated,
       CASE WHEN gpus_allocatable > 0
            THEN round(100.0 * gpus_allocated / gpus_allocatable, 1) END AS allocated_pct,
       frag_gpus
FROM sample
WHERE pool <> ''
ORDER BY pool, t_us;

-- Needs a trace written at --trace-level events or full (summary traces have no events).
CREATE VIEW IF NOT EXISTS scheduling_failures AS
SELECT message,
       count(DISTINCT pod_id) AS pods,
       sum(count) AS times,
       min(t_us) AS first_us,
       max(last_us) AS last_us
FROM pod_event
WHERE reason = 'FailedScheduling'
GROUP BY message
ORDER BY pods DESC, times DESC, message;

CREATE VIEW IF NOT EXISTS failed_checks AS
SELECT idx, line, what, detail
FROM expect_check
WHERE pass = 0
ORDER BY idx;
