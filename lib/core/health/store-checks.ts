/**
 * Health checks on the table (issue 22 item 3): written-behind writes failing (traces, rollups and
 * queue states go out late or, if the process ends first, not at all — the reference lost ~40,000
 * traces this way while its dashboard showed zero traffic), writes refused outright, and a backlog of
 * unconfirmed writes, and rollups that cannot be read. Counts cover `writes.spanMs` of `writes.scope`. Silent while writes succeed. Pure.
 */
import { finding, type HealthChecks } from './health-finding';

/** Failed flush rounds in the span: a warning from the first, critical from this many (the reference's). */
export const WRITE_FAILURES_CRITICAL = 50;
/** Unconfirmed writes from which the backlog is reported. */
export const WRITE_BACKLOG = 1000;

const minutes = (ms: number) => Math.max(1, Math.round(ms / 60_000));

export const STORE_CHECKS: HealthChecks = {
  analytics_unreadable: {
    title: 'The analytics can be read',
    severity: 'critical',
    run: ({ trafficReadFailed }) =>
      trafficReadFailed
        ? [
            finding('analytics_unreadable', {
              severity: 'critical',
              title: 'The analytics cannot be read',
              description:
                'Reading the last 24 h of rollups from the table failed: the traffic checks ran on nothing, and the dashboard shows no traffic.',
              fix: 'Check the table (DynamoDB) is reachable and the function may query it; see the router log.',
            }),
          ]
        : [],
  },
  table_write_failures: {
    title: 'Table writes succeeding',
    severity: 'critical',
    run: ({ writes }) =>
      writes.failedFlushes === 0
        ? []
        : [
            finding('table_write_failures', {
              severity: writes.failedFlushes >= WRITE_FAILURES_CRITICAL ? 'critical' : 'warning',
              title: `${writes.failedFlushes} table write rounds failed`,
              description: `Writes to the table failed in ${writes.failedFlushes} flush rounds in the last ${minutes(writes.spanMs)} min (${writes.scope}); they are retried, and traces and analytics lag until they succeed.`,
              fix: 'Check the table is reachable and not throttled (DynamoDB metrics), and the router log for the error.',
              data: {
                failed_flushes: writes.failedFlushes,
                span_s: Math.round(writes.spanMs / 1000),
                scope: writes.scope,
              },
            }),
          ],
  },
  table_writes_rejected: {
    title: 'Table writes refused',
    severity: 'warning',
    run: ({ writes }) =>
      writes.rejected === 0
        ? []
        : [
            finding('table_writes_rejected', {
              severity: 'warning',
              title: `${writes.rejected} table writes were refused`,
              description: `The table refused ${writes.rejected} writes as invalid in the last ${minutes(writes.spanMs)} min (${writes.scope}): those records are lost.`,
              fix: 'See the router log for the refused item; an item over 400 KB or a bad key is a bug to report.',
              data: { rejected: writes.rejected, span_s: Math.round(writes.spanMs / 1000), scope: writes.scope },
            }),
          ],
  },
  write_backlog: {
    title: 'Table writes waiting',
    severity: 'warning',
    run: ({ writes }) =>
      writes.pending < WRITE_BACKLOG
        ? []
        : [
            finding('write_backlog', {
              severity: 'warning',
              title: `${writes.pending} table writes wait to go out`,
              description: `${writes.pending} writes are queued and not yet confirmed by the table (${writes.scope}); they are lost if the process ends now.`,
              fix: 'Check the table is reachable and has the capacity for the traffic.',
              data: { pending: writes.pending, scope: writes.scope },
            }),
          ],
  },
};
