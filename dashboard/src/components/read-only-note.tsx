/**
 * The line a viewer sees where an operator sees controls that change the fleet (issue 46): why they are
 * not there, and a way to give an operator's key instead.
 */
import { askForOperatorKey } from '../key-store';
import { pageRole } from '../role';
import { useStore } from '../store';

export function ReadOnlyNote({ what }: { what: string }) {
  const role = useStore(pageRole);
  if (role === undefined) return null;
  return (
    <p class="notice read-only-note" role="note">
      Read-only: this key may read the fleet, not change it. {what} need an operator key (FLEET_ADMIN_KEYS).{' '}
      <button type="button" class="secondary" onClick={askForOperatorKey}>
        Use an operator key
      </button>
    </p>
  );
}
