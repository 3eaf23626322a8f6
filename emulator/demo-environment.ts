/**
 * What `npm run demo` changes in the environment before the router reads it: the demo fleet's image and
 * speech-to-text models switched on, and a table of its own (`./.fleet-data-demo`), so the simulated nodes
 * a demo registered never show up in a later `npm start` as nodes that went offline. Each is a default:
 * a variable the user set wins.
 */
export const DEMO_DATA_DIR = './.fleet-data-demo';

export function applyDemoEnvironment(env: NodeJS.ProcessEnv): void {
  env['FLEET_IMAGE_GENERATION'] ??= 'true';
  env['FLEET_TRANSCRIPTION'] ??= 'true';
  env['FLEET_DATA_DIR'] ??= DEMO_DATA_DIR;
}
