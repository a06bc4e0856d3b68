import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { jsonRpcIdOf } from './request-id.js';

const NEWLINE = 0x0a;
const EDGE_BYTES = 512;

/** The two ends of a line too long to keep: enough to find its id. */
export interface OversizeLine {
  readonly head: string;
  readonly tail: string;
}

/**
 * Sits between stdin and the stdio transport: passes whole lines through and swallows any line
 * longer than `maxBytes`, reporting its first and last bytes (where a JSON-RPC id is). The
 * SDK's own reader would otherwise close the connection for good.
 */
export class LineLimit extends Transform {
  private parts: Buffer[] = [];
  private size = 0;
  private oversize: { head: Buffer; tail: Buffer } | null = null;

  constructor(
    private readonly maxBytes: number,
    private readonly onOversize: (line: OversizeLine) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      const piece = chunk.subarray(start, end);
      if (this.oversize) {
        this.oversize.tail = lastBytes(this.oversize.tail, piece);
      } else if (this.size + piece.length > this.maxBytes + 1) {
        const line = Buffer.concat([...this.parts, piece]);
        this.oversize = {
          head: Buffer.from(line.subarray(0, EDGE_BYTES)),
          tail: Buffer.from(line.subarray(-EDGE_BYTES)),
        };
        this.parts = [];
        this.size = 0;
      } else {
        this.parts.push(piece);
        this.size += piece.length;
      }
      if (newline !== -1) {
        if (this.oversize)
          this.onOversize({
            head: this.oversize.head.toString('utf8'),
            tail: this.oversize.tail.toString('utf8'),
          });
        else this.push(Buffer.concat(this.parts));
        this.oversize = null;
        this.parts = [];
        this.size = 0;
      }
      start = end;
    }
    done();
  }
}

/** The last EDGE_BYTES of `kept` then `piece`, copied: nothing of a chunk of the line is retained. */
function lastBytes(kept: Buffer, piece: Buffer): Buffer {
  if (piece.length >= EDGE_BYTES) return Buffer.from(piece.subarray(-EDGE_BYTES));
  return Buffer.concat([kept.subarray(-(EDGE_BYTES - piece.length)), piece]);
}

/** The JSON-RPC error line answering an oversize request: its own id when surely found, else null. */
export function oversizeError(line: OversizeLine, maxBytes: number): string {
  return `${JSON.stringify({
    jsonrpc: '2.0',
    id: jsonRpcIdOf(line.head, line.tail),
    error: {
      code: -32600,
      message: `Request too large: more than ${maxBytes} bytes on one line; nothing was done.`,
    },
  })}\n`;
}
