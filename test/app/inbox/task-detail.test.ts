import { describe, expect, it } from 'vitest';
import { readTaskDetail, taskCustomer } from '../../../src/app/inbox/task-detail.js';
import { maskContact } from '../../../src/domain/booking/contact-mask.js';
import type { Customer } from '../../../src/domain/booking/booking.js';

describe('a task’s customer, as hold_slot would take it', () => {
  it('keeps the string fields, drops nulls and unknown fields', () => {
    expect(taskCustomer({ name: 'Elena Rivera', email: null, phone: null, notes: null, vip: true })).toEqual({
      name: 'Elena Rivera',
    });
    expect(taskCustomer({ name: null, email: null })).toBeNull();
    expect(taskCustomer(null)).toBeNull();
  });

  it('refuses what hold_slot refuses, naming the field', () => {
    expect(() => taskCustomer({ email: 'javascript:alert(1)//' })).toThrow(/customer\.email/);
    expect(() => taskCustomer({ phone: 'call me maybe' })).toThrow(/customer\.phone/);
    expect(() => taskCustomer({ name: 'x'.repeat(201) })).toThrow(/customer\.name/);
    expect(taskCustomer({ email: 'elena@example.com', phone: '+49 30 123456' })).toEqual({
      email: 'elena@example.com',
      phone: '+49 30 123456',
    });
  });

  it('reads stored task JSON defensively: wrong types read as absent', () => {
    const detail = readTaskDetail({
      event_type: 7,
      booking: { calendar_id: 'cal_1', start: 's' },
      case_keys: 'x',
    });
    expect(detail).toMatchObject({ eventType: null, booking: null, caseKeys: { confirmationNumber: null } });
  });
});

describe('masking contact data', () => {
  it('masks what is there and survives a stray null', () => {
    const stray = { name: 'Guest', email: null, phone: null } as unknown as Customer;
    expect(maskContact(stray)).toEqual({ name: 'Guest' });
    expect(maskContact({ email: 'elena@example.com', phone: '+49 30 123456' })).toEqual({
      email: 'e***@example.com',
      phone: '***56',
    });
  });
});
