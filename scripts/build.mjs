// Bundles every function listed in serverless.yml into dist/functions/<name>/index.js (one file, as
// Lambda receives it), all of them together into dist/emulator/handlers.js for the emulator, plus the
// emulator and the benchmark, which run from node_modules.
//
// The heavy libraries (the AWS SDK's DynamoDB client, undici, the tokenizer's cl100k encoder and the
// multipart parser) are bundled on their own into dist/functions/<name>/node_modules/<package>/index.js
// beside each handler that requires them. The handler requires them on first use (lib/services/store/sdk.ts,
// lib/services/node-client/node-http.ts, lib/core/tokens/cl100k.ts, lib/services/http/multipart.ts), so a cold start parses and runs
// only the code it needs, and Node finds them there with no node_modules of the project.
//
// Which of them a function ships is what it can reach at run time (`shippedPackages`), not what its bundle
// mentions: every bundle mentions them all through lib/instance.ts, which builds every service for every
// function (or lib/fleet-instance.ts, its fleet half, for the fleet and poller functions). Each zip is
// measured against a bound in test/integration/deploy/serverless-package.test.ts.

import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { parse } from 'yaml';
import { buildPage } from './build-page.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const serverless = parse(readFileSync(join(root, 'serverless.yml'), 'utf8'), { logLevel: 'silent' });
const LAZY_PACKAGES = [
  '@aws-sdk/client-dynamodb',
  'undici',
  'gpt-tokenizer/encoding/cl100k_base',
  '@fastify/busboy',
  // The dashboard's benchmark self-invocation (lib/services/benchmarks/benchmark-launcher).
  '@aws-sdk/client-lambda',
  // OpenTelemetry's OTLP encoding, loaded on a span export's first batch (lib/services/telemetry/otlp-encoding).
  '@opentelemetry/otlp-transformer',
];

// FLEET_BUILD_MINIFY=false keeps names in the bundles, for reading CPU profiles.
const minify = process.env.FLEET_BUILD_MINIFY !== 'false';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  absWorkingDir: root,
};

// The dashboard page (scripts/build-page.mjs) goes beside the function that serves it, and beside the
// emulator's bundle of all the handlers: each reads `page/` next to its own file.
const PAGE_FUNCTION = 'dashboard';
const pageBuild = buildPage(root, { minify });

/** A package whose vendor bundle is a part of it: its index loads far more than the router calls. */
const VENDOR_ENTRIES = {
  undici: 'scripts/vendor-undici.cjs',
  '@opentelemetry/otlp-transformer': 'scripts/vendor-otlp-transformer.cjs',
};

const vendorFile = (name) => join(root, 'dist', 'vendor', name, 'index.js');
await Promise.all(
  LAZY_PACKAGES.map((name) =>
    build({
      ...common,
      stdin: {
        contents: `module.exports = require(${JSON.stringify(VENDOR_ENTRIES[name] === undefined ? name : `./${VENDOR_ENTRIES[name]}`)});`,
        resolveDir: root,
      },
      outfile: vendorFile(name),
      minify,
      legalComments: 'none',
      sourcemap: false,
    }),
  ),
);

/**
 * The services lib/instance.ts builds for every function, and the packages they load when a route uses
 * them: the table and the nodes' HTTP client serve every function; the Lambda client only the benchmark
 * self-invocation (`POST /dashboard/api/benchmarks/start`, lib/services/benchmarks/benchmark-launcher); the
 * OTLP encoding the functions whose routed requests are exported as spans.
 */
const INSTANCE_PACKAGES = {
  '@aws-sdk/client-dynamodb': 'every',
  undici: 'every',
  '@aws-sdk/client-lambda': ['dashboard'],
  // Where OTEL_EXPORTER_OTLP_ENDPOINT is set, the functions that route requests to models export spans.
  '@opentelemetry/otlp-transformer': ['ollama', 'openai', 'messages', 'media'],
};

/** The lazy packages a function's own routes reach: its bundle built again with the instance left out. */
async function reachedByRoutes(source) {
  const { metafile } = await build({
    ...common,
    entryPoints: [source],
    write: false,
    sourcemap: false,
    external: LAZY_PACKAGES,
    metafile: true,
    plugins: [
      {
        name: 'without-instance',
        setup: (plugin) =>
          plugin.onResolve({ filter: /\/(fleet-)?instance$/ }, (args) => ({ path: args.path, external: true })),
      },
    ],
  });
  return new Set(Object.values(metafile.outputs).flatMap((output) => output.imports.map((i) => i.path)));
}

/** What ships beside a handler: what its routes reach, plus what the instance's services load for it. */
async function shippedPackages(name, source) {
  const reached = await reachedByRoutes(source);
  return LAZY_PACKAGES.filter((pkg) => {
    const users = INSTANCE_PACKAGES[pkg];
    return reached.has(pkg) || users === 'every' || (Array.isArray(users) && users.includes(name));
  });
}

const functionBuilds = Object.entries(serverless.functions).map(async ([name, fn]) => {
  const source = join('functions', `${name}.ts`);
  if (!existsSync(join(root, source))) throw new Error(`serverless.yml lists ${name}, but ${source} does not exist`);
  const outfile = `${fn.handler.slice(0, fn.handler.lastIndexOf('.'))}.js`;
  const directory = join(root, dirname(outfile));
  // A bundle from an earlier build never ships: each function's directory holds only this build's files.
  rmSync(join(directory, 'node_modules'), { recursive: true, force: true });
  await build({
    ...common,
    entryPoints: [source],
    outfile,
    minify,
    legalComments: 'none',
    external: LAZY_PACKAGES,
    // The map keeps file:line in a stack trace (NODE_OPTIONS=--enable-source-maps in serverless.yml); the
    // sources themselves are in the repository, and were ~70% of each map's bytes in every zip.
    sourcesContent: false,
  });
  // Ship a vendor bundle only beside a handler that can reach it (the encoder's ranks are ~1 MB).
  for (const pkg of await shippedPackages(name, source)) {
    const target = join(directory, 'node_modules', pkg, 'index.js');
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(vendorFile(pkg), target);
  }
});

// The emulator runs every function in one process as one instance of the router (emulator/main.ts):
// one bundle of all the handlers, so they share one set of services — one queue per node and model,
// one fleet snapshot, one set of conversation pins — as a single Lambda container shares them.
const allHandlers = Object.entries(serverless.functions)
  .map(
    ([name, fn]) =>
      `export { ${fn.handler.slice(fn.handler.lastIndexOf('.') + 1)} as ${name} } from './functions/${name}';`,
  )
  .join('\n');
const emulatorHandlersBuild = build({
  ...common,
  stdin: { contents: allHandlers, resolveDir: root, sourcefile: 'emulator-handlers.ts', loader: 'ts' },
  outfile: 'dist/emulator/handlers.js',
  minify,
  legalComments: 'none',
  external: LAZY_PACKAGES,
});

const toolBuilds = [
  ['emulator/main.ts', 'dist/emulator/main.js'],
  // The emulator's DynamoDB stand-in runs on a thread of its own (emulator/dynamo-thread.ts).
  ['emulator/table-thread.ts', 'dist/emulator/table.js'],
  // The side that starts it, for `serverless offline` (serverless/offline-setup.js) to require.
  ['emulator/dynamo-thread.ts', 'dist/emulator/dynamo-thread.js'],
  ['bench/main.ts', 'dist/bench/main.js'],
  // `npm run bench:routing` (issue 41), and the reference implementation's scoring as a router of its own.
  ['bench/routing/main.ts', 'dist/bench/routing/main.js'],
  ['bench/routing/reference-router.ts', 'dist/bench/routing/reference-router.js'],
]
  .filter(([source]) => existsSync(join(root, source)))
  .map(([source, outfile]) => build({ ...common, entryPoints: [source], outfile, packages: 'external' }));

await Promise.all([...functionBuilds, emulatorHandlersBuild, ...toolBuilds, pageBuild]);
const pageFunction = serverless.functions[PAGE_FUNCTION];
if (pageFunction === undefined) throw new Error(`serverless.yml has no ${PAGE_FUNCTION} function to serve the page`);
for (const dir of [dirname(pageFunction.handler), 'dist/emulator']) {
  rmSync(join(root, dir, 'page'), { recursive: true, force: true });
  cpSync(join(root, 'dist', 'page'), join(root, dir, 'page'), { recursive: true });
}
