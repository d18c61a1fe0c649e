import { describe, expect, it } from 'vitest';
import { totpQrSvg } from '../../src/login/pages/totp-qr.js';

describe('totpQrSvg', () => {
  const uri = (secret: string) => `otpauth://totp/login.example.com:ada?secret=${secret}&issuer=login.example.com&algorithm=SHA1&digits=6&period=30`;

  it('is an SVG document that changes with the URI', async () => {
    const a = await totpQrSvg(uri('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'));
    const b = await totpQrSvg(uri('KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU'));
    expect(a.trimStart().startsWith('<svg')).toBe(true);
    expect(a.trimEnd().endsWith('</svg>')).toBe(true);
    expect(a).not.toBe(b);
    expect(await totpQrSvg(uri('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'))).toBe(a);
  });

  it('has no external reference, no script, and does not carry the URI as text', async () => {
    const svg = await totpQrSvg(uri('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'));
    expect(svg).not.toMatch(/href|<image|<script|url\(|https?:\/\/(?!www\.w3\.org\/2000\/svg)/i);
    expect(svg).not.toContain('JBSWY3DP');
  });
});
