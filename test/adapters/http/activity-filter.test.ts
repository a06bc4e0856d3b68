import { describe, expect, it } from 'vitest';
import { csvField } from '../../../src/adapters/http/console/activity-export.js';
import { filterQuery, parseActivityQuery } from '../../../src/adapters/http/console/activity-filter.js';

// The activity page's query, read strictly (every field named when wrong), and the CSV's cells,
// which a spreadsheet must never run.

const parse = (query: string) => {
  const params = new URLSearchParams(query);
  return parseActivityQuery((name) => params.get(name) ?? undefined);
};

describe('the activity filter', () => {
  it('reads every field; empty ones are no filter', () => {
    const parsed = parse(
      'person=usr_1&connection=tok_1+"laptop"&tool=hold_slot&kind=write&outcome=error&error=slot_unavailable&mentions=bk_1&tool2=x&kind2=',
    );
    expect(parsed).toMatchObject({
      ok: true,
      filter: {
        subject: 'usr_1',
        clientId: 'tok_1 "laptop"',
        tool: 'hold_slot',
        kind: 'write',
        outcome: 'error',
        errorCode: 'SLOT_UNAVAILABLE',
        mentions: 'bk_1',
      },
      cursor: {},
    });
    expect(parse('person=&tool=%20%20&from=')).toMatchObject({ ok: true, filter: {}, values: {} });
  });

  it('reads times as UTC unless they name an offset; a date alone as To includes that whole day', () => {
    const at = (q: string) => {
      const parsed = parse(q);
      if (!parsed.ok) throw new Error(parsed.message);
      return parsed.filter;
    };
    expect(at('from=2026-12-01T09:30')).toEqual({ from: Date.UTC(2026, 11, 1, 9, 30) });
    expect(at('from=2026-12-01T09:30:15.5Z')).toEqual({ from: Date.UTC(2026, 11, 1, 9, 30, 15, 500) });
    expect(at('from=2026-12-01T09:30%2B02:00')).toEqual({ from: Date.UTC(2026, 11, 1, 7, 30) });
    expect(at('from=2026-12-01&to=2026-12-01')).toEqual({
      from: Date.UTC(2026, 11, 1),
      to: Date.UTC(2026, 11, 2),
    });
    // The form shows what was applied, in its own UTC format.
    expect(parse('to=2026-12-01').values).toEqual({ to: '2026-12-02T00:00' });
  });

  it('reads and shows times on the viewer’s wall clock: Los Angeles in winter and across the spring gap', () => {
    const inLA = (query: string) =>
      parseActivityQuery((name) => new URLSearchParams(query).get(name) ?? undefined, 'America/Los_Angeles');
    const parsed = inLA('from=2026-12-01T09:30:15&to=2026-12-01');
    expect(parsed).toMatchObject({
      ok: true,
      filter: { from: Date.UTC(2026, 11, 1, 17, 30, 15), to: Date.UTC(2026, 11, 2, 8) },
      values: { from: '2026-12-01T09:30:15', to: '2026-12-02T00:00' },
    });
    // An offset given wins over the viewer's zone.
    expect(inLA('from=2026-12-01T09:30Z')).toMatchObject({ filter: { from: Date.UTC(2026, 11, 1, 9, 30) } });
    // 02:30 does not exist on 8 Mar 2026 there: it reads as the moment the clock jumps (10:00 UTC).
    expect(inLA('from=2026-03-08T02:30')).toMatchObject({ filter: { from: Date.UTC(2026, 2, 8, 10) } });
    // A wrong value names the zone the person types in.
    expect(inLA('from=x')).toMatchObject({
      ok: false,
      message: expect.stringContaining('(Los Angeles time)'),
    });
  });

  it('names the wrong field, and never takes a made-up value', () => {
    const wrong = (query: string) => {
      const parsed = parse(query);
      return parsed.ok ? null : [parsed.field, parsed.message];
    };
    expect(wrong('from=2026-02-31')).toEqual(['from', expect.stringMatching(/^From: .*not a date or time/)]);
    expect(wrong('to=2026-12-01T24:00')).toEqual(['to', expect.stringMatching(/^To: /)]);
    expect(wrong('from=2026-12-02&to=2026-12-01T12:00')).toEqual(['to', 'To: must be later than From.']);
    expect(wrong('kind=delete')).toEqual(['kind', 'Kind: choose one of read, write, approval, admin.']);
    expect(wrong('outcome=fine')).toEqual(['outcome', expect.stringMatching(/^Outcome: /)]);
    expect(wrong('error=NOT-A-CODE')).toEqual(['error', expect.stringMatching(/^Error code: /)]);
    expect(wrong('tool=hold%20slot')).toEqual(['tool', expect.stringMatching(/^Tool: /)]);
    expect(wrong(`mentions=${'x'.repeat(201)}`)).toEqual(['mentions', 'Mentions: at most 200 characters.']);
    expect(wrong('mentions=a%00b')).toEqual(['mentions', expect.stringMatching(/^Mentions: /)]);
    expect(wrong('before=0')).toEqual(['page', 'Page: not a page of this list.']);
    expect(wrong('after=1e3')).toEqual(['page', 'Page: not a page of this list.']);
  });

  it('links keep the filter and add one cursor', () => {
    expect(filterQuery({ tool: 'hold_slot', connection: 'a&b' }, { before: 7 })).toBe(
      '?connection=a%26b&tool=hold_slot&before=7',
    );
    expect(filterQuery({})).toBe('');
  });
});

describe('CSV cells', () => {
  it('are quoted with quotes doubled; a value a spreadsheet would run starts with an apostrophe', () => {
    expect(csvField('plain')).toBe('"plain"');
    expect(csvField('say "hi", then go\r\n')).toBe('"say ""hi"", then go\r\n"');
    expect(csvField(null)).toBe('""');
    expect(csvField(42)).toBe('"42"');
    for (const risky of ['=1+2', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])
      expect(csvField(risky)).toBe(`"'${risky}"`);
    expect(csvField('a=1')).toBe('"a=1"');
  });
});
