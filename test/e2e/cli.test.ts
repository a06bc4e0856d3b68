import { createServer } from 'node:http';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands, cliReference } from '../../src/main/cli/help.js';
import { spawnCli, runProcess, tempDbPath } from '../support/spawn-server.js';

const db = tempDbPath();
beforeAll(async () => {
  expect((await spawnCli(['db', 'migrate', '--db', db.path])).status).toBe(0);
});
afterAll(() => db.cleanup());

/** The mistakes a newcomer makes, each with the exit code and the one line it must get. */
const mistakes: [string, string[], 1 | 2, RegExp][] = [
  ['an unknown approval', ['approvals', 'approve', 'nope-id'], 1, /^holdfast: No approval nope-id\.$/],
  ['an unknown booking', ['payments', 'set', 'bk_nope', 'PAID'], 1, /^holdfast: No booking bk_nope\.$/],
  ['a count that is not a number', ['audit', 'tail', '-n', 'abc'], 2, /-n must be a whole number/],
  ['a port out of range', ['serve', '--port', '70000'], 2, /--port must be a whole number from 0 to 65535/],
  ['an unknown command', ['bogus'], 2, /unknown command "bogus"/],
  [
    'a webhook receiver written as IPv4-compatible loopback',
    ['webhooks', 'add', 'https://[::127.0.0.1]/h', '--events', 'all'],
    2,
    /The receiver may not be reached: ::7f00:1 is a private, loopback, link-local or special-use address/,
  ],
  [
    'a webhook receiver on a name of this host',
    ['webhooks', 'add', 'https://hooks.localhost./h', '--events', 'all'],
    2,
    /The receiver may not be reached: hooks\.localhost\. names this host/,
  ],
  [
    'an ingest token for longer than a year',
    ['inbox', 'tokens', 'create', '--name', 'gw', '--expires', '3650'],
    2,
    /--expires must be a whole number of days from 1 to 366/,
  ],
  ['an unknown option', ['approvals', 'list', '--bogus'], 2, /unknown option --bogus/],
  ['an option without its value', ['approvals', 'list', '--db'], 2, /--db needs a value/],
  ['an unknown verb', ['approvals', 'frobnicate'], 2, /usage: holdfast approvals list/],
  [
    'a payment status that does not exist',
    ['payments', 'set', 'bk_1', 'MAYBE'],
    2,
    /usage: holdfast payments set/,
  ],
  [
    'both --db and --database',
    ['approvals', 'list', '--db', 'x.db', '--database', 'postgres://x@127.0.0.1/y'],
    2,
    /either --db .* or --database/,
  ],
  ['a non-loopback address', ['serve', '--host', '0.0.0.0', '--port', '0'], 2, /Refusing to bind 0\.0\.0\.0/],
  [
    'a bad write policy',
    ['stdio', '--write-policy', 'yolo'],
    2,
    /--write-policy must be readonly, draft, attested, direct/,
  ],
  [
    'an option of another command (over HTTP the write policy is each token’s)',
    ['serve', '--write-policy', 'draft'],
    2,
    /holdfast serve takes no --write-policy \(see holdfast serve --help\)/,
  ],
  [
    'a public URL that is not one',
    ['serve', '--public-url', 'holdfast.example'],
    2,
    /--public-url must be an http\(s\) URL/,
  ],
  [
    'a checkpoint file that is not there',
    ['audit', 'verify', '--checkpoint', '/nonexistent/x'],
    2,
    /Cannot read checkpoint file/,
  ],
];

describe('the CLI speaks clearly', () => {
  it.concurrent.each(mistakes)(
    '%s: one line, the right exit code, no stack',
    async (_name, args, exitCode, line) => {
      const withDb =
        args.includes('--database') || args.includes('--db') || args[0] === 'bogus'
          ? args
          : [...args, '--db', db.path];
      const run = await spawnCli(withDb);
      expect(run.status, run.stderr).toBe(exitCode);
      const lines = run.stderr.trim().split('\n');
      expect(lines, run.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(line);
      expect(run.stderr).not.toContain('    at ');
      expect(run.stdout).toBe('');
    },
  );

  it('an ingest token made without --expires lives 90 days, as the help says', async () => {
    const made = await spawnCli([
      'inbox',
      'tokens',
      'create',
      '--name',
      'gateway',
      '--db',
      db.path,
      '--json',
    ]);
    expect(made.status, made.stderr).toBe(0);
    const listed = await spawnCli(['inbox', 'tokens', 'list', '--db', db.path, '--json']);
    const token = (
      JSON.parse(listed.stdout) as { name: string; createdAt: string; expiresAt: string | null }[]
    ).find((t) => t.name === 'gateway')!;
    expect(token.expiresAt).not.toBeNull();
    expect(Date.parse(token.expiresAt!) - Date.parse(token.createdAt)).toBe(90 * 24 * 60 * 60 * 1000);
  });

  it('refuses an operator command on a database that does not exist, and creates nothing', async () => {
    const missing = join(db.path, '..', 'typo', 'holdfst.db');
    for (const args of [['audit', 'verify'], ['approvals', 'list'], ['sweep'], ['reconciliation']]) {
      const run = await spawnCli([...args, '--db', missing]);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/No Holdfast database at .*typo\/holdfst\.db\. Only `holdfast serve`/);
    }
    expect(existsSync(join(db.path, '..', 'typo'))).toBe(false);
  });

  it('names a busy port and an unwritable place in one line', async () => {
    const first = createServer(() => undefined);
    await new Promise<void>((resolve) => first.listen(0, '127.0.0.1', resolve));
    const port = (first.address() as { port: number }).port;
    const busy = await spawnCli(['serve', '--port', String(port), '--db', db.path]);
    first.close();
    expect(busy.status).toBe(1);
    expect(busy.stderr.trim()).toMatch(
      new RegExp(`^holdfast: port ${port} on 127\\.0\\.0\\.1 is already in use; choose another with --port$`),
    );
    // Even root cannot create a directory under /sys.
    const denied = await spawnCli(['serve', '--port', '0', '--db', '/sys/kernel/holdfast/holdfast.db']);
    expect(denied.status).toBe(1);
    expect(denied.stderr.trim().split('\n')).toHaveLength(1);
    expect(denied.stderr).toMatch(/permission denied: cannot write \/sys\/kernel\/holdfast/);
  });

  it('prints a stack only with --debug', async () => {
    const run = await spawnCli(['payments', 'set', 'bk_nope', 'PAID', '--db', db.path, '--debug']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('    at ');
  });

  it('has a help page with an example for every command, and a version', async () => {
    const asks = commands.flatMap((command) => [
      { command, args: [command.name, '--help'] },
      { command, args: ['help', command.name] },
    ]);
    // Some 60 processes: a few at a time, so the two cores stay busy without one queue of waits.
    const answers: Awaited<ReturnType<typeof spawnCli>>[] = [];
    for (let i = 0; i < asks.length; i += 3)
      answers.push(...(await Promise.all(asks.slice(i, i + 3).map((a) => spawnCli(a.args)))));
    asks.forEach(({ command, args }, i) => {
      const run = answers[i]!;
      expect(run.status, args.join(' ')).toBe(0);
      expect(run.stdout).toContain(`Usage: ${command.usage[0]}`);
      expect(run.stdout).toMatch(/Examples?:\n {2}holdfast /);
    });
    const [global, version] = await Promise.all([spawnCli(['--help']), spawnCli(['--version'])]);
    expect(global.stdout).toContain('Commands:');
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(version.stdout.trim()).toBe(`holdfast ${pkg.version} (Node.js ${process.version})`);
  }, 120_000);

  it('answers --version and --help before reading any setting: bad or empty variables cannot hide them', async () => {
    const env = { ...process.env, HOLDFAST_DB: '', HOLDFAST_PORT: 'not-a-port', HOLDFAST_PROFILE: 'nope' };
    const [version, help, serve] = await Promise.all([
      spawnCli(['--version'], { env }),
      spawnCli(['serve', '--help'], { env }),
      spawnCli(['serve'], { env }),
    ]);
    expect([version.status, help.status]).toEqual([0, 0]);
    expect(version.stdout).toMatch(/^holdfast \d+\.\d+\.\d+/);
    expect(help.stdout).toContain('Usage: holdfast serve');
    // The command itself still reads them, and says which one is wrong.
    expect(serve.status).toBe(2);
    expect(serve.stderr).toContain('--profile must be');
  });

  it('runs through npx from the project, as the README says', { timeout: 90_000 }, async () => {
    // npm asks the registry whether it is out of date before it runs anything; on a busy machine
    // or a slow registry that alone took over 30 s once. Nothing here needs the registry.
    // Once the suite has written under node_modules, npm exec finds its hidden lockfile out of date,
    // re-reifies the project and runs its postinstall, which reinstalls tools/runtimes: the Node 22
    // binary the conformance files spawn vanished under them mid-run. No script runs here.
    const run = await runProcess('npx', ['--no-install', 'holdfast', '--version'], {
      env: {
        ...process.env,
        npm_config_update_notifier: 'false',
        npm_config_offline: 'true',
        npm_config_ignore_scripts: 'true',
      },
      timeoutMs: 80_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^holdfast \d+\.\d+\.\d+/);
  });

  it('docs/cli.md carries the CLI reference exactly as the help prints it', () => {
    const reference = readFileSync('docs/cli.md', 'utf8');
    expect(reference).toContain(cliReference().trim());
  });

  it('reads HOLDFAST_* before the conventional PORT and DATABASE_URL, and never a generic HOST', async () => {
    mkdirSync(join(db.path, '..', 'env'), { recursive: true });
    const env = (vars: Record<string, string>) =>
      spawnCli(['approvals', 'list', '--json'], { env: { ...process.env, ...vars } });
    // DATABASE_URL names a database that does not exist; HOLDFAST_DB wins over it.
    const winner = await env({ HOLDFAST_DB: db.path, DATABASE_URL: join(db.path, '..', 'env', 'other.db') });
    expect(winner.status, winner.stderr).toBe(0);
    const generic = await env({ DATABASE_URL: db.path });
    expect(generic.status, generic.stderr).toBe(0);
    const serve = await spawnCli(['serve', '--db', db.path], {
      env: { ...process.env, HOST: 'vm', HOLDFAST_PORT: '70000' },
    });
    // HOST=vm is ignored (no "Refusing to bind vm"); HOLDFAST_PORT is read, and refused by range.
    expect(serve.stderr).not.toContain('vm');
    expect(serve.stderr).toMatch(/--port must be a whole number from 0 to 65535, got "70000"/);
  });
});
