import { runProcess } from '../support/spawn-server.js';
import { describe, expect, it } from 'vitest';

describe('npm run demo', () => {
  it('walks the whole agent session against a spawned server', async () => {
    const run = await runProcess(process.execPath, ['dist/demo/demo.js']);
    expect(run.status, run.stderr).toBe(0);
    for (const step of [
      'list_calendars',
      'find_slots',
      'hold_slot -> HELD',
      'SLOT_UNAVAILABLE',
      'release_hold',
      'APPROVAL_REQUIRED',
      'approveUrl',
      'clicks Approve',
      'PAYMENT_PENDING',
      'holdfast payments set',
      'confirm_booking again -> CONFIRMED',
      'audit chain ok',
      'get_booking',
      'cancel_booking -> CANCELLED',
      'Demo complete.',
    ]) {
      expect(run.stdout).toContain(step);
    }
  });
});
