import { appendFileSync, readFileSync } from 'node:fs';
import { tailAudit } from '../../../adapters/audit/index.js';
import { verifyAudit } from '../../../adapters/audit/index.js';
import { makeCheckpoint, parseCheckpoints } from '../../../adapters/audit/index.js';
import { table } from '../../../adapters/format/index.js';
import { formatInstant } from '../../../domain/time/instant.js';
import type { Runtime } from '../../runtime/compose.js';
import type { ServerConfig } from '../../config/config.js';
import { UsageError } from '../../config/usage-error.js';

type Print = (text: string) => void;

export async function auditCommand(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const [verb] = config.rest;
  if (verb === 'verify') {
    const parsed = config.options.checkpoint
      ? parseCheckpoints(readCheckpointFile(config.options.checkpoint))
      : { checkpoints: [], malformedLines: [] };
    if (parsed.malformedLines.length > 0)
      throw new UsageError(
        `${config.options.checkpoint}: malformed checkpoint on line ${parsed.malformedLines.join(', ')}`,
      );
    if (config.options.checkpoint && parsed.checkpoints.length === 0)
      throw new UsageError(`${config.options.checkpoint}: no checkpoint lines found`);
    const result = await verifyAudit(runtime.store, runtime.auditKey, {
      checkpoints: parsed.checkpoints,
      allowUnkeyed: config.options.allowUnkeyed ?? false,
    });
    if (config.json) print(JSON.stringify(result));
    else if (result.ok)
      print(
        `audit chain ok: ${result.records} records` +
          (result.legacyRecords
            ? ` (${result.legacyRecords} on the unkeyed chain of earlier releases)`
            : '') +
          (parsed.checkpoints.length
            ? `, ${result.checkpointsChecked} of ${parsed.checkpoints.length} checkpoints matched and reached`
            : ', no checkpoints given') +
          (result.pending ? `; ${result.pending} entries not yet sealed` : ''),
      );
    else {
      const broken = result.firstBroken!;
      const range =
        broken.lastSeq !== undefined ? `seq ${broken.seq}..${broken.lastSeq}` : `seq ${broken.seq}`;
      print(`audit chain BROKEN at ${range}: ${broken.reason} (${result.records} records read)`);
    }
    return result.ok ? 0 : 1;
  }
  if (verb === 'checkpoint') {
    const head = await runtime.store.read((tx) => tx.audit.head());
    const line = JSON.stringify(makeCheckpoint(runtime.auditKey, head, new Date().toISOString()));
    if (config.options.out) appendFileSync(config.options.out, `${line}\n`);
    print(line);
    return 0;
  }
  if (verb === 'tail') {
    const count = Number(config.options.lines ?? 20);
    if (!/^\d+$/.test(config.options.lines ?? '20') || count < 1 || count > 10_000)
      throw new UsageError(`-n must be a whole number from 1 to 10000, got "${config.options.lines}"`);
    const records = await tailAudit(runtime.store, count);
    if (config.json) for (const r of records) print(JSON.stringify({ ...r, at: formatInstant(r.at) }));
    else
      print(
        table(
          ['SEQ', 'AT', 'TRANSPORT', 'CLIENT', 'TOOL', 'OUTCOME', 'TRACE'],
          records.map((r) => [
            String(r.seq),
            formatInstant(r.at),
            r.transport,
            r.clientId,
            r.tool,
            `${r.outcome}${r.errorCode ? ` ${r.errorCode}` : ''}`,
            r.traceId,
          ]),
        ),
      );
    return 0;
  }
  throw new UsageError(
    'usage: holdfast audit verify [--checkpoint FILE] | checkpoint [--out FILE] | tail [-n N]',
  );
}

function readCheckpointFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`Cannot read checkpoint file ${path}`);
  }
}
