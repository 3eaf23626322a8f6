/**
 * Runs once before a jest run's workers start (jest.config.js `globalSetup`); what it puts in process.env
 * the workers inherit. It prepares what several suites would otherwise each make for themselves:
 * - SLS_SCHEMA_CACHE_BASE_DIR, the folder where the Serverless Framework keeps its compiled schema
 *   validator (./helpers/framework-env), removed by ./global-teardown.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function globalSetup(): void {
  process.env['SLS_SCHEMA_CACHE_BASE_DIR'] = mkdtempSync(join(tmpdir(), 'fleet-sls-schema-'));
}
