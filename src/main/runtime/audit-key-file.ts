import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AuditKey } from '../../adapters/audit/index.js';
import type { Logger } from '../../adapters/log/index.js';
import type { ServerConfig } from '../config/config.js';
import { isPostgresUrl } from '../config/database-url.js';
import { UsageError } from '../config/usage-error.js';

/**
 * Where the audit key lives when HOLDFAST_AUDIT_KEY is not set: `--audit-key-file`, else
 * beside the SQLite file, else ./data/audit.key for PostgreSQL (every instance must share it).
 */
export function auditKeyPath(config: ServerConfig): string {
  if (config.auditKeyFile) return config.auditKeyFile;
  return isPostgresUrl(config.database)
    ? join('data', 'audit.key')
    : join(dirname(config.database), 'audit.key');
}

/**
 * Writes a new key beside its final place, then links it there: instances starting together
 * either create it or read the complete key another one created, never a half-written file.
 */
function createOnce(path: string): boolean {
  mkdirSync(dirname(path), { recursive: true });
  const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, `${randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  try {
    linkSync(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    unlinkSync(draft);
  }
}

/**
 * Loads the audit key; `create` (serve, stdio) makes a new one on first start, readable by
 * the owner only. Operator commands never create one: a missing key is a clear error.
 */
export function loadAuditKey(config: ServerConfig, create: boolean, logger?: Logger): AuditKey {
  if (config.auditKey) return new AuditKey(config.auditKey);
  const path = auditKeyPath(config);
  if (create && createOnce(path))
    logger?.info('created audit key', {
      path,
      hint: 'keep a copy outside this machine; see docs/operations.md, "Audit"',
    });
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(
      `No audit key at ${path}. Pass --audit-key-file PATH or set HOLDFAST_AUDIT_KEY (the key the server uses).`,
    );
  }
  if ((statSync(path).mode & 0o077) !== 0)
    logger?.warn('audit key file is readable by others; chmod 600 it', { path });
  try {
    return new AuditKey(text);
  } catch (error) {
    throw new UsageError(`${path}: ${(error as Error).message}`);
  }
}
