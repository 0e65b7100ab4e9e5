/**
 * Runs before every test file (vitest `setupFiles`): whatever temporary
 * directories a file created through test/helpers/repo.ts are removed after
 * it, so a test run leaves nothing in the system temp dir.
 */
import { afterAll } from 'vitest';
import { cleanupAll } from './repo.js';

afterAll(cleanupAll);
