// The MCP Inspector 2.12 (tools/interop) in its CLI mode through the scenario, run under
// Node 22 (it needs >= 22.19). The CLI makes one connection per command, so each operation is
// one `inspector --cli ... --method M --format json` process; `connect` is `--method initialize`.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { driverMain } from './scenario.mjs';

const BIN = join(
  dirname(fileURLToPath(import.meta.url)),
  '../../tools/interop/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js',
);

function inspector(job, method, extra = []) {
  const target =
    job.transport === 'http'
      ? [job.url, '--transport', 'http', '--header', `Authorization: Bearer ${job.token}`]
      : ['--transport', 'stdio', job.stdio.command, ...job.stdio.args];
  const args = [BIN, '--cli', '--format', 'json', '-q', '--method', method, ...extra, ...target];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) => {
      const line = stdout.trim().split('\n').at(-1);
      let answer;
      try {
        answer = JSON.parse(line);
      } catch {
        return reject(new Error(`exit ${error?.code ?? 0}: ${(stderr || stdout).trim().slice(0, 200)}`));
      }
      if (answer.result) return resolve(answer.result);
      reject(new Error(`${answer.error?.code}: ${answer.error?.message}`));
    });
  });
}

driverMain((job) => ({
  async connect() {
    await inspector(job, 'initialize');
  },
  async listToolNames() {
    return (await inspector(job, 'tools/list')).tools.map((t) => t.name);
  },
  async listResources() {
    return (await inspector(job, 'resources/list')).resources;
  },
  async listPrompts() {
    return (await inspector(job, 'prompts/list')).prompts;
  },
  async callTool(name, args) {
    const result = await inspector(job, 'tools/call', [
      '--tool-name',
      name,
      '--tool-args-json',
      JSON.stringify(args),
    ]);
    return {
      envelope: result.structuredContent,
      text: (result.content ?? []).map((c) => c.text ?? '').join('\n'),
    };
  },
  async close() {},
}));
