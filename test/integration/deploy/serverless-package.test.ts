/**
 * `npx serverless package` renders the AWS deployment offline, with no credentials: every function,
 * every REST method as a response-streaming integration, and the table with its TTL attribute.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}

describe('serverless package', () => {
  it('renders streaming methods, the functions and the table without credentials or network', () => {
    const root = join(__dirname, '..', '..', '..');
    const out = mkdtempSync(join(tmpdir(), 'fleet-sls-'));
    try {
      execFileSync(
        process.execPath,
        [join(root, 'node_modules', 'serverless', 'bin', 'serverless.js'), 'package', '--package', out],
        {
          cwd: root,
          env: {
            PATH: process.env['PATH'] ?? '',
            HOME: out,
            SLS_TELEMETRY_DISABLED: '1',
            SLS_NOTIFICATIONS_MODE: 'off',
          },
          stdio: 'pipe',
        },
      );
      const template = JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8')) as {
        Resources: Record<string, Resource>;
      };
      const resources = Object.values(template.Resources);
      const methods = resources.filter((resource) => resource.Type === 'AWS::ApiGateway::Method');
      const functions = Object.entries(template.Resources)
        .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
        .map(([name]) => name)
        .sort();

      expect(functions).toEqual([
        'DashboardLambdaFunction',
        'FleetLambdaFunction',
        'MediaLambdaFunction',
        'MessagesLambdaFunction',
        'OllamaLambdaFunction',
        'OpenaiLambdaFunction',
        'PollerLambdaFunction',
      ]);
      expect(methods.length).toBeGreaterThanOrEqual(10);
      for (const method of methods) {
        const integration = method.Properties['Integration'] as { ResponseTransferMode?: string; Uri: unknown };
        expect(integration.ResponseTransferMode).toBe('STREAM');
        expect(JSON.stringify(integration.Uri)).toContain('response-streaming-invocations');
      }
      expect(template.Resources['FleetTable']?.Properties['TimeToLiveSpecification']).toEqual({
        AttributeName: 'expiresAt',
        Enabled: true,
      });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
