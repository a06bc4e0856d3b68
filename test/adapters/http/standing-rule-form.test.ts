import { describe, expect, it } from 'vitest';
import { grantOfForm, ruleFormOf } from '../../../src/adapters/http/console/standing-rule-form.js';
import { draftFrom } from '../../../src/domain/approval/standing-rule.js';

// A booking ending at midnight drafts a rule whose hours end at 24:00, which a time input cannot
// hold (it would show nothing, and granting failed on "hours"). The form shows 00:00 as the end
// and reads it back as midnight; other ends pass through as typed.

const draft = (start: string, end: string) =>
  draftFrom({
    action: 'confirm',
    calendarIds: ['cal_a'],
    start: Date.parse(start),
    end: Date.parse(end),
    price: null,
    connectionId: null,
    timeZone: 'UTC',
  });

describe('the standing-rule form and midnight', () => {
  it('a booking from 23:00 to midnight: the form shows 23:00 to 00:00, the grant says 24:00', () => {
    const d = draft('2030-03-04T23:00:00Z', '2030-03-05T00:00:00Z');
    expect(d.hours).toEqual({ from: '23:00', to: '24:00' });
    const values = ruleFormOf(d);
    expect([values.hoursFrom, values.hoursTo]).toEqual(['23:00', '00:00']);
    expect(grantOfForm(values).hours).toEqual({ from: '23:00', to: '24:00' });
  });

  it('an afternoon booking passes through unchanged', () => {
    const values = ruleFormOf(draft('2030-03-04T14:00:00Z', '2030-03-04T15:30:00Z'));
    expect([values.hoursFrom, values.hoursTo]).toEqual(['14:00', '16:00']);
    expect(grantOfForm(values).hours).toEqual({ from: '14:00', to: '16:00' });
  });
});
