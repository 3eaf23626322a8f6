/**
 * Asks for the router's API key when a call was refused with 401 (FLEET_API_KEYS is set): a modal dialog
 * with one labelled field. The key is kept in this browser (key-store) and every waiting call goes again.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { dismissKeyRequest, keyRequest, submitKey } from '../key-store';
import { useStore } from '../store';

export function KeyDialog() {
  const request = useStore(keyRequest);
  const dialog = useRef<HTMLDialogElement>(null);
  const [key, setKey] = useState('');

  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (request !== null && !element.open) element.showModal();
    if (request === null && element.open) element.close();
  }, [request]);

  return (
    <dialog ref={dialog} class="key-dialog" aria-labelledby="key-title" onCancel={(event) => event.preventDefault()}>
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          if (key.trim() === '') return;
          submitKey(key.trim());
          setKey('');
        }}
      >
        <h2 id="key-title">API key</h2>
        <p>
          {request?.reason === 'refused'
            ? 'The router refused that key. Enter one of the keys in its FLEET_API_KEYS.'
            : request?.reason === 'operator'
              ? 'An operator key (one of FLEET_ADMIN_KEYS) may pull, delete, change settings and run benchmarks. It is kept in this browser only.'
              : 'This router asks for an API key (FLEET_API_KEYS). It is kept in this browser only.'}
        </p>
        <label>
          Key
          <input
            type="password"
            name="api-key"
            autocomplete="off"
            required
            value={key}
            onInput={(event) => setKey(event.currentTarget.value)}
          />
        </label>
        <button type="submit">Use this key</button>
        {request?.reason === 'operator' && (
          <button type="button" class="secondary" onClick={dismissKeyRequest}>
            Cancel
          </button>
        )}
      </form>
    </dialog>
  );
}
