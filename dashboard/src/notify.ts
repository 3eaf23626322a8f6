/**
 * The offline alert (issue 23 item 3): while the page is open, a node whose status turns `offline` (it was
 * not in the previous live event) is announced in the page — an aria-live region outside the views, so it
 * speaks whichever view is shown — and, when the user switched the option on and the browser allows it,
 * raised as a browser Notification naming it. Nodes offline in the first event the page sees were offline
 * before it opened: they are not news. The option is kept in this browser's local storage.
 */

import type { FleetEvent } from './live';
import { liveFeed } from './live';
import { localStore } from './local-storage';
import { createStore } from './store';

const STORAGE_KEY = 'fleet-router.notify-offline';

export interface OfflineAlert {
  readonly nodeId: string;
  readonly draining: boolean;
  /** `Date.now()` when the page saw it. */
  readonly at: number;
}

/** What the page says about notifications: on or off, and whether the browser lets it raise them. */
export interface NotifyOption {
  readonly enabled: boolean;
  readonly permission: NotificationPermission | 'unsupported';
  /** The browser is asking the user for the permission. */
  readonly asking: boolean;
}

const supported = () => typeof window.Notification === 'function';
const permission = (): NotifyOption['permission'] => (supported() ? window.Notification.permission : 'unsupported');

export const notifyOption = createStore<NotifyOption>({
  enabled: localStore()?.getItem(STORAGE_KEY) === 'on',
  permission: permission(),
  asking: false,
});

/** The alerts of this page's life, newest last (the in-page announcements read them). */
export const offlineAlerts = createStore<readonly OfflineAlert[]>([]);

/** Switches the option; switching it on asks for the browser's permission when it was not decided yet. */
export async function setNotifyOffline(enabled: boolean): Promise<void> {
  localStore()?.setItem(STORAGE_KEY, enabled ? 'on' : 'off');
  const asking = enabled && supported() && window.Notification.permission === 'default';
  notifyOption.set({ enabled, permission: permission(), asking });
  if (!asking) return;
  try {
    await window.Notification.requestPermission();
  } finally {
    notifyOption.set({ enabled: notifyOption.get().enabled, permission: permission(), asking: false });
  }
}

export function alertText(alert: OfflineAlert): string {
  return alert.draining ? `${alert.nodeId} is draining: it went offline` : `${alert.nodeId} went offline`;
}

function raise(alert: OfflineAlert): void {
  offlineAlerts.set([...offlineAlerts.get(), alert].slice(-20));
  const option = notifyOption.get();
  if (!option.enabled || !supported() || window.Notification.permission !== 'granted') return;
  try {
    new window.Notification(`Fleet Router: ${alertText(alert)}`, {
      body: alert.draining
        ? 'It said it takes no new work; the rest of the fleet serves its share.'
        : 'No good poll or heartbeat from it: it takes no work until it answers again.',
      tag: `node-offline-${alert.nodeId}`,
    });
  } catch {
    // Some browsers only allow notifications from a service worker: the page's own announcement stays.
  }
}

/** The page-wide live region: one per page, outside the views, so it is there whichever view is shown. */
function announcer(): HTMLElement {
  const existing = document.getElementById('offline-announcer');
  if (existing !== null) return existing;
  // A landmark of its own (a complementary region at the top level), so no content sits outside one.
  const aside = document.createElement('aside');
  aside.className = 'visually-hidden';
  aside.setAttribute('aria-label', 'Node alerts');
  const region = document.createElement('div');
  region.id = 'offline-announcer';
  region.setAttribute('role', 'status');
  region.setAttribute('aria-live', 'assertive');
  aside.append(region);
  document.body.append(aside);
  return region;
}

let watching = false;

/** Watches the live feed from now on (call once, at the page's start). */
export function startOfflineWatch(): void {
  if (watching) return;
  watching = true;
  const region = announcer();
  let previous: Map<string, FleetEvent['nodes'][number]['status']> | undefined;
  let seen: FleetEvent | undefined;
  const check = () => {
    const { event } = liveFeed.get();
    if (event === undefined || event === seen) return;
    seen = event;
    const now = new Map(event.nodes.map((node) => [node.node_id, node.status]));
    if (previous !== undefined) {
      for (const node of event.nodes) {
        const before = previous.get(node.node_id);
        if (node.status !== 'offline' || before === undefined || before === 'offline') continue;
        const alert = { nodeId: node.node_id, draining: node.draining, at: Date.now() };
        raise(alert);
        region.textContent = `${alertText(alert)} at ${new Date(alert.at).toLocaleTimeString()}.`;
      }
    }
    previous = now;
  };
  liveFeed.subscribe(check);
  check();
}
