/**
 * Fault knobs of a simulated server (Ollama node or sidecar), settable from code and from the control
 * route `POST /_sim/faults`. Which requests each knob touches:
 * - `refuseConnections`, `hang`: every request but the control routes (a dead or stuck machine). A server
 *   that refuses connections cannot hear the control route either: over HTTP give `refuseConnections` a
 *   number of milliseconds, after which it listens again on its own (`true` lasts until code undoes it);
 * - `failNext`, `slowFirstByte`: work requests only (Ollama: everything but `/`, `/api/version`,
 *   `/api/tags`, `/api/ps`), so polling keeps working while model calls fail;
 * - `dropMidStream`, `malformedLine`: the next NDJSON stream only (one shot each).
 */
import { isRecord } from './fields';

export interface FaultState {
  readonly failNext: number;
  readonly failStatus: number;
  readonly refusing: boolean;
  readonly hanging: boolean;
  readonly dropMidStreamAfter: number | null;
  readonly malformedLineAfter: number | null;
  readonly slowFirstByteMs: number;
}

export interface SimFaults {
  /** The next `count` work requests answer `status` with `{"error":"simulated failure"}`. */
  failNext(count: number, status?: number): void;
  /**
   * Stop listening (connects get ECONNREFUSED, open connections are cut); `false` listens again on the
   * same port, and a number of ms stops listening for that long.
   */
  refuseConnections(on: boolean | number): Promise<void>;
  /** Accept requests and never answer them. */
  hang(on: boolean): void;
  /** Destroy the socket after `afterChunks` lines of the next streaming response. */
  dropMidStream(afterChunks: number): void;
  /** Emit one non-JSON line after `afterChunks` lines of the next streaming response. */
  malformedLine(afterChunks: number): void;
  /** Delay every work response by `ms` before its first byte (0 = off). */
  slowFirstByte(ms: number): void;
  /** Clears every fault (and listens again if refusing). */
  reset(): Promise<void>;
  state(): FaultState;
}

/** The one-shot stream faults taken by the next NDJSON response. */
export interface StreamFault {
  readonly dropAfter: number | null;
  readonly malformedAfter: number | null;
}

/** Fault state plus the hooks servers use to consume it. */
export class FaultController implements SimFaults {
  private failCount = 0;
  private failStatus = 500;
  private refusing = false;
  private hanging = false;
  private dropAfter: number | null = null;
  private malformedAfter: number | null = null;
  private slowMs = 0;

  constructor(private readonly setListening: (listening: boolean) => Promise<void>) {}

  failNext(count: number, status = 500): void {
    this.failCount = Math.max(0, Math.floor(count));
    this.failStatus = status;
  }

  private comeBack: NodeJS.Timeout | undefined;

  async refuseConnections(on: boolean | number): Promise<void> {
    clearTimeout(this.comeBack);
    this.comeBack = undefined;
    if (typeof on === 'number') {
      this.comeBack = setTimeout(() => {
        this.comeBack = undefined;
        this.refuseConnections(false).catch(() => {});
      }, on);
      this.comeBack.unref();
    }
    const refusing = on !== false;
    if (refusing === this.refusing) return;
    this.refusing = refusing;
    await this.setListening(!refusing);
  }

  hang(on: boolean): void {
    this.hanging = on;
  }

  dropMidStream(afterChunks: number): void {
    this.dropAfter = Math.max(0, Math.floor(afterChunks));
  }

  malformedLine(afterChunks: number): void {
    this.malformedAfter = Math.max(0, Math.floor(afterChunks));
  }

  slowFirstByte(ms: number): void {
    this.slowMs = Math.max(0, ms);
  }

  async reset(): Promise<void> {
    this.failCount = 0;
    this.failStatus = 500;
    this.hanging = false;
    this.dropAfter = null;
    this.malformedAfter = null;
    this.slowMs = 0;
    await this.refuseConnections(false);
  }

  state(): FaultState {
    return {
      failNext: this.failCount,
      failStatus: this.failStatus,
      refusing: this.refusing,
      hanging: this.hanging,
      dropMidStreamAfter: this.dropAfter,
      malformedLineAfter: this.malformedAfter,
      slowFirstByteMs: this.slowMs,
    };
  }

  get isHanging(): boolean {
    return this.hanging;
  }

  get firstByteDelayMs(): number {
    return this.slowMs;
  }

  /** Consumes one pending failure: the status to answer with, or undefined. */
  takeFailure(): number | undefined {
    if (this.failCount === 0) return undefined;
    this.failCount--;
    return this.failStatus;
  }

  takeStreamFault(): StreamFault {
    const fault = { dropAfter: this.dropAfter, malformedAfter: this.malformedAfter };
    this.dropAfter = null;
    this.malformedAfter = null;
    return fault;
  }
}

/** The body of `POST /_sim/faults`: any subset of the knobs. */
export interface FaultPatch {
  readonly failNext?: number;
  readonly failStatus?: number;
  /** `true`, `false`, or milliseconds to refuse for. */
  readonly refuseConnections?: boolean | number;
  readonly hang?: boolean;
  readonly dropMidStream?: number;
  readonly malformedLine?: number;
  readonly slowFirstByte?: number;
  readonly reset?: boolean;
}

const NUMBER_KNOBS = ['dropMidStream', 'malformedLine', 'slowFirstByte', 'failStatus'] as const;
const BOOLEAN_KNOBS = ['hang', 'reset'] as const;

/** Checks a control-route patch; returns the first problem, or undefined when it is valid. */
function validatePatch(patch: Readonly<Record<string, unknown>>): string | undefined {
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (key === 'refuseConnections') {
      const ok = typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value) && value > 0);
      if (!ok) return 'refuseConnections must be a boolean or a number of ms > 0';
    } else if (key === 'failNext' || (NUMBER_KNOBS as readonly string[]).includes(key)) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return `${key} must be a number >= 0`;
    } else if ((BOOLEAN_KNOBS as readonly string[]).includes(key)) {
      if (typeof value !== 'boolean') return `${key} must be a boolean`;
    } else {
      return `unknown fault knob: ${key}`;
    }
  }
  return undefined;
}

/**
 * Applies a control-route patch such as `{"failNext": 2, "failStatus": 503}` or `{"hang": true}`.
 * Resolves with an error message when the patch is invalid (nothing is applied then).
 */
export async function applyFaultPatch(faults: SimFaults, value: unknown): Promise<string | undefined> {
  if (!isRecord(value)) return 'body must be a JSON object';
  const problem = validatePatch(value);
  if (problem !== undefined) return problem;
  const patch = value as FaultPatch; // validated above
  if (patch.reset === true) await faults.reset();
  if (patch.failNext !== undefined) faults.failNext(patch.failNext, patch.failStatus ?? 500);
  if (patch.hang !== undefined) faults.hang(patch.hang);
  if (patch.dropMidStream !== undefined) faults.dropMidStream(patch.dropMidStream);
  if (patch.malformedLine !== undefined) faults.malformedLine(patch.malformedLine);
  if (patch.slowFirstByte !== undefined) faults.slowFirstByte(patch.slowFirstByte);
  if (patch.refuseConnections !== undefined) await faults.refuseConnections(patch.refuseConnections);
  return undefined;
}
