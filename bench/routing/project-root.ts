/**
 * The project's root directory, found from this module's place: bundled it runs from dist/bench/routing,
 * under jest from bench/routing, so the root is the nearest directory above that holds package.json.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function projectRoot(from: string = __dirname): string {
  let directory = from;
  while (!existsSync(join(directory, 'package.json'))) {
    const parent = dirname(directory);
    if (parent === directory) throw new Error(`no package.json above ${from}`);
    directory = parent;
  }
  return directory;
}
