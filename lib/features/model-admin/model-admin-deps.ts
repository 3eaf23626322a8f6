/**
 * What `DELETE /api/delete` and `POST /api/copy` use from the instance (issue 21 item 3), passed in by
 * the handlers: the registry, for the snapshot that picks the target nodes and for recording on those
 * nodes at once what was done; the traces, where each change is kept with the key that made it (issue 46).
 */
import type { TraceRecorder } from '../../services/analytics/trace';
import type { FleetRegistry } from '../../services/registry/registry';
import type { RegistryUpdates } from './update-registry';

export interface ModelAdminDeps {
  readonly registry: Pick<FleetRegistry, 'snapshot'> & RegistryUpdates;
  readonly traces: TraceRecorder;
}
