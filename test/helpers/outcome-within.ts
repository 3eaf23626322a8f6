/**
 * How a piece of work under a deadline ended: resolved, rejected, or 'still waiting' once a bound far
 * beyond that deadline has passed (the outage tests of issue 19: a deadline that never fires shows here).
 */
export function outcomeWithin<T>(work: Promise<T>, boundMs = 8000): Promise<'resolved' | 'rejected' | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'still waiting'>((resolve) => {
    timer = setTimeout(() => resolve('still waiting'), boundMs);
  });
  const settled = work.then(
    () => 'resolved' as const,
    () => 'rejected' as const,
  );
  return Promise.race([settled, bound]).finally(() => clearTimeout(timer));
}
