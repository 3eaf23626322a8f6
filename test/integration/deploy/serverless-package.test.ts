/**
 * `npx serverless package` renders the AWS deployment offline, with no credentials: every function,
 * every REST method as a response-streaming integration, OPTIONS on every path (CORS preflights) at the
 * same function as the emulator routes them, and the table with its TTL attribute.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { readRouteTable } from '../../../emulator/routes';

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}

type Reference = { Ref: string } | { 'Fn::GetAtt': [string, string] };

/** `METHOD /path → Function` for every REST method in the template. */
function renderedRoutes(resources: Record<string, Resource>): string[] {
  const pathOf = (reference: Reference): string => {
    if (!('Ref' in reference)) return '';
    const resource = resources[reference.Ref];
    if (resource === undefined) throw new Error(`no resource ${reference.Ref}`);
    return `${pathOf(resource.Properties['ParentId'] as Reference)}/${String(resource.Properties['PathPart'])}`;
  };
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::ApiGateway::Method')
    .map((method) => {
      const target = JSON.stringify(method.Properties['Integration']).match(/([A-Za-z0-9]+)LambdaFunction/)?.[1];
      const path = pathOf(method.Properties['ResourceId'] as Reference) || '/';
      return `${String(method.Properties['HttpMethod'])} ${path} → ${target ?? '?'}`;
    })
    .sort();
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
      const capitalized = (name: string) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
      const emulated = readRouteTable(join(root, 'serverless.yml'))
        .routes.map((route) => `${route.method} ${route.pattern.template} → ${capitalized(route.function.name)}`)
        .sort();
      const rendered = renderedRoutes(template.Resources);
      expect(rendered).toEqual(emulated);
      expect(rendered).toContain('OPTIONS /v1/chat/completions → Openai');
      expect(rendered).toContain('ANY /{proxy+} → Ollama');
      expect(template.Resources['FleetTable']?.Properties['TimeToLiveSpecification']).toEqual({
        AttributeName: 'expiresAt',
        Enabled: true,
      });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
