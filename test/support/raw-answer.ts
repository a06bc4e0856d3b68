import type { Client } from '@modelcontextprotocol/client';

/** A tool's answer as a profile's own client reads it: the error flag, the text, the structured data. */
export interface RawAnswer {
  readonly isError: boolean;
  readonly text: string;
  readonly data: any;
}

/** Calls a tool and returns its answer unwrapped (no Holdfast envelope assumed: a profile's own shape). */
export async function rawCall(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<RawAnswer> {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text: string }[];
    structuredContent?: unknown;
  };
  return { isError: !!result.isError, text: result.content[0]!.text, data: result.structuredContent };
}
