import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI } from '../support/spawn-server.js';

// `holdfast … | head`: the reader goes away before the command has written; the command ends
// quietly instead of printing an EPIPE stack trace.
describe('a command whose reader stopped early', () => {
  it('exits 0 with nothing on stderr', async () => {
    const child = spawn(process.execPath, [CLI, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
