import { describe, expect, it } from 'vitest';
import { readConfig } from '../../../src/main/config/config.js';
import { UsageError } from '../../../src/main/config/usage-error.js';

describe('ids that begin with a dash on the command line', () => {
  it('are positionals where they stand: `connections revoke -tK3…` revokes that grant', () => {
    const config = readConfig(['connections', 'revoke', '-tK3xw9_Qm-aZ', '--db', 'x.db'], {});
    expect(config.command).toBe('connections');
    expect(config.rest).toEqual(['revoke', '-tK3xw9_Qm-aZ']);
    expect(config.database).toBe('x.db');
  });

  it('keep their order among other positionals and options', () => {
    const config = readConfig(['--db', 'y.db', 'tokens', '-AAAAAAAA', 'middle', '-hZZZZZZZ'], {});
    expect(config.rest).toEqual(['-AAAAAAAA', 'middle', '-hZZZZZZZ']);
  });

  it('still report short typos, unknown long options and missing values', () => {
    expect(() => readConfig(['serve', '-x'], {})).toThrow(
      new UsageError('unknown option -x (see holdfast --help)'),
    );
    expect(() => readConfig(['serve', '--verbose-mode'], {})).toThrow(/unknown option --verbose-mode/);
    expect(() => readConfig(['serve', '--db', '-abcdefgh'], {})).toThrow(/--db needs a value/);
  });

  it('leave `-n100` as the short form of --lines and everything after `--` alone', () => {
    const audit = readConfig(['audit', '-n100'], {});
    expect(audit.rest).toEqual([]);
    expect(audit.options.lines).toBe('100');
    expect(readConfig(['audit', '--', '-x'], {}).rest).toEqual(['-x']);
  });
});
