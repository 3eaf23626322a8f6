import { describe, expect, it } from '@jest/globals';
import { binaryMediaTypeMatcher } from '../../../emulator/lambda-event';

describe('binaryMediaTypeMatcher', () => {
  const isBinary = binaryMediaTypeMatcher(['multipart/form-data', 'Image/*', 'application/octet-stream']);

  it('matches exact types, ignoring case and parameters', () => {
    expect(isBinary('multipart/form-data; boundary=x')).toBe(true);
    expect(isBinary('Application/Octet-Stream')).toBe(true);
    expect(isBinary(' multipart/form-data ;charset=utf-8')).toBe(true);
  });

  it('matches a type/* pattern by its prefix', () => {
    expect(isBinary('image/png')).toBe(true);
    expect(isBinary('IMAGE/webp')).toBe(true);
    expect(isBinary('imagery/png')).toBe(false);
  });

  it('leaves other types and a missing type as text', () => {
    expect(isBinary('application/json')).toBe(false);
    expect(isBinary('multipart/mixed')).toBe(false);
    expect(isBinary(undefined)).toBe(false);
    expect(binaryMediaTypeMatcher([])('image/png')).toBe(false);
  });

  it('takes */* as every request that has a type', () => {
    const all = binaryMediaTypeMatcher(['*/*']);
    expect(all('application/json')).toBe(true);
    expect(all(undefined)).toBe(false);
  });
});
