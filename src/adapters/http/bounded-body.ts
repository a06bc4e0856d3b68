/** What reading a request body came to. */
export type BodyRead =
  | { readonly kind: 'read'; readonly bytes: Uint8Array<ArrayBuffer> }
  /** More than the limit arrived (or was declared): reading stopped there; `head` is what came first. */
  | { readonly kind: 'too_large'; readonly head: Uint8Array }
  /** The body did not arrive within the deadline (a client trickling it). */
  | { readonly kind: 'too_slow' }
  /** The connection failed while the body was read. */
  | { readonly kind: 'unreadable' };

export interface BodyLimits {
  /** Bytes, counted as they arrive: never characters after decoding. */
  readonly maxBytes: number;
  /** Milliseconds from the start of the read to its last byte. */
  readonly deadlineMs: number;
}

/** How much of an over-limit body is kept to say what it was (its JSON-RPC id, when it comes first). */
const HEAD_BYTES = 512;

/**
 * Every read of a request body: once, as a stream, counting bytes as they arrive. Past the limit
 * the read stops — nothing past it is buffered — and past the deadline it is given up. The rest
 * of an abandoned body is the server's to discard after the answer: it is read and dropped for at
 * most half a second (or 64 MB) and then the connection is closed — a lingering close (RFC 9112
 * §9.6; @hono/node-server's drain on a kept-alive connection, main/runtime/lingering-close.ts on one the client
 * closes), so that the client reads the answer instead of a reset.
 */
export async function readBody(request: Request, limits: BodyLimits): Promise<BodyRead> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > limits.maxBytes) return { kind: 'too_large', head: new Uint8Array(0) };
  const stream = request.body;
  if (!stream) return { kind: 'read', bytes: new Uint8Array(0) };
  const reader = stream.getReader();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), limits.deadlineMs);
  });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), late]);
      if (next === 'late') return { kind: 'too_slow' };
      if (next.done) break;
      size += next.value.byteLength;
      if (size > limits.maxBytes) {
        chunks.push(next.value);
        return { kind: 'too_large', head: concat(chunks, Math.min(size, HEAD_BYTES)) };
      }
      chunks.push(next.value);
    }
  } catch {
    return { kind: 'unreadable' };
  } finally {
    clearTimeout(timer);
    // Reading stops here; a pending read (too slow) is rejected and left to the connection's end.
    try {
      reader.releaseLock();
    } catch {
      // An older runtime refuses while a read is pending: the connection's end settles it.
    }
  }
  return { kind: 'read', bytes: concat(chunks, size) };
}

/** The first `length` bytes of the chunks as one array. */
function concat(chunks: readonly Uint8Array[], length: number): Uint8Array<ArrayBuffer> {
  // A request's chunks are Buffers over plain ArrayBuffers.
  if (chunks.length === 1 && chunks[0]!.byteLength === length) return chunks[0]! as Uint8Array<ArrayBuffer>;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    if (offset >= length) break;
    const part = chunk.subarray(0, length - offset);
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
