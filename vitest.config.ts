import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Most test files wait on processes they spawned (servers, the CLI, a browser): one file per core
// plus one keeps the cores busy. Vitest's own default (cores - 1) runs one file at a time on 2 cores.
const workers = Number(process.env.HOLDFAST_TEST_WORKERS) || Math.max(3, availableParallelism() + 1);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: workers,
    // A worker keeps the modules it imported for its next file (the SDK, the server's code): no
    // test file mocks modules, stubs globals or changes the environment, so nothing leaks between them.
    isolate: false,
    globalSetup: ['test/global-setup.ts'],
  },
});
