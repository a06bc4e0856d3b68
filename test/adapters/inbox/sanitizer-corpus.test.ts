import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { parseEml } from '../../../src/adapters/inbox/mail-parse.js';
import { HTML_RENDER_MODE, sanitizeMailHtml } from '../../../src/adapters/inbox/sanitize-mail.js';

const DIR = join(process.cwd(), 'test', 'fixtures', 'mail');
const FIXTURES = readdirSync(DIR)
  .filter((f) => f.endsWith('.eml'))
  .sort();
const raw = (fixture: string): Buffer => readFileSync(join(DIR, fixture));

/*
 * The checker's own allowlist, written apart from the sanitizer's: widening the sanitizer alone
 * fails here. It reads the output with the same parser family a browser-less check can have, and
 * also scans the text for what must never appear at all.
 */
const TAGS = new Set(
  `p br div span b strong i em u s small sup sub center blockquote pre code hr a
   ul ol li h1 h2 h3 h4 h5 h6 table thead tbody tfoot tr th td caption`.split(/\s+/),
);
const ATTRIBUTES = new Set(['dir', 'lang', 'align', 'valign', 'colspan', 'rowspan']);
const NEVER = [
  '<script',
  'javascript:',
  'data:',
  'http:',
  'https:',
  'cid:',
  'onerror',
  'onload',
  'expression(',
];

/** Every way the HTML breaks the render policy; [] when it keeps to it. */
function problemsIn(html: string): string[] {
  const problems: string[] = [];
  const parser = new Parser({
    onopentag(name, attribs) {
      if (!TAGS.has(name)) problems.push(`element <${name}>`);
      for (const [attr, value] of Object.entries(attribs)) {
        if (!ATTRIBUTES.has(attr)) problems.push(`attribute ${attr} on <${name}>`);
        // Values arrive entity-decoded, so `&#106;avascript:` is seen as `javascript:`.
        if (/:|\/\/|url\(/i.test(value)) problems.push(`value ${attr}="${value}" on <${name}>`);
      }
    },
    oncomment: (data) => problems.push(`comment <!--${data}-->`),
    onprocessinginstruction: (name) => problems.push(`declaration <${name}>`),
    oncdatastart: () => problems.push('CDATA section'),
  });
  parser.write(html);
  parser.end();
  const lower = html.toLowerCase();
  for (const needle of NEVER) if (lower.includes(needle)) problems.push(`contains "${needle}"`);
  return problems;
}

/** What a person sees of the HTML: its text, entities decoded, whitespace collapsed. */
function visibleText(html: string): string {
  let text = '';
  const parser = new Parser({ ontext: (chunk) => (text += chunk) });
  parser.write(html);
  parser.end();
  return text.replace(/\s+/g, ' ');
}

interface Expected {
  /** Phrases the text body keeps. */
  text: string[];
  /** Phrases the sanitized HTML shows; omitted when the message has no HTML. */
  visible?: string[];
  /** Phrases the sanitized HTML must not show (dropped with their element). */
  hidden?: string[];
}

const EXPECTED: Record<string, Expected> = {
  '01-script-and-handlers.eml': {
    text: ['Your table for two is ready at 20:30.', 'Ask for Marta at the door.'],
    visible: ['Your table for two is ready at 20:30.', 'Thanks for booking with us.', 'Window seat'],
  },
  '02-javascript-and-data-urls.eml': {
    text: ['Room 214, two nights.'],
    visible: ['Room 214, two nights.', 'Confirm', 'Change dates', 'Quiet hours 22:00 to 07:00.'],
    hidden: ['Object fallback'],
  },
  '03-remote-images-and-tracking.eml': {
    // mailparser's text from HTML starts at <body>, which this message opens late.
    text: ['See you on Friday.'],
    visible: ['Your loyalty points: 1,240', 'See you on Friday.'],
    hidden: ['Video fallback'],
  },
  '04-css-tricks.eml': {
    text: ['Breakfast is served 7-10.', 'Parking is free.'],
    // The preheader hidden by CSS shows: style is gone, its text is not.
    visible: ['Breakfast is served 7-10.', 'Late checkout until noon.', 'Hidden preheader line'],
  },
  '05-base-meta-form-iframe.eml': {
    text: ['Reception is open 24 hours.'],
    visible: ['Confirm your card to keep the booking.', 'Reception is open 24 hours.'],
    hidden: ['Pay now', 'Visa', 'Frame fallback'],
  },
  '06-svg-math-mxss.eml': {
    text: ['Deposit refunded: EUR 150.'],
    visible: ['Deposit refunded: EUR 150.', 'Your room key is at the front desk.'],
    hidden: ['Click', 'CLICKME'],
  },
  '07-booking-confirmation-nested-tables.eml': {
    // The text/plain part, not text made from the HTML: the ruler line only exists there.
    text: [
      'confirmation number is HF-7Q2K9M',
      'Check-in:  Fri 14 Nov 2025, from 15:00',
      'Check-out: Mon 17 Nov 2025, until 11:00',
      'Sat 15 Nov 2025   Deluxe Double, sea view   €158.00',
      '==================================================',
      'Total (3 nights)                            €426.00',
      'After that the first night is charged in full and the rest of the stay can be changed only by calling',
    ],
    visible: [
      'Dear Ana Lopes,',
      'Your confirmation number is HF-7Q2K9M.',
      'Check-in Fri 14 Nov 2025 from 15:00',
      'Check-out Mon 17 Nov 2025 until 11:00',
      'Fri 14 Nov 2025Deluxe Double, sea view€142.00',
      'Sun 16 Nov 2025Deluxe Double, sea view€126.00',
      'Total (3 nights)€426.00',
      'Free cancellation until Wed 12 Nov 2025, 15:00.',
      'Manage booking',
    ],
    hidden: ['Booking confirmation HF-7Q2K9M', 'border-collapse'],
  },
  '08-broken-html.eml': {
    text: ['Dear guest,', 'your booking is confirmed', 'Still readable text'],
    visible: [
      'Dear guest,',
      'your booking is confirmed',
      'Arrival12 Dec 2025Nights2',
      'Towels',
      'Unquoted link',
      'Still readable text',
      'Angle chaos',
      'Breakfast included',
    ],
    hidden: ['color: red'],
  },
  '09-quoted-printable-plain-text.eml': {
    text: [
      'Hello from Café Nord,',
      'is confirmed for four people, and we have noted the birthday cake request together with the nut allergy',
      'Door code = 4471 (side entrance after 22:00)',
      'Deposit: €40.00, refundable until Thursday.',
      'Léa',
    ],
  },
  '10-base64-html.eml': {
    text: ['Zimmer 12, Check-in ab 15:00 Uhr.', 'Frühstück von 7 bis 10 Uhr.'],
    visible: ['Grüße aus München', 'Zimmer 12, Check-in ab 15:00 Uhr.', 'Buchung verwalten'],
  },
  '11-iso-8859-1-accents.eml': {
    text: [
      'Cher José Müller,',
      "l'Hôtel Belvédère est confirmée.",
      'Señora Inés Núñez',
      'Françoise, réception',
    ],
    visible: ['Cher José Müller,', "à l'Hôtel Belvédère est confirmée.", 'Arrivée : vendredi 5 décembre'],
  },
  '12-gb2312-gbk-chinese.eml': {
    // 喆 is outside GB2312 (GBK only): real mailers label GBK text GB2312, and it must still decode.
    text: [
      '尊敬的王喆先生',
      '您的预订已确认。',
      '入住日期：2025年12月20日',
      '退房日期：2025年12月22日',
      '确认号：SH-88231',
    ],
    visible: [
      '尊敬的王喆先生',
      '您的预订已确认。',
      '入住日期2025年12月20日',
      '确认号SH-88231',
      '上海外滩酒店',
    ],
    hidden: ["alert('预订')"],
  },
  '13-shift-jis-japanese.eml': {
    text: [
      '山田太郎様',
      'ご予約ありがとうございます。',
      'チェックイン：12月24日 15時',
      '予約番号：KY-5512',
      '京都 旅館さくら',
    ],
    visible: [
      '山田太郎様',
      'ご予約ありがとうございます。',
      'チェックイン：12月24日 15時',
      '予約番号：KY-5512',
    ],
  },
  '14-outlook-reply-threading.eml': {
    text: [
      'We can hold 12 rooms for 6-8 March at the group rate of €119 per night.',
      'Could you hold 12 rooms',
    ],
    visible: [
      'We can hold 12 rooms for 6-8 March at the group rate of €119 per night.',
      'From: Holdfast Reservations <reservations@holdfast.example>',
      'Could you hold 12 rooms for 6-8 March? Breakfast for all guests.',
    ],
    hidden: ['Font Definitions', 'shapedefaults'],
  },
  '15-attachment-and-inline-cid-image.eml': {
    text: ['Invoice LL-7731 is attached: 2 nights, total USD 318.40'],
    visible: ['Thank you for staying at Lakeside Lodge.', 'Invoice LL-7731 is attached'],
    hidden: ['ATTACHMENT-BODY-MARKER'],
  },
};

describe('the mail corpus', () => {
  it('has at least 14 fixtures, each with its expectations', () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(14);
    expect(Object.keys(EXPECTED).sort()).toEqual(FIXTURES);
  });

  it.each(FIXTURES)('%s is ASCII with CRLF line ends (the charsets live in its encodings)', (fixture) => {
    const bytes = raw(fixture);
    expect(bytes.every((byte) => byte < 0x80)).toBe(true);
    expect(bytes.toString('latin1')).not.toMatch(/(?<!\r)\n/);
  });
});

describe('sanitized mail HTML keeps to the render policy', () => {
  it('names its render mode', () => {
    expect(HTML_RENDER_MODE).toBe('SANITIZED_NO_EXTERNAL');
  });

  it.each(FIXTURES)('%s: nothing runs, nothing fetches, the words a person needs stay', async (fixture) => {
    const mail = await parseEml(raw(fixture));
    const expected = EXPECTED[fixture]!;
    for (const phrase of expected.text) expect(mail.text).toContain(phrase);
    // Quoted-printable is undone: no soft line break (a lone `=` ending a line) or escape is left.
    if (raw(fixture).toString('latin1').includes('quoted-printable')) {
      expect(mail.text).not.toMatch(/(?<!=)=\r?\n|=[0-9A-F]{2}/);
    }
    if (expected.visible === undefined) {
      expect(mail.html).toBeNull();
      return;
    }
    expect(mail.html).not.toBeNull();
    const safe = sanitizeMailHtml(mail.html!)!;
    expect(problemsIn(safe)).toEqual([]);
    const visible = visibleText(safe);
    for (const phrase of expected.visible) expect(visible).toContain(phrase);
    for (const phrase of expected.hidden ?? []) expect(visible).not.toContain(phrase);
  });

  it.each(FIXTURES.filter((f) => EXPECTED[f]!.visible))(
    '%s: the checker finds problems in the raw HTML (it would catch a sanitizer that let them through)',
    async (fixture) => {
      const mail = await parseEml(raw(fixture));
      expect(problemsIn(mail.html!)).not.toEqual([]);
    },
  );

  it('the checker names what is wrong in an unsanitized hostile message', async () => {
    const problems = problemsIn((await parseEml(raw('01-script-and-handlers.eml'))).html!);
    expect(problems).toEqual(
      expect.arrayContaining([
        'element <script>',
        'attribute onerror on <img>',
        'attribute onclick on <div>',
        'contains "<script"',
        'contains "onerror"',
        'contains "onload"',
      ]),
    );
    expect(problemsIn('<a href="&#106;avascript:alert(1)">x</a>')).toContain(
      'value href="javascript:alert(1)" on <a>',
    );
    expect(problemsIn('<td background="//t.example/p.gif">x</td><!-- c -->')).toEqual(
      expect.arrayContaining(['attribute background on <td>', 'comment <!-- c -->']),
    );
  });
});

describe('the sanitizer in detail', () => {
  it('keeps only harmless attribute values', () => {
    expect(sanitizeMailHtml('<p dir="rtl" lang="ar-EG" align="javascript:x" title="t">x</p>')).toBe(
      '<p dir="rtl" lang="ar-EG">x</p>',
    );
    expect(sanitizeMailHtml('<td colspan="2" rowspan="x" valign="top" width="50%">c</td>')).toBe(
      '<td colspan="2" valign="top">c</td>',
    );
  });

  it('a <head> or <form> left open does not take the message with it', () => {
    expect(sanitizeMailHtml('<head><style>p{}</style><p>Arrival 12 Dec</p>')).toBe('<p>Arrival 12 Dec</p>');
    expect(sanitizeMailHtml('<form action="https://x.example"><p>Rate us</p><input value="a">')).toBe(
      '<p>Rate us</p>',
    );
  });

  it('drops comments, Outlook conditional blocks included, but shows what non-Outlook clients show', () => {
    expect(
      sanitizeMailHtml('<!--[if mso]><p>mso</p><![endif]--><!--[if !mso]><!-- --><p>web</p><!--<![endif]-->'),
    ).toBe('<p>web</p>');
  });

  it('leaves text as text: a URL written out in a sentence is shown, never linked or fetched', () => {
    expect(sanitizeMailHtml('<p>Menu at https://x.example/menu</p>')).toBe(
      '<p>Menu at https://x.example/menu</p>',
    );
    expect(sanitizeMailHtml('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>')).toBe(
      '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>',
    );
  });
});

describe('parsing .eml headers', () => {
  it('reads the threading headers of a reply, brackets kept, references in order', async () => {
    const mail = await parseEml(raw('14-outlook-reply-threading.eml'));
    expect(mail.messageId).toBe(
      '<AM0PR07MB1234A1B2C3D4E5F6A7B8C9D0@AM0PR07MB1234.eurprd07.prod.outlook.com>',
    );
    expect(mail.inReplyTo).toBe('<group-req-2.1763567000@holdfast.example>');
    expect(mail.references).toEqual([
      '<group-req-1.1763560800@holdfast.example>',
      '<group-req-2.1763567000@holdfast.example>',
    ]);
    expect(mail.subject).toBe('RE: Group booking 12 rooms, 6-8 March');
  });

  it('reads From and the Cc list as plain text, encoded names decoded', async () => {
    const mail = await parseEml(raw('14-outlook-reply-threading.eml'));
    expect(mail.from).toBe('Pieter de Vries <pieter@canal-hotel.example>');
    expect(mail.cc).toEqual([
      'Sanne Bakker <sanne@canal-hotel.example>',
      'Zoë Martin <zoe@agency.example>',
      'frontdesk@canal-hotel.example',
    ]);
    expect((await parseEml(raw('08-broken-html.eml'))).from).toBe('reservations@pension-linde.example');
  });

  it('dates are epoch milliseconds, offsets applied', async () => {
    expect((await parseEml(raw('14-outlook-reply-threading.eml'))).date).toBe(
      Date.UTC(2025, 10, 20, 8, 15, 42),
    );
    expect((await parseEml(raw('08-broken-html.eml'))).date).toBe(Date.UTC(2025, 10, 9, 16, 20));
    expect((await parseEml(raw('13-shift-jis-japanese.eml'))).date).toBe(Date.UTC(2025, 10, 14, 0, 0));
  });

  const eml = (...lines: string[]) => Buffer.from(lines.join('\r\n'));

  it('a missing or unreadable Date is null, not the time of parsing (mailparser would say "now")', async () => {
    expect((await parseEml(eml('Subject: x', 'Date: sometime last week', '', 'hi'))).date).toBeNull();
    expect((await parseEml(eml('Subject: x', '', 'hi'))).date).toBeNull();
  });

  it('one Reference is still a list; groups in Cc are their members; no body is empty text and no HTML', async () => {
    const mail = await parseEml(
      eml(
        'References: <only@x.example>',
        'Cc: Team: a@x.example, "B" <b@x.example>;, undisclosed-recipients:;',
        '',
        '',
      ),
    );
    expect(mail.references).toEqual(['<only@x.example>']);
    expect(mail.cc).toEqual(['a@x.example', 'B <b@x.example>']);
    expect(mail).toMatchObject({
      messageId: null,
      inReplyTo: null,
      subject: null,
      from: null,
      text: '',
      html: null,
    });
  });

  it('keeps no attachment: the inline image stays a cid: link, the PDF is nowhere', async () => {
    const mail = await parseEml(raw('15-attachment-and-inline-cid-image.eml'));
    expect(Object.keys(mail).sort()).toEqual(
      ['cc', 'date', 'from', 'html', 'inReplyTo', 'messageId', 'references', 'subject', 'text'].sort(),
    );
    expect(mail.html).toContain('cid:logo-7731@lakeside-lodge.example');
    expect(mail.html).not.toContain('data:image');
    expect(JSON.stringify(mail)).not.toContain('ATTACHMENT-BODY-MARKER');
  });

  it('refuses to parse HTML beyond its bounds, fast: such mail keeps its text only', () => {
    // 200,000 unclosed tags once took the parser minutes (its work grows with their square):
    // were they parsed, this test would run into its timeout.
    expect(sanitizeMailHtml('<b>'.repeat(200_000))).toBeNull();
    expect(sanitizeMailHtml(`<p>${'x'.repeat(1_000_001)}</p>`)).toBeNull();
    // Just inside the bound it still renders.
    expect(sanitizeMailHtml('<b>a</b>'.repeat(4_999))).toContain('<b>a</b>');
  });
});
