import { describe, expect, it } from '@jest/globals';
import { UpstreamError } from '../../../../lib/core/errors';
import { jobIdOf, jobStateOf } from '../../../../lib/features/transcription/sidecar-job';

describe('jobIdOf', () => {
  it('reads the job id of a submitted job, a number as text', () => {
    expect(jobIdOf({ job_id: 'b3c1', status: 'queued' }, 'gpu1')).toBe('b3c1');
    expect(jobIdOf({ job_id: 17 }, 'gpu1')).toBe('17');
  });

  it.each([[{}], [{ job_id: '' }], [null], ['b3c1']])('answers 502 for a reply without a job id (%j)', (reply) => {
    expect(() => jobIdOf(reply, 'gpu1')).toThrow(
      new UpstreamError('node gpu1 accepted the audio but answered without a job_id'),
    );
  });
});

describe('jobStateOf', () => {
  it('keeps a job that is not finished running, whatever it calls that', () => {
    expect(jobStateOf({ job_id: 'j', status: 'processing' }, 'gpu1')).toEqual({
      state: 'running',
      status: 'processing',
    });
    expect(jobStateOf({ status: 'queued', result: null }, 'gpu1')).toEqual({ state: 'running', status: 'queued' });
  });

  it("returns a completed job's result with every field the node sent", () => {
    const result = {
      text: 'hello there',
      language: 'en',
      duration_s: 1.5,
      chunks: [{ text: 'hello there', start: 0, end: 1.5, chunk_index: 0, language: 'en' }],
    };

    expect(jobStateOf({ job_id: 'j', status: 'completed', result }, 'gpu1')).toEqual({ state: 'completed', result });
  });

  it('takes the transcript from the top level when the node sends no result object', () => {
    expect(jobStateOf({ status: 'completed', text: 'hi' }, 'gpu1')).toEqual({
      state: 'completed',
      result: { status: 'completed', text: 'hi' },
    });
  });

  it('answers 502 for a completed job without a text', () => {
    expect(() => jobStateOf({ status: 'completed', result: { language: 'en' } }, 'gpu1')).toThrow(
      'node gpu1 completed the transcription without a text',
    );
  });

  it("reports a failed job with the node's error, or that it gave none", () => {
    expect(jobStateOf({ status: 'failed', error: 'ffmpeg: invalid data' }, 'gpu1')).toEqual({
      state: 'failed',
      error: 'ffmpeg: invalid data',
    });
    expect(jobStateOf({ status: 'failed', error: { code: 7 } }, 'gpu1')).toEqual({
      state: 'failed',
      error: '{"code":7}',
    });
    expect(jobStateOf({ status: 'failed' }, 'gpu1')).toEqual({ state: 'failed', error: 'no reason given' });
  });

  it('answers 502 for a poll reply without a status', () => {
    expect(() => jobStateOf({ text: 'hi' }, 'gpu1')).toThrow('node gpu1 answered a job poll without a status');
  });
});
