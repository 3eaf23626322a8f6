/** The live feed's state in the header: live, connecting or reconnecting, announced when it changes. */
import { useLive } from '../hooks';

const TEXT = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' } as const;

export function LiveBadge() {
  const { state } = useLive();
  return (
    <output class={`live-badge live-${state}`} aria-live="polite" data-state={state}>
      <span class="live-dot" aria-hidden="true" />
      {TEXT[state]}
    </output>
  );
}
