// The data directory of a test process: Ringmaster keeps its store, logs and locks in $RINGMASTER_HOME, so
// every test file gets its own temporary one (never the user's ~/.local/share/ringmaster), removed after the
// file's last test (vitest's workers never reach process.on('exit'): a handler there left one per file in /tmp).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { openStore, type OpenStoreOptions } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';

let home: string | null = null;

// Registered when a test file loads this module (each file loads its own copy: vitest isolates files).
afterAll(() => {
  if (home !== null) rmSync(home, { recursive: true, force: true });
  home = null;
});

/** This test process's $RINGMASTER_HOME (created on first use). */
export function testHome(): string {
  if (home === null) {
    home = mkdtempSync(join(tmpdir(), 'ringmaster-home-'));
  }
  return home;
}

/** An environment naming this process's data directory, plus `extra`. */
export function homeEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { RINGMASTER_HOME: testHome(), ...extra };
}

/** Opens the store of this test process's data directory. */
export function openTestStore(options: Omit<OpenStoreOptions, 'env'> = {}): Promise<Store> {
  return openStore({ env: homeEnv(), ...options });
}

/** Gives every test of the file its own empty data directory (for tests that reuse run ids or count runs). */
export function useFreshHome(): void {
  let previous: string | null = null;
  let fresh: string | null = null;
  beforeEach(() => {
    previous = home;
    fresh = mkdtempSync(join(tmpdir(), 'ringmaster-home-'));
    home = fresh;
  });
  afterEach(() => {
    if (fresh !== null) rmSync(fresh, { recursive: true, force: true });
    home = previous;
    fresh = null;
  });
}
