/**
 * The Benchmarks view (issue 23): start a run (mode, duration, model types), watch it while it runs
 * (progress polled every second, Cancel), and read the past runs with each one's report and charts.
 * One run goes at a time fleet-wide: a run started elsewhere shows here too, and a start refused because
 * one is going says which. Start and Cancel are offered only to a key that may change the fleet (issue 46).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ReadOnlyNote } from '../components/read-only-note';
import { ErrorNotice, WithData } from '../components/states';
import { Panel, View } from '../components/view';
import { useApi, useQueryState } from '../hooks';
import { useMayChange } from '../role';
import { PastRuns } from './benchmarks/past-runs';
import { RunProgress } from './benchmarks/run-progress';
import { RunReport } from './benchmarks/run-report';
import { type BenchmarkRun, isRun, type Progress } from './benchmarks/run-types';
import { StartForm } from './benchmarks/start-form';
import './benchmarks.css';

/** How often the progress is read: every second while a run goes, now and then otherwise (a run started elsewhere). */
const RUNNING_POLL_MS = 1000;
const IDLE_POLL_MS = 10_000;

export function BenchmarksView() {
  const [selected, setSelected] = useQueryState('run', '');
  const [fast, setFast] = useState(false);
  const [conflict, setConflict] = useState<{ runId: string | undefined; message: string } | undefined>(undefined);
  const mayChange = useMayChange();
  const progress = useApi<Progress>('api/benchmarks/progress', {}, fast ? RUNNING_POLL_MS : IDLE_POLL_MS);
  const runs = useApi<{ data: BenchmarkRun[] }>('api/benchmarks');
  const report = useApi<{ data: BenchmarkRun }>(
    selected === '' ? null : `api/benchmarks/${encodeURIComponent(selected)}`,
  );

  const live = isRun(progress.data) && progress.data.status === 'running' ? progress.data : undefined;
  const liveKey = isRun(progress.data) ? `${progress.data.run_id} ${progress.data.status}` : 'idle';

  // A run started or ended: read the list (and the shown report) again, and poll at the matching pace.
  const seen = useRef<string | undefined>(undefined);
  useEffect(() => {
    setFast(live !== undefined);
    if (live === undefined) setConflict(undefined);
    if (progress.data === undefined) return;
    if (seen.current !== undefined && seen.current !== liveKey) {
      runs.reload();
      if (selected !== '') report.reload();
    }
    seen.current = liveKey;
  }, [liveKey]);

  // A run chosen in the table: bring its report into view once it is read.
  const scrollToReport = useRef(false);
  useEffect(() => {
    if (!scrollToReport.current || report.data === undefined) return;
    scrollToReport.current = false;
    document.getElementById('panel-report')?.scrollIntoView({ block: 'start' });
  }, [report.data]);

  const followNewRun = () => {
    setFast(true);
    progress.reload();
    runs.reload();
  };

  return (
    <View
      title="Benchmarks"
      summary="Load the fleet's models for a while and measure throughput and latency. One run goes at a time, fleet-wide."
    >
      {mayChange ? (
        <Panel title="Start a run">
          {conflict !== undefined && (
            <div class="notice notice-warn" role="alert">
              <p>
                Not started: a benchmark is already running
                {conflict.runId === undefined ? (
                  ''
                ) : (
                  <>
                    {' '}
                    (run <code>{conflict.runId}</code>)
                  </>
                )}
                . Its progress is shown below.
              </p>
            </div>
          )}
          <StartForm
            busy={live !== undefined}
            onStarted={() => {
              setConflict(undefined);
              followNewRun();
            }}
            onConflict={(runId, message) => {
              setConflict({ runId, message });
              followNewRun();
            }}
          />
        </Panel>
      ) : (
        <ReadOnlyNote what="Starting and cancelling runs" />
      )}
      {progress.error !== undefined && <ErrorNotice error={progress.error} retry={progress.reload} />}
      {live !== undefined && (
        <Panel title="Running now">
          <RunProgress run={live} onCancelled={mayChange ? progress.reload : undefined} />
        </Panel>
      )}
      <Panel title="Past runs">
        <WithData read={runs} what="the benchmark runs">
          {(answer) => (
            <PastRuns
              runs={answer.data}
              live={live}
              selected={selected}
              onSelect={(runId) => {
                scrollToReport.current = true;
                setSelected(runId);
              }}
            />
          )}
        </WithData>
      </Panel>
      {selected !== '' && (
        <Panel title="Report" id="panel-report">
          <WithData read={report} what="the run's report">
            {(answer) => <RunReport run={answer.data} />}
          </WithData>
        </Panel>
      )}
    </View>
  );
}
