import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  httpWebhookSender,
  isSpecialUseAddress,
  WebhookSecretBox,
} from '../../../src/adapters/webhooks/index.js';
import { DomainError } from '../../../src/domain/errors.js';
import { checkWebhookUrl } from '../../../src/domain/webhooks/webhook-url.js';
import { startReceiver } from './receiver.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const secrets = new WebhookSecretBox(randomBytes(32));
const request = (url: string) => ({
  url,
  eventId: 'evt_1',
  timestamp: 1_700_000_000,
  body: '{}',
  sealedSecret: secrets.create().sealed,
});

describe('webhook SSRF guard', () => {
  it('refuses loopback, private, link-local and other special-use receivers unless the server allows them', async () => {
    const receiver = await startReceiver(() => '');
    cleanups.push(() => receiver.close());
    const guarded = httpWebhookSender({ allowPrivate: false, secrets, timeoutMs: 2_000 });
    const port = receiver.port;
    const targets = [
      receiver.url, // http to loopback
      `https://127.0.0.1:${port}/hooks`,
      `https://localhost:${port}/hooks`, // a name that resolves to loopback
      `https://[::1]:${port}/hooks`,
      `https://[::ffff:127.0.0.1]:${port}/hooks`,
      `https://2130706433:${port}/hooks`, // 127.0.0.1 as one number
      `https://10.0.0.1:${port}/hooks`,
      `https://169.254.169.254/latest/meta-data`,
      `https://192.168.1.1/hooks`,
      `https://[fe80::1]/hooks`,
      `https://[fc00::1]/hooks`,
      `ftp://example.com/hooks`,
    ];
    for (const url of targets) {
      const answer = await guarded.send(request(url));
      expect({ url, statusCode: answer.statusCode }).toEqual({ url, statusCode: null });
      expect(answer.error).toMatch(/^refused: /);
    }
    expect(receiver.received).toHaveLength(0);

    // The control: with --allow-private-webhooks the same receiver is reached.
    const open = httpWebhookSender({ allowPrivate: true, secrets, timeoutMs: 2_000 });
    expect((await open.send(request(receiver.url))).statusCode).toBe(200);
    expect(receiver.received).toHaveLength(1);
  });

  it('classifies addresses as the special-use registries do', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '224.0.0.1',
      'not-an-ip',
    ])
      expect({ address, special: isSpecialUseAddress(address) }).toEqual({ address, special: true });
    for (const address of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect({ address, special: isSpecialUseAddress(address) }).toEqual({ address, special: false });
  });

  it('accepts only https URLs when subscribing, plain http only to loopback with the flag', () => {
    expect(checkWebhookUrl('https://hooks.example.com/x', false)).toBe('https://hooks.example.com/x');
    expect(checkWebhookUrl('http://127.0.0.1:9/x', true)).toBe('http://127.0.0.1:9/x');
    for (const [url, allow] of [
      ['http://127.0.0.1:9/x', false],
      ['http://hooks.example.com/x', true],
      ['https://user:pw@hooks.example.com/x', false],
      ['file:///etc/passwd', true],
      ['not a url', true],
    ] as const)
      expect(() => checkWebhookUrl(url, allow)).toThrow(DomainError);
  });
});
