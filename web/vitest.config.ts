import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

// Unit tests of the pure TypeScript logic (no browser, no wasm): web/src/**/*.test.ts
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  test: { include: ['src/**/*.test.ts'], environment: 'node' },
});
