import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeSupportWarning, SUPPORTED_NODE_MAJORS } from '../../../src/main/runtime/node-support.js';

describe('the Node.js lines Holdfast supports', () => {
  it('22 and 24 pass quietly; 20 is told it is past end of life; others that they are untested', () => {
    expect(nodeSupportWarning('v22.23.5')).toBeNull();
    expect(nodeSupportWarning('v24.22.3')).toBeNull();
    expect(nodeSupportWarning('v20.20.2')).toMatch(
      /^Node\.js v20\.20\.2 reached end of life in April 2026.*22 and 24/,
    );
    expect(nodeSupportWarning('v26.0.0')).toMatch(/not a line Holdfast is tested on/);
    expect(nodeSupportWarning('v18.20.0')).toMatch(/not a line Holdfast is tested on/);
  });

  it('package.json engines names the same lines (and 20, which still runs)', () => {
    const { engines } = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
    for (const major of SUPPORTED_NODE_MAJORS) expect(engines.node).toContain(`^${major}`);
    expect(engines.node).toContain('^20.11');
  });
});
