import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The README's screenshots are copies of what the console browser tests photograph into
// .artifacts/console/; this keeps every image the README shows present and a real page shot.
describe('README screenshots', () => {
  it('every image the README shows exists and is a PNG of a desktop-width page', () => {
    const readme = readFileSync('README.md', 'utf8');
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]!);
    expect(images).toEqual(
      expect.arrayContaining([
        'docs/screenshots/approval-detail.png',
        'docs/screenshots/bookings-week.png',
        'docs/screenshots/connections.png',
      ]),
    );
    for (const path of images) {
      const png = readFileSync(path);
      expect(png.subarray(1, 4).toString('latin1'), path).toBe('PNG');
      // IHDR: width and height, big-endian, at bytes 16 and 20.
      expect(png.readUInt32BE(16), path).toBe(1280);
      expect(png.readUInt32BE(20), path).toBeGreaterThan(400);
    }
  });
});
