/** Removes what ./global-setup prepared for the run (jest.config.js `globalTeardown`). */
import { rmSync } from 'node:fs';

export default function globalTeardown(): void {
  const schemaCache = process.env['SLS_SCHEMA_CACHE_BASE_DIR'];
  if (schemaCache !== undefined) rmSync(schemaCache, { recursive: true, force: true });
}
