import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';

const NEWLINE = 0x0a;
const HEAD_BYTES = 512;
const ID = /"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,200}")/;

/**
 * Sits between stdin and the stdio transport: passes whole lines through and swallows any line
 * longer than `maxBytes`, reporting it with the first bytes of the line (where the JSON-RPC
 * id usually is). The SDK's own reader would otherwise close the connection for good.
 */
export class LineLimit extends Transform {
  private parts: Buffer[] = [];
  private size = 0;
  private oversizeHead: string | null = null;

  constructor(
    private readonly maxBytes: number,
    private readonly onOversize: (head: string) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      const piece = chunk.subarray(start, end);
      if (this.oversizeHead === null) {
        if (this.size + piece.length > this.maxBytes + 1) {
          this.oversizeHead = Buffer.concat([...this.parts, piece])
            .subarray(0, HEAD_BYTES)
            .toString('utf8');
          this.parts = [];
          this.size = 0;
        } else {
          this.parts.push(piece);
          this.size += piece.length;
        }
      }
      if (newline !== -1) {
        if (this.oversizeHead !== null) this.onOversize(this.oversizeHead);
        else this.push(Buffer.concat(this.parts));
        this.oversizeHead = null;
        this.parts = [];
        this.size = 0;
      }
      start = end;
    }
    done();
  }
}

/** The JSON-RPC error line answering an oversize request: its id when readable, else null. */
export function oversizeError(head: string, maxBytes: number): string {
  return `${JSON.stringify({
    jsonrpc: '2.0',
    id: requestId(head),
    error: {
      code: -32600,
      message: `Request too large: more than ${maxBytes} bytes on one line; nothing was done.`,
    },
  })}\n`;
}

function requestId(head: string): string | number | null {
  const id = ID.exec(head)?.[1];
  if (id === undefined) return null;
  try {
    return JSON.parse(id) as string | number;
  } catch {
    return null;
  }
}
