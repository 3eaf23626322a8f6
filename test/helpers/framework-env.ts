/**
 * The bare environment the tests run the Serverless Framework in: the shell's PATH only, a HOME of the
 * caller's own (nothing of the developer's ~/.serverless leaks in), telemetry and notifications off.
 *
 * One thing is shared: the Framework compiles its configuration schema with ajv on every start (about 5 s
 * of CPU, half of a `serverless print`) and keeps the compiled validator under HOME unless
 * SLS_SCHEMA_CACHE_BASE_DIR says where. test/global-setup.ts makes one such folder per jest run, so the
 * first start of the run compiles and the others (a dozen) load the same validator; every start still
 * validates serverless.yml against the full schema. The validator is keyed by a hash of the schema.
 */
export function frameworkEnv(home: string, env: Record<string, string> = {}): Record<string, string> {
  const schemaCache = process.env['SLS_SCHEMA_CACHE_BASE_DIR'];
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
    ...(schemaCache === undefined ? {} : { SLS_SCHEMA_CACHE_BASE_DIR: schemaCache }),
    ...env,
  };
}
