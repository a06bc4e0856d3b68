import { simpleParser } from 'mailparser';
import type { AddressObject, EmailAddress, HeaderLines } from 'mailparser';
import { textOfMailHtml } from './sanitize-mail.js';

/** What the inbox keeps of one email: threading headers, people, date and the two bodies. */
export interface ParsedMail {
  /** As in the header, angle brackets included: `<abc@x>`. */
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  subject: string | null;
  /** `Name <addr>`, or the bare address when there is no name. */
  from: string | null;
  cc: string[];
  /** Epoch milliseconds; null when the header is missing or unreadable. */
  date: number | null;
  /** The text/plain part, else text made from the HTML, else ''. */
  text: string;
  /** The HTML as sent: untrusted, for sanitizeMailHtml only. */
  html: string | null;
}

/** One address as plain text; the members of a group (`Team: a@x, b@y;`) each count as one. */
function addresses(entry: EmailAddress): string[] {
  if (entry.group) return entry.group.flatMap(addresses);
  if (!entry.address) return [];
  return [entry.name ? `${entry.name} <${entry.address}>` : entry.address];
}

function addressList(field: AddressObject | AddressObject[] | undefined): string[] {
  const objects = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return objects.flatMap((object) => object.value.flatMap(addresses));
}

/**
 * The Date header read from its raw line: mailparser puts the current time in place of a date it
 * cannot read, which would date a garbled message "now" without a trace.
 */
function dateOf(headerLines: HeaderLines): number | null {
  const line = headerLines.find((header) => header.key === 'date')?.line;
  if (line === undefined) return null;
  const ms = Date.parse(line.slice(line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' '));
  return Number.isNaN(ms) ? null : ms;
}

/** Parses a raw `.eml` message. Attachments are not kept: their content never leaves this function. */
export async function parseEml(raw: Buffer): Promise<ParsedMail> {
  const mail = await simpleParser(raw, {
    // Leave `cid:` links alone instead of inlining image attachments as data: URLs (the sanitizer
    // drops images anyway), and skip the text-to-HTML rendering nothing here reads.
    skipImageLinks: true,
    skipTextToHtml: true,
    skipTextLinks: true,
    // Its HTML-to-text pass parses unbounded HTML (quadratic in unclosed tags): the caller makes
    // text from HTML itself, within the sanitizer's bounds.
    skipHtmlToText: true,
  });
  const references = mail.references === undefined ? [] : [mail.references].flat();
  return {
    messageId: mail.messageId ?? null,
    inReplyTo: mail.inReplyTo ?? null,
    references,
    subject: mail.subject ?? null,
    from: addressList(mail.from)[0] ?? null,
    cc: addressList(mail.cc),
    date: dateOf(mail.headerLines),
    text: mail.text || (typeof mail.html === 'string' ? textOfMailHtml(mail.html) : ''),
    html: typeof mail.html === 'string' ? mail.html : null,
  };
}
