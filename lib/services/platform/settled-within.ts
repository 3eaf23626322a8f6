/**
 * A bounded wait for work that may hang (a table read): what a thawed process's first request does
 * before it routes on what it has (ARCHITECTURE.md §3.5). Never throws; the work's outcome is the
 * caller's to read elsewhere.
 */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  if (ms <= 0) return;
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([work.then(noop, noop), elapsed]);
  } finally {
    clearTimeout(timer);
  }
}

function noop(): void {}
