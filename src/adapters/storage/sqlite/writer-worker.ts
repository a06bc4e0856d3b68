import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { openSqlite } from './sqlite-database.js';
import { WriterCore } from './writer-core.js';
import type { WriterFailure, WriterRequest } from './writer-protocol.js';
import { toWire } from './writer-protocol.js';

/** Entry of the SQLite writer thread: one connection, the WriterCore, messages in and out. */
const port = parentPort!;
try {
  const db = openSqlite((workerData as { path: string }).path);
  const core = new WriterCore(
    db,
    (replies) => port.postMessage(replies),
    () => receiveMessageOnPort(port)?.message as WriterRequest[] | undefined,
  );
  port.on('message', (batch: WriterRequest[]) => core.receive(batch));
} catch (error) {
  port.postMessage({ failed: toWire(error) } satisfies WriterFailure);
}
