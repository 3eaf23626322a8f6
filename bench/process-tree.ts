/**
 * Every process a party runs (issue 42: the memory budget counts them all): the process and its
 * descendants, found from /proc (Linux only, like these machines), and what each holds resident. Where the
 * kernel keeps `/proc/<pid>/task/<tid>/children` that file answers; where it does not (these virtual
 * machines' kernels lack CONFIG_PROC_CHILDREN), every process's parent is read from `/proc/<pid>/stat`.
 * The parsers and the walk are pure, for the tests; the readers around them return nothing for a process
 * that is gone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';

/** The parent pid in the text of `/proc/<pid>/stat`; undefined when it cannot be read. */
export function parentInStat(stat: string): number | undefined {
  // Fields after the command name, which may itself contain spaces and parentheses, closed by the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const parent = Number(fields[1]);
  return Number.isInteger(parent) ? parent : undefined;
}

/** The pids of `/proc/<pid>/task/<tid>/children`: space-separated, with a trailing space. */
export function pidsInChildren(text: string): number[] {
  return text
    .split(' ')
    .filter((word) => word.trim() !== '')
    .map(Number)
    .filter((pid) => Number.isInteger(pid));
}

/** A process's resident memory in kB from the text of `/proc/<pid>/status` (`field` VmRSS, or VmHWM for its peak). */
export function statusKb(status: string, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number | undefined {
  const found = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return found?.[1] === undefined ? undefined : Number(found[1]);
}

/** `root` and its descendants, parents before children, from each child's parent. */
export function descendantsOf(root: number, parents: ReadonlyMap<number, number>): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, parent] of parents) {
    const siblings = children.get(parent);
    if (siblings === undefined) children.set(parent, [pid]);
    else siblings.push(pid);
  }
  const tree: number[] = [];
  const visit = (pid: number) => {
    if (tree.includes(pid)) return;
    tree.push(pid);
    for (const child of [...(children.get(pid) ?? [])].sort((a, b) => a - b)) visit(child);
  };
  visit(root);
  return tree;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Every process's parent, from /proc/<pid>/stat. */
function allParents(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const stat = read(`/proc/${pid}/stat`);
    const parent = stat === undefined ? undefined : parentInStat(stat);
    if (parent !== undefined) parents.set(pid, parent);
  }
  return parents;
}

/** The children of `pid` from its tasks' children files; undefined where the kernel has none. */
function childrenFiles(pid: number): number[] | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const task of tasks) {
    const text = read(`/proc/${pid}/task/${task}/children`);
    if (text === undefined) return undefined;
    found.push(...pidsInChildren(text));
  }
  return found;
}

/** `root` and every process under it that is running now. */
export function processTree(root: number): number[] {
  if (childrenFiles(root) === undefined) return descendantsOf(root, allParents());
  const tree: number[] = [];
  const pending = [root];
  for (let pid = pending.shift(); pid !== undefined; pid = pending.shift()) {
    if (tree.includes(pid)) continue;
    tree.push(pid);
    pending.push(...(childrenFiles(pid) ?? []));
  }
  return tree;
}

/** Resident memory of `pid` now (VmRSS) or its peak so far (VmHWM), in kB; undefined once it is gone. */
export function residentKb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number | undefined {
  const status = read(`/proc/${pid}/status`);
  return status === undefined ? undefined : statusKb(status, field);
}

/** A name for the report: the script a Node process runs (`emulator/main.js`), else its command. */
export function processLabel(pid: number): string {
  const args = (read(`/proc/${pid}/cmdline`) ?? '').split('\0').filter((arg) => arg !== '');
  const script = args.find((arg) => arg.endsWith('.js'));
  if (script !== undefined) return `${basename(dirname(script))}/${basename(script)}`;
  return (read(`/proc/${pid}/comm`) ?? `pid ${pid}`).trim();
}
