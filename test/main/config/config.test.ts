import { describe, expect, it } from 'vitest';
import { commandDoc, commands, optionDocs } from '../../../src/main/cli/help.js';
import { OPTION_NAMES, readCommand, readConfig } from '../../../src/main/config/config.js';
import { UsageError } from '../../../src/main/config/usage-error.js';

describe('readConfig', () => {
  it('--pg-pool-size bounds the PostgreSQL connections of an instance: flag over environment, default 20', () => {
    expect(readConfig(['serve'], {}).pgPoolSize).toBe(20);
    expect(readConfig(['serve'], { HOLDFAST_PG_POOL_SIZE: '8' }).pgPoolSize).toBe(8);
    expect(readConfig(['serve', '--pg-pool-size', '3'], { HOLDFAST_PG_POOL_SIZE: '8' }).pgPoolSize).toBe(3);
    for (const bad of ['0', '501', 'many', '2.5'])
      expect(() => readConfig(['serve', '--pg-pool-size', bad], {})).toThrow(UsageError);
  });

  it('counts a variable set to nothing as unset: HOLDFAST_DB= is the default file, HOLDFAST_PORT= the default port', () => {
    const config = readConfig(['serve'], { HOLDFAST_DB: '', HOLDFAST_PORT: '', PORT: '', DATABASE_URL: '' });
    expect([config.database, config.port]).toEqual(['data/holdfast.db', 3000]);
    expect(readConfig(['serve'], { HOLDFAST_DB: '', DATABASE_URL: '/srv/h.db' }).database).toBe('/srv/h.db');
    expect(() => readConfig(['serve'], { HOLDFAST_PORT: 'many' })).toThrow(UsageError);
  });

  it('--profile expert-booking serves the catalog, the timing contract and 2026-07-28 only; --tools and --legacy still win', () => {
    const expert = readConfig(['serve', '--profile', 'expert-booking'], {});
    expect([expert.toolMode, expert.timingContract, expert.legacy]).toEqual(['catalog', true, 'reject']);
    const fromEnv = readConfig(['stdio'], { HOLDFAST_PROFILE: 'expert-booking' });
    expect([fromEnv.toolMode, fromEnv.timingContract, fromEnv.legacy]).toEqual(['catalog', true, 'reject']);
    const relaxed = readConfig(
      ['serve', '--profile', 'expert-booking', '--tools', 'flat', '--legacy', 'stateless'],
      {},
    );
    expect([relaxed.toolMode, relaxed.legacy]).toEqual(['flat', 'stateless']);
    const standard = readConfig(['serve'], {});
    expect([standard.toolMode, standard.timingContract, standard.legacy]).toEqual([
      'flat',
      false,
      'stateless',
    ]);
    expect(() => readConfig(['serve', '--profile', 'expert'], {})).toThrow(UsageError);
  });

  it('finds --version and --help from the arguments alone', () => {
    expect(readCommand(['--version'])).toEqual({ command: 'version', helpFor: null });
    expect(readCommand(['help', 'approvals'])).toEqual({ command: 'help', helpFor: 'approvals' });
    expect(readCommand(['tokens', '--help'])).toEqual({ command: 'help', helpFor: 'tokens' });
    expect(readCommand([])).toEqual({ command: 'serve', helpFor: null });
  });
});

describe('options per command: each command takes the options its page declares', () => {
  const declared = (name: string) => {
    const doc = commandDoc(name);
    if (!doc) throw new Error(`no page for ${name}`);
    return { command: doc.name, options: doc.options };
  };

  it('refuses an option another command takes, naming the command and its page', () => {
    const attempts: [string[], string][] = [
      [
        ['approvals', 'list', '--port', '3000'],
        'holdfast approvals takes no --port (see holdfast approvals --help)',
      ],
      [
        ['payments', 'set', 'bk_1', 'PAID', '--dev'],
        'holdfast payments takes no --dev (see holdfast payments --help)',
      ],
      [['stdio', '--trust-proxy'], 'holdfast stdio takes no --trust-proxy (see holdfast stdio --help)'],
      [['serve', '--as', 'me@example.com'], 'holdfast serve takes no --as (see holdfast serve --help)'],
      [['audit', 'tail', '--every', '15m'], 'holdfast audit takes no --every (see holdfast audit --help)'],
    ];
    for (const [argv, message] of attempts)
      expect(() => readConfig(argv, {}, declared(argv[0]!)), argv.join(' ')).toThrow(message);
    expect(() => readConfig(['serve', '--portt', '1'], {}, declared('serve'))).toThrow(
      'unknown option --portt (see holdfast --help)',
    );
  });

  it('reads a declared option, and --debug and --help everywhere', () => {
    expect(readConfig(['approvals', 'list', '--json', '--debug'], {}, declared('approvals'))).toMatchObject({
      json: true,
      debug: true,
    });
    expect(readConfig(['serve', '--port', '0'], {}, declared('serve')).port).toBe(0);
    expect(readConfig(['stdio', '--as', 'me@example.com'], {}, declared('stdio')).as).toBe('me@example.com');
  });

  it('every declared option exists, has one line of help, and every option is declared by some command', () => {
    const everywhere = ['help', 'version', 'debug'];
    const declaredAnywhere = new Set(commands.flatMap((c) => c.options));
    for (const doc of commands)
      for (const option of doc.options) expect(OPTION_NAMES, `${doc.name} --${option}`).toContain(option);
    for (const option of OPTION_NAMES) {
      if (everywhere.includes(option)) continue;
      expect(declaredAnywhere.has(option), `--${option} is taken by no command`).toBe(true);
      expect(optionDocs[option], `--${option} has no help line`).toMatch(new RegExp(`--${option}\\b`));
    }
  });
});
