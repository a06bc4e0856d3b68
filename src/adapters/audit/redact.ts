const CONTACT_FIELD = /mail|phone|tel|mobile|address|whatsapp|contact/i;

function mask(value: string): string {
  const at = value.indexOf('@');
  if (at > 0) return `${value[0]}***${value.slice(at)}`;
  return value.length <= 4 ? '***' : `${value.slice(0, 2)}***${value.slice(-2)}`;
}

/** A preview of call arguments safe to keep in the audit trail: customer contact fields masked. */
export function redactedPreview(value: unknown, key = ''): unknown {
  if (typeof value === 'string')
    return CONTACT_FIELD.test(key) ? mask(value) : value.length > 200 ? `${value.slice(0, 200)}…` : value;
  if (Array.isArray(value)) return value.slice(0, 20).map((v) => redactedPreview(v, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactedPreview(v, k)]));
  }
  return value;
}
