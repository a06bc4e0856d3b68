import { readFileSync } from 'node:fs';
import { DOC_PATHS, linksOf } from '../support/docs.js';
import { describe, expect, it } from 'vitest';

// The README's screenshots are what the browser tests photograph (`npm run screenshots` renders
// the pages a person decides on into docs/screenshots/); this keeps every image the README
// shows present and a real page shot at a phone's or a desktop's width.
describe('README and docs/ screenshots', () => {
  it('every image the README and docs/ show exists and is a PNG of a phone-width or desktop-width page', () => {
    const images = DOC_PATHS.flatMap((path) => linksOf(path))
      .map((link) => link.file)
      .filter((file) => file.endsWith('.png'));
    expect(images).toEqual(
      expect.arrayContaining([
        'docs/screenshots/approval-390.png',
        'docs/screenshots/approval-1280.png',
        'docs/screenshots/approval-five-calendars-1280.png',
        'docs/screenshots/bookings-week.png',
        'docs/screenshots/connections.png',
      ]),
    );
    for (const path of images) {
      const png = readFileSync(path);
      expect(png.subarray(1, 4).toString('latin1'), path).toBe('PNG');
      // IHDR: width and height, big-endian, at bytes 16 and 20.
      expect([390, 1280], path).toContain(png.readUInt32BE(16));
      expect(png.readUInt32BE(20), path).toBeGreaterThan(400);
    }
  });
});
