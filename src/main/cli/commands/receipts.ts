import { readFileSync } from 'node:fs';
import type { JSONWebKeySet } from 'jose';
import {
  RECEIPT_KEY_PURPOSE,
  receiptText,
  rotateReceiptKeys,
  verifyReceipt,
} from '../../../adapters/receipts/index.js';
import { issueReceipt } from '../../../app/booking/receipts.js';
import { describeReceipt } from '../../../domain/booking/receipt.js';
import type { ServerConfig } from '../../config/config.js';
import { UsageError } from '../../config/usage-error.js';
import type { Runtime } from '../../runtime/compose.js';

type Print = (text: string) => void;

const USAGE =
  'usage: holdfast receipts verify FILE [--jwks FILE_OR_URL] | show BOOKING_ID | keys | rotate-key';

/** The key set --jwks names: a file, or an address to fetch it from. */
async function keySetFrom(where: string): Promise<JSONWebKeySet> {
  if (!/^https?:\/\//i.test(where)) return JSON.parse(readFileSync(where, 'utf8')) as JSONWebKeySet;
  const response = await fetch(where, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new UsageError(`${where} answered ${response.status}`);
  return (await response.json()) as JSONWebKeySet;
}

async function readReceiptFile(file: string | undefined): Promise<string> {
  if (!file) throw new UsageError(USAGE);
  try {
    return await receiptText(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read a receipt from ${file}: ${(error as Error).message}`);
  }
}

/** holdfast receipts verify FILE --jwks …: needs no database, only the published keys. */
export async function verifyOffline(config: ServerConfig, print: Print): Promise<number> {
  const jws = await readReceiptFile(config.rest[1]);
  return report(await verifyReceipt(jws, await keySetFrom(config.options.jwks!)), config, print);
}

async function report(
  check: Awaited<ReturnType<typeof verifyReceipt>>,
  config: ServerConfig,
  print: Print,
): Promise<number> {
  if (config.json) print(JSON.stringify(check, null, 2));
  else if (check.valid)
    print(
      [
        `Valid receipt, signed with key ${check.kid}.`,
        ...describeReceipt(check.claims).map((l) => `  ${l}`),
      ].join('\n'),
    );
  else print(`Not a valid receipt: ${check.reason}.`);
  return check.valid ? 0 : 1;
}

/** holdfast receipts show | keys | rotate-key | verify (against this installation's keys). */
export async function receipts(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const { deps } = runtime;
  const [verb, arg, extra] = config.rest;
  if (extra !== undefined) throw new UsageError(USAGE);
  if (verb === 'verify')
    return report(
      await verifyReceipt(await readReceiptFile(arg), await deps.receipts.publicKeys()),
      config,
      print,
    );
  if (verb === 'show' && arg) {
    const receipt = await issueReceipt(deps, config.tenantId, arg);
    print(config.json ? JSON.stringify(receipt, null, 2) : receipt.jws);
    return 0;
  }
  if (verb === 'keys' && !arg) {
    print(JSON.stringify(await deps.receipts.publicKeys(), null, 2));
    return 0;
  }
  if (verb === 'rotate-key' && !arg) {
    const kid = await rotateReceiptKeys(deps.store, deps.clock, runtime.auditKey.derive(RECEIPT_KEY_PURPOSE));
    print(
      config.json
        ? JSON.stringify({ kid })
        : `New receipt key ${kid}: it signs receipts from now on, on every instance. The retired keys stay published, so receipts they signed still verify.`,
    );
    return 0;
  }
  throw new UsageError(USAGE);
}
