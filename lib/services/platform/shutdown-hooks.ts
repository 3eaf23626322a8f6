/**
 * Work a process must finish before it exits (flushing written-behind traces). The hooks live on a
 * process-wide registry, not in one bundle's module scope, because the emulator's own bundle, which runs
 * them when it stops, is not the bundle of the handlers that register them. In AWS each invocation flushes
 * before it ends instead (lib/instance.ts), since a frozen container runs nothing.
 */
type Hook = () => Promise<void>;

const REGISTRY = Symbol.for('fleet-router.shutdown-hooks');

function hooks(): Set<Hook> {
  let set = Reflect.get(globalThis, REGISTRY) as Set<Hook> | undefined;
  if (set === undefined) {
    set = new Set();
    Reflect.set(globalThis, REGISTRY, set);
  }
  return set;
}

export function onShutdown(hook: Hook): void {
  hooks().add(hook);
}

/** Runs every hook once, at most `timeoutMs` in all; a failing hook does not stop the others. */
export async function runShutdownHooks(timeoutMs = 5000): Promise<void> {
  const all = [...hooks()].map((hook) => hook().catch((error: unknown) => console.error(`shutdown: ${String(error)}`)));
  await Promise.race([Promise.all(all), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
}
