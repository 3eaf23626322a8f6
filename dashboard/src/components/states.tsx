/** What a view shows while it reads, when a read failed and when there is nothing yet. */
import type { ComponentChildren } from 'preact';
import type { ApiRead } from '../hooks';

export function Loading({ what }: { what: string }) {
  return (
    <p class="state" aria-busy="true">
      Reading {what}…
    </p>
  );
}

export function ErrorNotice({ error, retry }: { error: Error; retry?: () => void }) {
  return (
    <div class="notice notice-error" role="alert">
      <p>{error.message}</p>
      {retry !== undefined && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="state state-empty">{children}</p>;
}

/**
 * Renders `children` with the read's data once it has some; until then the loading line, or the error
 * (an error after data keeps the data and shows the error above it).
 */
export function WithData<T>({
  read,
  what,
  children,
}: {
  read: ApiRead<T>;
  what: string;
  children: (data: T) => ComponentChildren;
}) {
  if (read.data === undefined) {
    if (read.error !== undefined) return <ErrorNotice error={read.error} retry={read.reload} />;
    return <Loading what={what} />;
  }
  return (
    <>
      {read.error !== undefined && <ErrorNotice error={read.error} retry={read.reload} />}
      {children(read.data)}
    </>
  );
}
