/**
 * What the chat routes use from the instance (issue 21 item 3), passed in by the handlers from the
 * composition root: the routed exchange's dispatcher and traces, the fleet's snapshot, the settings the
 * routes read, the context layers, and the runtime switch an Ollama-native image model needs.
 */
import type { ApplyContextLayers } from '../../services/context-layers/context-layers';
import type { FleetConfig } from '../../services/platform/config';
import type { FleetRegistry } from '../../services/registry/registry';
import type { RuntimeSettings } from '../../services/settings/runtime-settings';
import type { ServeChatDeps } from './serve-chat';

export interface ChatDeps extends ServeChatDeps {
  readonly config: Pick<
    FleetConfig,
    'firstByteTimeoutMs' | 'imageUrlAllow' | 'modelMap' | 'autoRoute' | 'apiKeys' | 'sharing'
  >;
  readonly registry: Pick<FleetRegistry, 'snapshot' | 'ready'>;
  readonly contextLayers: ApplyContextLayers;
  readonly settings: Pick<RuntimeSettings, 'timed'>;
}
