/** One budget line of the benchmark's report. */
export interface Verdict {
  readonly what: string;
  readonly measured: string;
  readonly budget: string;
  readonly ok: boolean;
}
