import { describe, expect, it } from 'vitest';
import { DEVICE_MAX, describeDevice } from '../../../src/domain/user/device.js';

describe('describeDevice', () => {
  it('names the browser and the system a person recognises', () => {
    expect(describeDevice('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0')).toBe('Firefox on Linux');
    expect(describeDevice('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 Edg/131.0')).toBe('Edge on Windows');
    expect(describeDevice('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1')).toBe('Safari on iOS');
    expect(describeDevice('curl/8.5.0')).toBe('curl');
  });

  it('keeps an unknown agent short and printable, and names a missing one', () => {
    const odd = describeDevice('x\u202etool\u0000<script>' + 'a'.repeat(500));
    expect(odd.length).toBeLessThanOrEqual(DEVICE_MAX);
    expect(odd).toMatch(/^[\x20-\x7e]+$/);
    expect(describeDevice(undefined)).toBe('Unknown device');
    expect(describeDevice('\u0001\u0002')).toBe('Unknown device');
  });
});
